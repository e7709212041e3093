import { hasDuplicateColumns, hasVersions } from '../store/stored-body.ts';
import type { DocumentType } from '../parse/documents/document-facts.ts';
import type { ExportFilter } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { documentColumnsSql, documentJoinSql } from './document-columns.ts';
import { toFtsQuery } from './search.ts';

/*
 * The pages an export takes: the successful responses its filter selects (the contract's
 * ExportFilter), counted, and read in fetch order in keyset batches.
 */

export type { ExportFilter };

export interface ExportPage {
  seq: number;
  urlId: number;
  url: string;
  title: string | null;
  text: string | null;
  relevance: number | null;
  hot: boolean;
  label: 'relevant' | 'irrelevant' | null;
  depth: number;
  status: number;
  contentType: string | null;
  /** When the latest version was fetched. */
  fetchedAt: number;
  /** Versions stored (1 until a revisit finds the page changed); the latest is this row. */
  version: number;
  /** When a revisit found the page gone (404, 410, a soft 404); null while it is there. */
  goneAt: number | null;
  /** What kind of document was read from it (its `documents` row); null for a web page, or a document not read. */
  documentType: DocumentType | null;
  /** The document's pages; null unless a document was read. */
  pageCount: number | null;
}

interface SelectionSql {
  where: string;
  params: unknown[];
}

/** Exports take the successful responses (2xx): errors and redirects are crawl records, not pages. */
function selectionSql(db: ReadonlyDb, filter: ExportFilter): SelectionSql {
  const where = ['p.status BETWEEN 200 AND 299'];
  const params: unknown[] = [];
  if (filter.hotOnly === true) where.push('p.hot = 1');
  if (filter.minRelevance !== undefined) {
    where.push('p.relevance >= ?');
    params.push(filter.minRelevance);
  }
  if (filter.labelledRelevant === true) where.push('l.relevant = 1');
  // A collection older than duplicate detection (read as it is) knows of none to leave out.
  if (filter.skipDuplicates === true && hasDuplicateColumns(db)) where.push('p.duplicate_of IS NULL AND p.soft404 = 0');
  const text = filter.text === undefined ? '' : toFtsQuery(filter.text);
  if (text !== '') {
    where.push('p.seq IN (SELECT rowid FROM pages_fts WHERE pages_fts MATCH ?)');
    params.push(text);
  }
  const host = filter.host?.trim().toLowerCase() ?? '';
  if (host !== '') {
    where.push(`(h.origin LIKE '%://' || ? OR h.origin LIKE '%://' || ? || ':%')`);
    params.push(host, host);
  }
  return { where: where.join(' AND '), params };
}

const FROM = 'FROM pages p JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id LEFT JOIN labels l ON l.url_id = p.url_id';

export function countSelected(db: ReadonlyDb, filter: ExportFilter): number {
  const sql = selectionSql(db, filter);
  return db.prepare(`SELECT count(*) ${FROM} WHERE ${sql.where}`).pluck().get(...sql.params) as number;
}

const BATCH = 256;

/**
 * The selected pages in fetch order, read in batches of BATCH (keyset on seq) so that a
 * large collection is never held in memory and the caller may run its own queries (a
 * page's links) between rows, which an open SQLite iterator would forbid.
 */
export function* selectedPages(db: ReadonlyDb, filter: ExportFilter): Generator<ExportPage> {
  const sql = selectionSql(db, filter);
  // A collection older than revisits (read as it is) holds one version of each page.
  const history = hasVersions(db) ? 'p.version, p.gone_at AS goneAt' : '1 AS version, NULL AS goneAt';
  const batch = db.prepare(
    `SELECT p.seq, p.url_id AS urlId, u.url, p.title, p.text, p.relevance, p.hot, l.relevant AS label, u.depth, p.status,
            p.content_type AS contentType, p.fetched_at AS fetchedAt, ${history}, ${documentColumnsSql(db)}
     ${FROM} ${documentJoinSql(db, 'p')} WHERE ${sql.where} AND p.seq > ? ORDER BY p.seq LIMIT ${BATCH}`,
  );
  let after = 0;
  for (;;) {
    const rows = batch.all(...sql.params, after) as (Omit<ExportPage, 'hot' | 'label'> & { hot: number; label: number | null })[];
    for (const row of rows) {
      yield { ...row, hot: row.hot === 1, label: row.label === null ? null : row.label === 1 ? 'relevant' : 'irrelevant' };
    }
    if (rows.length < BATCH) return;
    after = (rows[rows.length - 1] as { seq: number }).seq;
  }
}
