/*
 * An exact duplicate (the same body as an earlier page) keeps no body or payload of its own:
 * its row points at the page that holds them (duplicate_of, since schema 5). Since schema 8 a
 * page that changed moves its earlier body into page_versions, so the bytes a duplicate points
 * at are the original's current body when its hash still matches, else that version's. Every
 * read of a body goes through these expressions, so it gets the bytes either way. Read-only
 * tools open older collections as they are, so the expressions fit the file's schema.
 */
import type { ReadonlyDb } from './database.ts';

/** The schema that added duplicate_of, duplicate_kind and soft404 to pages. */
const DUPLICATES_SCHEMA = 5;
/** The schema that added page versions and revisits. */
export const VERSIONS_SCHEMA = 8;

function schemaOf(db: ReadonlyDb): number {
  return db.prepare('PRAGMA user_version').pluck().get() as number;
}

/** Whether the collection's pages carry duplicate and soft-404 columns. */
export function hasDuplicateColumns(db: ReadonlyDb): boolean {
  return schemaOf(db) >= DUPLICATES_SCHEMA;
}

/** Whether the collection keeps page versions and revisits (schema 8 and later). */
export function hasVersions(db: ReadonlyDb): boolean {
  return schemaOf(db) >= VERSIONS_SCHEMA;
}

/** SQL for the stored `column` (body or payload) of the original that the row `row` duplicates exactly. */
function originalSql(db: ReadonlyDb, row: string, column: 'body' | 'payload'): string {
  const current = `(SELECT o.${column} FROM pages o WHERE o.seq = ${row}.duplicate_of AND o.body_hash = ${row}.body_hash)`;
  if (!hasVersions(db)) return `(SELECT o.${column} FROM pages o WHERE o.seq = ${row}.duplicate_of)`;
  const earlier = `(SELECT v.${column} FROM page_versions v WHERE v.page_seq = ${row}.duplicate_of AND v.body_hash = ${row}.body_hash AND v.body IS NOT NULL LIMIT 1)`;
  return `coalesce(${current}, ${earlier})`;
}

/** SQL for the gzipped body of the pages row `row` (a table alias, or `pages`). */
export function storedBodySql(db: ReadonlyDb, row: string): string {
  if (!hasDuplicateColumns(db)) return `${row}.body`;
  return `coalesce(${row}.body, CASE WHEN ${row}.duplicate_kind = 'exact' THEN ${originalSql(db, row, 'body')} END)`;
}

/** SQL for the payload as received (NULL when the body is the payload) of the pages row `row`. */
export function storedPayloadSql(db: ReadonlyDb, row: string): string {
  if (!hasDuplicateColumns(db)) return `${row}.payload`;
  return `CASE WHEN ${row}.duplicate_kind = 'exact' THEN ${originalSql(db, row, 'payload')} ELSE ${row}.payload END`;
}

/** SQL for the gzipped body of the page_versions row `row`: its own, or that of the page it duplicated. */
export function versionBodySql(db: ReadonlyDb, row: string): string {
  return `coalesce(${row}.body, CASE WHEN ${row}.duplicate_of IS NOT NULL THEN ${originalSql(db, row, 'body')} END)`;
}

/** SQL for the payload as received of the page_versions row `row`. */
export function versionPayloadSql(db: ReadonlyDb, row: string): string {
  return `CASE WHEN ${row}.body IS NULL AND ${row}.duplicate_of IS NOT NULL THEN ${originalSql(db, row, 'payload')} ELSE ${row}.payload END`;
}
