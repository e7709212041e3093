import type { ReadonlyDb } from '../store/database.ts';
import { hasVersions } from '../store/stored-body.ts';

/*
 * What SQLite's bm25() over pages_fts is figured from, read from the index itself, so that
 * scores of several collections' indexes can be figured again on their statistics together
 * (a cluster's shards searched as one collection, service/shard-search.ts). The index's
 * totals are its averages record (row 1 of pages_fts_data: the row count, then each column's
 * token count) and a row's size is its pages_fts_docsize record (each column's token count),
 * both SQLite varints.
 */

/** One SQLite varint at `at`: its value and where the next begins. */
function varint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = bytes[at + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  // The ninth byte carries eight bits.
  return { value: value * 256 + (bytes[at + 8] ?? 0), next: at + 9 };
}

/** The sum of the varints of a record (every column's count). */
function sumOf(bytes: Uint8Array, from: number): number {
  let total = 0;
  for (let at = from; at < bytes.length; ) {
    const { value, next } = varint(bytes, at);
    total += value;
    at = next;
  }
  return total;
}

export interface FtsTotals {
  /** Rows indexed. */
  rows: number;
  /** Tokens indexed, every column's together. */
  tokens: number;
}

/** A row of the index with its bm25 score (lower is better, as SQLite gives it) and what ranks its ties. */
export interface ScoredRow {
  seq: number;
  score: number;
  version: number;
  fetchedAt: number;
}

export class FtsStatistics {
  readonly #best;
  readonly #averages;
  readonly #docsize;
  readonly #hits;
  readonly #phraseRows;

  constructor(db: ReadonlyDb) {
    this.#best = db.prepare(
      `SELECT f.rowid AS seq, bm25(pages_fts, 5.0, 1.0) AS score, ${hasVersions(db) ? 'p.version' : '1'} AS version, p.fetched_at AS fetchedAt
         FROM pages_fts f JOIN pages p ON p.seq = f.rowid WHERE pages_fts MATCH ? ORDER BY score, version DESC LIMIT ?`,
    );
    this.#averages = db.prepare('SELECT block FROM pages_fts_data WHERE id = 1').pluck();
    this.#docsize = db.prepare('SELECT sz FROM pages_fts_docsize WHERE id = ?').pluck();
    this.#hits = db.prepare('SELECT count(*) FROM pages_fts WHERE pages_fts MATCH ?').pluck();
    this.#phraseRows = db.prepare('SELECT rowid, bm25(pages_fts, 5.0, 1.0) FROM pages_fts WHERE pages_fts MATCH ?').raw();
  }

  /** The best `limit` rows for an FTS5 query, as search.ts ranks them, without their snippets. */
  best(match: string, limit: number): ScoredRow[] {
    return this.#best.all(match, limit) as ScoredRow[];
  }

  /** The index's row and token counts. */
  totals(): FtsTotals {
    const block = this.#averages.get() as Uint8Array | undefined;
    if (block === undefined || block.length === 0) return { rows: 0, tokens: 0 };
    const rows = varint(block, 0);
    return { rows: rows.value, tokens: sumOf(block, rows.next) };
  }

  /** Rows that hold a phrase (an FTS5 query of one phrase). */
  rowsWith(phrase: string): number {
    return this.#hits.get(phrase) as number;
  }

  /** Tokens of one row, every column's together; 0 for a row without text. */
  rowTokens(seq: number): number {
    const sz = this.#docsize.get(seq) as Uint8Array | undefined;
    return sz === undefined ? 0 : sumOf(sz, 0);
  }

  /**
   * One pass over the rows that hold a phrase: how many there are, and the bm25() of the
   * phrase alone (as search.ts asks it: title weighted 5, text 1) of those in `wanted`.
   */
  phraseScores(phrase: string, wanted: ReadonlySet<number>): { rows: number; scores: Map<number, number> } {
    let rows = 0;
    const scores = new Map<number, number>();
    for (const [seq, score] of this.#phraseRows.iterate(phrase) as IterableIterator<[number, number]>) {
      rows++;
      if (wanted.has(seq)) scores.set(seq, score);
    }
    return { rows, scores };
  }
}
