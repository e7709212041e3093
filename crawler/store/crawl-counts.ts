import type { ReadonlyDb } from './database.ts';

/** What a collection holds when a run starts: the engine's figures count on from here. */
export interface CrawlCounts {
  /** Pages stored (every fetched URL, site resources included). */
  pages: number;
  /** Stored pages whose verdict is hot. */
  hot: number;
  /** Stored pages kept with their rendered DOM. */
  rendered: number;
  /** Stored pages that are documents (PDF, plain text) read as such. */
  documents: number;
}

/** Counts the stored pages, the hot ones among them, those stored with a render, and the documents. */
export function crawlCounts(db: ReadonlyDb): CrawlCounts {
  const pages = db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  const hot = db.prepare('SELECT count(*) FROM pages WHERE hot = 1').pluck().get() as number;
  const rendered = db.prepare('SELECT count(*) FROM renders').pluck().get() as number;
  const documents = db.prepare('SELECT count(*) FROM documents').pluck().get() as number;
  return { pages, hot, rendered, documents };
}
