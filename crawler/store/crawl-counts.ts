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

/** Pages whose verdicts are counted per statement: a run's start counts them a range at a time. */
const HOT_RANGE = 2000;

/** Counts the stored pages, the hot ones among them, those stored with a render, and the documents. */
export function crawlCounts(db: ReadonlyDb): CrawlCounts {
  const steps = crawlCountSteps(db);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/**
 * crawlCounts as steps, the hot pages counted a range of pages a step: the verdict lies past
 * each page's body and text in its row, so counting them reads the whole table, which a
 * run's start does between turns of the event loop.
 */
export function* crawlCountSteps(db: ReadonlyDb): Generator<void, CrawlCounts, undefined> {
  const pages = db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  const last = (db.prepare('SELECT max(seq) FROM pages').pluck().get() as number | null) ?? 0;
  const hotIn = db.prepare('SELECT count(*) FROM pages WHERE seq > ? AND seq <= ? AND hot = 1').pluck();
  let hot = 0;
  for (let from = 0; from < last; from += HOT_RANGE) {
    hot += hotIn.get(from, from + HOT_RANGE) as number;
    yield;
  }
  const rendered = db.prepare('SELECT count(*) FROM renders').pluck().get() as number;
  const documents = db.prepare('SELECT count(*) FROM documents').pluck().get() as number;
  return { pages, hot, rendered, documents };
}
