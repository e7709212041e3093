import type { ReadonlyDb } from '../store/database.ts';

export interface SearchHit {
  rank: number;
  seq: number;
  url: string;
  title: string | null;
  snippet: string;
  score: number;
}

export interface SearchOptions {
  limit?: number;
  /** Marks placed around matched terms in the snippet. */
  highlight?: [string, string];
}

/**
 * Turns what a user typed into an FTS5 query: each word becomes a quoted term (so
 * punctuation and FTS operators in the text cannot cause a syntax error) and all must match.
 */
export function toFtsQuery(text: string): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.map((w) => `"${w}"`).join(' ');
}

/** Full-text search over titles and text, best first (BM25, title weighted above body). */
export function searchPages(db: ReadonlyDb, text: string, options: SearchOptions = {}): SearchHit[] {
  const match = toFtsQuery(text);
  if (match === '') return [];
  const [open, close] = options.highlight ?? ['[', ']'];
  const rows = db
    .prepare(
      `SELECT f.rowid AS seq, u.url, p.title, snippet(pages_fts, 1, ?, ?, '…', 16) AS snippet, bm25(pages_fts, 5.0, 1.0) AS score
       FROM pages_fts f JOIN pages p ON p.seq = f.rowid JOIN urls u ON u.id = p.url_id
       WHERE pages_fts MATCH ? ORDER BY score LIMIT ?`,
    )
    .all(open, close, match, options.limit ?? 20) as Omit<SearchHit, 'rank'>[];
  return rows.map((r, i) => ({ rank: i + 1, ...r, score: -r.score }));
}
