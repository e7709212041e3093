/*
 * An exact duplicate (the same body as an earlier page) keeps no body or payload of its own:
 * its row points at the page that holds them (duplicate_of, since schema 5). Every read of a
 * body goes through these expressions, so it gets the bytes either way. Read-only tools open
 * older collections as they are, so the expressions fit the file's schema.
 */
import type { ReadonlyDb } from './database.ts';

/** The schema that added duplicate_of, duplicate_kind and soft404 to pages. */
const DUPLICATES_SCHEMA = 5;

/** Whether the collection's pages carry duplicate and soft-404 columns. */
export function hasDuplicateColumns(db: ReadonlyDb): boolean {
  return (db.prepare('PRAGMA user_version').pluck().get() as number) >= DUPLICATES_SCHEMA;
}

/** SQL for the gzipped body of the pages row `row` (a table alias, or `pages`). */
export function storedBodySql(db: ReadonlyDb, row: string): string {
  if (!hasDuplicateColumns(db)) return `${row}.body`;
  return `coalesce(${row}.body, (SELECT o.body FROM pages o WHERE o.seq = ${row}.duplicate_of AND ${row}.duplicate_kind = 'exact'))`;
}

/** SQL for the payload as received (NULL when the body is the payload) of the pages row `row`. */
export function storedPayloadSql(db: ReadonlyDb, row: string): string {
  if (!hasDuplicateColumns(db)) return `${row}.payload`;
  return `CASE WHEN ${row}.duplicate_kind = 'exact' THEN (SELECT o.payload FROM pages o WHERE o.seq = ${row}.duplicate_of) ELSE ${row}.payload END`;
}
