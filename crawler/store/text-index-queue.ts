import type { Db } from './database.ts';

/*
 * The full-text index of a crawl's new pages, written in batches. Pages are indexed when
 * `TEXT_INDEX_BATCH_PAGES` wait (inside the transaction of the page that filled the batch) or
 * `MAX_DELAY_MS` after the first of them (in a transaction of its own). Indexed a page at a
 * time, FTS5 wrote a segment of its own per page: a third of the bytes each page's commit
 * wrote to the WAL, and as much CPU as the page's other rows.
 *
 * The index is what the pages table holds (pages_fts's content is the pages table), and pages
 * are indexed in fetch order, so the indexed pages are every indexable page up to the highest
 * indexed seq: a batch is the pages after it, read from the table (indexMissedPages). So a
 * page whose transaction was rolled back is never indexed, and what a killed run left
 * waiting is found again by the next run. Only a run that writes the collection (it holds
 * the writer's lock or the shard's fence) may index so: another process might index what
 * the run still holds.
 */

/** Pages whose text is indexed together (a benchmark replays the index in batches this size). */
export const TEXT_INDEX_BATCH_PAGES = 32;
const MAX_DELAY_MS = 1000;
const INDEX_MISSED_PAGES_SQL = `INSERT INTO pages_fts (rowid, title, text)
  SELECT seq, coalesce(title, ''), coalesce(text, '') FROM pages
  WHERE seq > coalesce((SELECT max(id) FROM pages_fts_docsize), 0)
    AND noindex = 0 AND (coalesce(title, '') <> '' OR coalesce(text, '') <> '')
  ORDER BY seq`;

export class TextIndexQueue {
  readonly #indexMissed;
  readonly #onError: (err: unknown) => void;
  #waiting = 0;
  #timer: NodeJS.Timeout | undefined;

  /** `onError` hears a store error of a batch written on its own (its pages stay waiting). */
  constructor(db: Db, onError: (err: unknown) => void) {
    this.#indexMissed = db.prepare(INDEX_MISSED_PAGES_SQL);
    this.#onError = onError;
  }

  /** An indexable page was stored, to index with the next batch; called inside the page's own transaction. */
  added(): void {
    this.#waiting++;
    if (this.#waiting >= TEXT_INDEX_BATCH_PAGES) this.flush();
    else this.#timer ??= setTimeout(() => this.#flushAlone(), MAX_DELAY_MS);
  }

  /** Indexes every waiting page now: before the index is read or changed otherwise (a revisit's new version), and at a run's end. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting === 0) return;
    this.#indexMissed.run();
    // Only once written: a failed batch stays to be written with the next.
    this.#waiting = 0;
  }

  get waiting(): number {
    return this.#waiting;
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
 * Indexes the indexable pages stored after the highest indexed seq: a batch, or what a killed
 * run left unindexed. Returns how many. Only for the collection's writer.
 */
export function indexMissedPages(db: Db): number {
  return db.prepare(INDEX_MISSED_PAGES_SQL).run().changes;
}
