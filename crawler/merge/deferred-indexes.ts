import type { Db } from '../store/database.ts';

/**
 * The explicit indexes of the tables a merge fills, dropped while the rows are loaded and
 * made again at the end from their own stored SQL, so the schema comes out exactly as the
 * migrations made it. Kept up row by row, an index keyed by something random (urls_seen by
 * fingerprint, links_by_dst) costs a cache miss per row once it outgrows the page cache: a
 * merge of a million URLs spent most of its time there. Built at the end, SQLite sorts the
 * keys once. A UNIQUE index made again also checks what the merge wrote.
 */
export class DeferredIndexes {
  readonly #db: Db;
  readonly #sql: string[];

  constructor(db: Db, tables: readonly string[]) {
    this.#db = db;
    const indexes = db
      .prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${tables.map(() => '?').join(', ')}) ORDER BY rowid`)
      .all(...tables) as { name: string; sql: string }[];
    this.#sql = indexes.map((index) => index.sql);
    for (const index of indexes) db.exec(`DROP INDEX "${index.name.replaceAll('"', '""')}"`);
  }

  rebuild(): void {
    for (const sql of this.#sql) this.#db.exec(sql);
  }
}
