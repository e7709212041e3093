import type { DocumentType } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { hasVersions } from '../store/stored-body.ts';
import { hasDocuments } from './document-columns.ts';
import { snippetPage } from './snippet-page.ts';

export interface SearchHit {
  rank: number;
  seq: number;
  url: string;
  title: string | null;
  /** The matched words in context; empty for a page found by its title alone, which has no text. */
  snippet: string;
  score: number;
  /** The version of the page the words were found in, and whether it is the latest. */
  version: number;
  latest: boolean;
  /** When that version was fetched (epoch ms). */
  fetchedAt: number;
  /** The page's document type; null for a web page. */
  documentType: DocumentType | null;
  /** The page of a PDF (from 1) the snippet is on; null for other hits and for earlier versions (their pages are not kept). */
  documentPage: number | null;
}

export interface SearchOptions {
  limit?: number;
  /** Marks placed around matched terms in the snippet. */
  highlight?: [string, string];
  /** Search the pages' earlier versions too (versions_fts, since schema 8); by default only the latest. */
  allVersions?: boolean;
  /** Only these pages (their latest versions): the hits chosen elsewhere, given their snippets here. */
  seqs?: readonly number[];
}

/** Snippet marks of our own: noncharacters, which text taken from pages and documents does not hold. */
const OPEN = '\uFDD0';
const CLOSE = '\uFDD1';
const ELLIPSIS = '…';
const MARKS = { open: OPEN, close: CLOSE, ellipsis: ELLIPSIS };

interface RawHit extends Omit<SearchHit, 'rank' | 'latest' | 'documentPage'> {
  latest: number;
  pageStarts: string | null;
}

/**
 * Turns what a user typed into an FTS5 query: each word becomes a quoted term (so
 * punctuation and FTS operators in the text cannot cause a syntax error) and all must match.
 */
export function toFtsQuery(text: string): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.map((w) => `"${w}"`).join(' ');
}

/**
 * Full-text search over titles and text, best first (BM25, title weighted above body). With
 * allVersions, each earlier version that matches is a hit of its own beside the latest's, ranked
 * by its score in the earlier versions' index (BM25 against that index's statistics).
 */
export function searchPages(db: ReadonlyDb, text: string, options: SearchOptions = {}): SearchHit[] {
  const match = toFtsQuery(text);
  if (match === '') return [];
  const versioned = hasVersions(db);
  const documents = hasDocuments(db);
  const documentColumns = documents ? 'doc.type AS documentType, doc.page_starts AS pageStarts' : 'NULL AS documentType, NULL AS pageStarts';
  const documentJoin = documents ? 'LEFT JOIN documents doc ON doc.page_seq = p.seq' : '';
  // snippet() reads the text from the pages (or versions) table: NULL for a page without text.
  // Its marks are our own, so the snippet can be found in the text before the caller's marks replace them.
  const latest = `SELECT f.rowid AS seq, u.url, p.title, coalesce(snippet(pages_fts, 1, ?, ?, '${ELLIPSIS}', 16), '') AS snippet, bm25(pages_fts, 5.0, 1.0) AS score,
                         ${versioned ? 'p.version' : '1'} AS version, 1 AS latest, p.fetched_at AS fetchedAt, ${documentColumns}
                    FROM pages_fts f JOIN pages p ON p.seq = f.rowid JOIN urls u ON u.id = p.url_id ${documentJoin}
                   WHERE pages_fts MATCH ?${options.seqs === undefined ? '' : ' AND f.rowid IN (SELECT value FROM json_each(?))'}`;
  // An earlier version is the page's type too, but its own page starts were not kept.
  const earlier = `SELECT v.page_seq AS seq, u.url, v.title, coalesce(snippet(versions_fts, 1, ?, ?, '${ELLIPSIS}', 16), '') AS snippet, bm25(versions_fts, 5.0, 1.0) AS score,
                          v.version, 0 AS latest, v.fetched_at AS fetchedAt, ${documents ? 'doc.type' : 'NULL'} AS documentType, NULL AS pageStarts
                     FROM versions_fts f JOIN page_versions v ON v.id = f.rowid JOIN pages p ON p.seq = v.page_seq JOIN urls u ON u.id = p.url_id ${documentJoin}
                    WHERE versions_fts MATCH ?`;
  const both = options.allVersions === true && versioned && options.seqs === undefined;
  const only = options.seqs === undefined ? [] : [JSON.stringify(options.seqs)];
  const rows = db
    .prepare(`${both ? `${latest} UNION ALL ${earlier}` : latest} ORDER BY score, version DESC LIMIT ?`)
    .all(...(both ? [OPEN, CLOSE, match, OPEN, CLOSE, match] : [OPEN, CLOSE, match, ...only]), options.limit ?? 20) as RawHit[];
  const textOf = db.prepare('SELECT text FROM pages WHERE seq = ?').pluck();
  const [open, close] = options.highlight ?? ['[', ']'];
  return rows.map(({ pageStarts, ...r }, i) => ({
    ...r,
    rank: i + 1,
    snippet: r.snippet.replaceAll(OPEN, open).replaceAll(CLOSE, close),
    score: -r.score,
    latest: r.latest === 1,
    documentPage: r.documentType === 'pdf' && pageStarts !== null ? snippetPage((textOf.get(r.seq) as string | null) ?? '', r.snippet, pageStarts, MARKS) : null,
  }));
}
