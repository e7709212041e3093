import { writeTransaction, type Db } from './database.ts';

/*
 * The full-text index of a crawl's new pages, written in batches. A page's text goes into
 * pages_fts when `TEXT_INDEX_BATCH_PAGES` pages wait (inside the transaction of the page that filled the
 * batch) or `MAX_DELAY_MS` after the first of them (in a transaction of its own). Indexed a
 * page at a time, FTS5 wrote a segment of its own per page: a third of the bytes each page's
 * commit wrote to the WAL, and as much CPU as the page's other rows.
 *
 * The index is what the pages table holds (pages_fts's content is the pages table), so what
 * a crash leaves unindexed is found again: pages are indexed in fetch order, so the indexed
 * pages are every indexable page up to the highest indexed seq, and indexMissedPages() adds
 * the ones after it. Only a run that writes the collection (it holds the writer's lock or the
 * shard's fence) may do that: another process might index what the run still holds.
 */

/** Pages whose text is indexed together (a benchmark replays the index in batches this size). */
export const TEXT_INDEX_BATCH_PAGES = 32;
const MAX_DELAY_MS = 1000;

interface WaitingText {
  seq: number;
  title: string;
  text: string;
}

export class TextIndexQueue {
  readonly #db: Db;
  readonly #insert;
  readonly #onError: (err: unknown) => void;
  #waiting: WaitingText[] = [];
  #timer: NodeJS.Timeout | undefined;

  /** `onError` hears a store error of a batch written on its own (its pages stay waiting). */
  constructor(db: Db, onError: (err: unknown) => void) {
    this.#db = db;
    this.#onError = onError;
    this.#insert = db.prepare('INSERT INTO pages_fts (rowid, title, text) VALUES (?, ?, ?)');
  }

  /** A page's text, to index with the next batch; called inside the page's own transaction. */
  add(seq: number, title: string, text: string): void {
    this.#waiting.push({ seq, title, text });
    if (this.#waiting.length >= TEXT_INDEX_BATCH_PAGES) this.flush();
    else this.#timer ??= setTimeout(() => this.#flushAlone(), MAX_DELAY_MS);
  }

  /** Indexes every waiting page now: before the index is read or changed otherwise (a revisit's new version), and at a run's end. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const waiting = this.#waiting;
    if (waiting.length === 0) return;
    writeTransaction(this.#db, () => {
      for (const page of waiting) this.#insert.run(page.seq, page.title, page.text);
    });
    // Only once written: a failed batch stays to be written with the next (or found by indexMissedPages).
    this.#waiting = [];
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  #flushAlone(): void {
    try {
      this.flush();
    } catch (err) {
      this.#onError(err);
    }
  }
}

/**
 * Indexes the pages that a run left unindexed when it was killed: indexable pages fetched
 * after the highest indexed seq. Returns how many. Only for the collection's writer.
 */
export function indexMissedPages(db: Db): number {
  return writeTransaction(db, () => {
    const info = db
      .prepare(
        `INSERT INTO pages_fts (rowid, title, text)
         SELECT seq, coalesce(title, ''), coalesce(text, '') FROM pages
         WHERE seq > coalesce((SELECT max(id) FROM pages_fts_docsize), 0)
           AND noindex = 0 AND (coalesce(title, '') <> '' OR coalesce(text, '') <> '')
         ORDER BY seq`,
      )
      .run();
    return info.changes;
  });
}
