import type { PageType, PageTypeFilter } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { documentColumnsSql, documentFilterSql, documentJoinSql, pageTypeOf } from './document-columns.ts';
import { isoOrNull, versionColumnsSql, versionFilterSql, type VersionFilter } from './version-columns.ts';

export interface PageSummary {
  seq: number;
  url: string;
  status: number;
  depth: number;
  title: string | null;
  contentType: string | null;
  type: PageType;
  /** The pages a document has; null for a web page. */
  pageCount: number | null;
  /** When the latest version was fetched. */
  fetchedAt: string;
  note: string | null;
  /** Versions stored: 1 until a revisit finds the page changed. */
  version: number;
  firstFetchedAt: string;
  /** When a revisit last found it changed, or null while it has one version. */
  lastChangedAt: string | null;
  /** Since when a revisit finds it gone, or null. */
  goneAt: string | null;
}

interface RawSummary extends Omit<PageSummary, 'type' | 'fetchedAt' | 'firstFetchedAt' | 'lastChangedAt' | 'goneAt'> {
  documentType: string | null;
  fetchedAt: number;
  firstFetchedAt: number;
  lastChangedAt: number | null;
  goneAt: number | null;
}

/** Which pages listPages keeps: by their versions, and by their type. */
export interface PageListFilter extends VersionFilter {
  type?: PageTypeFilter;
}

/** Fetched pages in fetch order, those `filter` keeps, streamed so that a large collection is never held in memory. */
export function* listPages(db: ReadonlyDb, filter: PageListFilter = {}): Generator<PageSummary> {
  const { where, params } = versionFilterSql(db, 'p', filter);
  const type = documentFilterSql(db, filter.type);
  if (type !== undefined) {
    where.push(type.where);
    params.push(...type.params);
  }
  const rows = db
    .prepare(
      `SELECT p.seq, u.url, p.status, u.depth, p.title, p.content_type AS contentType, p.fetched_at AS fetchedAt, p.note, ${versionColumnsSql(db, 'p')},
              ${documentColumnsSql(db)}
       FROM pages p JOIN urls u ON u.id = p.url_id ${documentJoinSql(db, 'p')} ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY p.seq`,
    )
    .iterate(...params) as IterableIterator<RawSummary>;
  for (const { documentType, ...row } of rows) {
    yield {
      ...row,
      type: pageTypeOf(documentType),
      fetchedAt: new Date(row.fetchedAt).toISOString(),
      firstFetchedAt: new Date(row.firstFetchedAt).toISOString(),
      lastChangedAt: isoOrNull(row.lastChangedAt),
      goneAt: isoOrNull(row.goneAt),
    };
  }
}
