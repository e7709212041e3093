import type { Db, ReadonlyDb } from './database.ts';

/*
 * The verdict columns of pages (relevance, hot, judged_hot): what the judge reads back when
 * a run starts, the revisions it writes as its bar moves, and the verdicts an import sets.
 */

/**
 * Stored pages' terms (space-separated), for the judge's idf: the next `limit` after page
 * `afterSeq`, in fetch order, a chunk at a time, so no statement stays open between chunks.
 */
export function storedPageTermsAfter(db: ReadonlyDb, afterSeq: number, limit: number): { seq: number; terms: string }[] {
  return db.prepare('SELECT seq, terms FROM pages WHERE seq > ? AND terms IS NOT NULL ORDER BY seq LIMIT ?').all(afterSeq, limit) as { seq: number; terms: string }[];
}

/**
 * Stored texts that may define an acronym: "(WAL)" or "WAL (" in them (LIKE is case-blind for
 * ASCII); at most `limit`, in fetch order, among the pages after `afterSeq` up to `toSeq`
 * (a range at a time: the search reads every text it passes).
 */
export function textsMayDefine(db: ReadonlyDb, letters: string, limit: number, afterSeq: number, toSeq: number): string[] {
  return db
    .prepare(`SELECT text FROM pages WHERE seq > ? AND seq <= ? AND text IS NOT NULL AND (text LIKE '%(' || ? || ')%' OR text LIKE '%(' || ? || 's)%' OR text LIKE '%' || ? || ' (%') ORDER BY seq LIMIT ?`)
    .pluck()
    .all(afterSeq, toSeq, letters, letters, letters, limit) as string[];
}

/** The last stored page's fetch sequence number; 0 when none. */
export function lastPageSeq(db: ReadonlyDb): number {
  return (db.prepare('SELECT max(seq) FROM pages').pluck().get() as number | null) ?? 0;
}

/** The `n` best stored relevances, best first (through the relevance index). */
export function bestRelevances(db: ReadonlyDb, n: number): number[] {
  return db.prepare(`SELECT relevance FROM pages WHERE relevance IS NOT NULL ORDER BY relevance DESC LIMIT ${n}`).pluck().all() as number[];
}

export class VerdictStore {
  readonly #countHot;
  readonly #revise;
  readonly #setVerdict;

  constructor(db: Db) {
    this.#countHot = db.prepare('SELECT count(*) FROM pages WHERE relevance >= ? AND relevance < ? AND hot = 1').pluck();
    this.#revise = db.prepare(
      `UPDATE pages SET judged_hot = (relevance >= :bar),
         hot = CASE WHEN EXISTS (SELECT 1 FROM labels l WHERE l.url_id = pages.url_id) THEN hot ELSE (relevance >= :bar) END
       WHERE relevance >= :low AND relevance < :high`,
    );
    this.#setVerdict = db.prepare('UPDATE pages SET relevance = ?, hot = ? WHERE seq = ?');
  }

  /** Hot pages whose relevance lies in [low, high). */
  countHotBetween(low: number, high: number): number {
    return this.#countHot.get(low, high) as number;
  }

  /**
   * Judges again the pages whose relevance lies in [low, high) against `bar`: judged_hot
   * follows the bar, and so does hot unless the page is labelled (a label keeps its verdict).
   */
  reviseBetween(bar: number, low: number, high: number): void {
    this.#revise.run({ bar, low, high });
  }

  /** Sets a stored page's relevance and verdict (an import restores the crawl's own). */
  setVerdict(seq: number, relevance: number | null, hot: boolean): void {
    this.#setVerdict.run(relevance, hot ? 1 : 0, seq);
  }
}
