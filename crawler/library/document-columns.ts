import type { DocumentType, PageType, PageTypeFilter } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';

/*
 * A page's type as page lists show and filter it: a `documents` row (since schema 9) makes
 * the page a document of that row's type, and every other page is a web page ('html').
 * Collections older than schema 9 (read as they are) hold web pages only.
 */

/** The schema that added the documents table. */
const DOCUMENTS_SCHEMA = 9;

export function hasDocuments(db: ReadonlyDb): boolean {
  return (db.prepare('PRAGMA user_version').pluck().get() as number) >= DOCUMENTS_SCHEMA;
}

/** The join that gives the pages row `alias` its documents row as `doc` (none before schema 9). */
export function documentJoinSql(db: ReadonlyDb, alias: string): string {
  return hasDocuments(db) ? `LEFT JOIN documents doc ON doc.page_seq = ${alias}.seq` : '';
}

/** The columns documentType and pageCount, from documentJoinSql's row (NULL for a web page). */
export function documentColumnsSql(db: ReadonlyDb): string {
  return hasDocuments(db) ? 'doc.type AS documentType, doc.page_count AS pageCount' : 'NULL AS documentType, NULL AS pageCount';
}

/** The condition that keeps the pages of `type`, on documentJoinSql's row; undefined for no filter. */
export function documentFilterSql(db: ReadonlyDb, type: PageTypeFilter | undefined): { where: string; params: string[] } | undefined {
  if (type === undefined) return undefined;
  if (!hasDocuments(db)) return { where: type === 'html' ? '1' : '0', params: [] };
  switch (type) {
    case 'html':
      return { where: 'doc.page_seq IS NULL', params: [] };
    case 'document':
      return { where: 'doc.page_seq IS NOT NULL', params: [] };
    default:
      return { where: 'doc.type = ?', params: [type] };
  }
}

/** A page's type from its documents row's type (null: no row). */
export function pageTypeOf(documentType: string | null): PageType {
  return documentType === null ? 'html' : (documentType as DocumentType);
}
