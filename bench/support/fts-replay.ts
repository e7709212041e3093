/**
 * The full-text index's cost, measured apart from a crawl's profile: FTS5 keeps a
 * transaction's new terms in memory and writes them at COMMIT, so a profile sees its
 * tokenising in the INSERT but its writing only inside the commit, with the page's other rows.
 * This empties the index of a crawled collection and indexes its pages again, in batches as
 * the crawl does (store/text-index-queue.ts), timing the inserts and the commits in CPU time of
 * this thread; empty transactions, as many, give what a commit costs with nothing to write.
 */
import { openCollection } from '../../crawler/store/database.ts';
import { TEXT_INDEX_BATCH_PAGES } from '../../crawler/store/text-index-queue.ts';

export interface FullTextReplay {
  /** Pages indexed: those the crawl indexed (not noindex, some title or text). */
  pages: number;
  insertMs: number;
  commitMs: number;
  emptyCommitMs: number;
}

function cpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

export function replayFullTextIndex(path: string): FullTextReplay {
  const db = openCollection(path, { create: false });
  try {
    const pages = db
      .prepare("SELECT seq, coalesce(title, ''), coalesce(text, '') FROM pages WHERE noindex = 0 AND (coalesce(title, '') <> '' OR coalesce(text, '') <> '') ORDER BY seq")
      .raw()
      .all() as [number, string, string][];
    db.prepare("INSERT INTO pages_fts (pages_fts) VALUES ('delete-all')").run();
    const begin = db.prepare('BEGIN');
    const commit = db.prepare('COMMIT');
    const insert = db.prepare('INSERT INTO pages_fts (rowid, title, text) VALUES (?, ?, ?)');
    const batches: (typeof pages)[] = [];
    for (let i = 0; i < pages.length; i += TEXT_INDEX_BATCH_PAGES) batches.push(pages.slice(i, i + TEXT_INDEX_BATCH_PAGES));
    let emptyCommitMs = 0;
    for (let i = 0; i < batches.length; i++) {
      begin.run();
      const before = cpuMs();
      commit.run();
      emptyCommitMs += cpuMs() - before;
    }
    let insertMs = 0;
    let commitMs = 0;
    for (const batch of batches) {
      begin.run();
      const before = cpuMs();
      for (const [seq, title, text] of batch) insert.run(seq, title, text);
      const inserted = cpuMs();
      commit.run();
      insertMs += inserted - before;
      commitMs += cpuMs() - inserted;
    }
    return { pages: pages.length, insertMs, commitMs, emptyCommitMs };
  } finally {
    db.close();
  }
}
