import Database from 'better-sqlite3';
import { ForagerError } from '../errors.ts';
import type { Db, ReadonlyDb } from '../store/database.ts';
import { APPLICATION_ID, SCHEMA_VERSION } from '../store/migrations.ts';
import { MergeError } from './merge-error.ts';
import type { ShardFile } from './shard-files.ts';

/** What an SQLite failure while reading a shard means to a person. */
function inWords(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))) return `the file is damaged (${message})`;
  if (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) return `the disk could not be read (${message})`;
  if (typeof code === 'string' && code.startsWith('SQLITE_CANTOPEN')) return `the file cannot be opened (${message})`;
  return message;
}

/** A prepared read on a shard whose every failure names the shard. */
export interface ShardQuery<Row> {
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  iterate(...params: unknown[]): Generator<Row>;
}

/**
 * One shard, opened read-only with better-sqlite3 and read inside one read transaction from
 * open to close: the shard may belong to a crawl that is still writing it (WAL mode), and
 * the merge reads it in several passes that must all see the same snapshot. Every SQLite
 * error is turned into a MergeError naming the shard, so a damaged file among 256 is found.
 * Tables whose names start with `cluster_` (the workers' own bookkeeping) are never read.
 */
export class ShardReader {
  readonly file: ShardFile;
  readonly #db: Db;
  readonly #statements = new Map<string, Database.Statement>();

  private constructor(file: ShardFile, db: Db) {
    this.file = file;
    this.#db = db;
  }

  static open(file: ShardFile): ShardReader {
    let db: Db;
    try {
      db = new Database(file.path, { readonly: true, fileMustExist: true });
    } catch (err) {
      throw damaged(file, err);
    }
    try {
      db.pragma('busy_timeout = 5000');
      const appId = db.pragma('application_id', { simple: true }) as number;
      if (appId !== APPLICATION_ID) {
        const tables = db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number;
        throw new MergeError('damaged-shard', `shard ${file.name} (${file.path}) is ${tables === 0 ? 'empty' : 'not a Forager collection'}`, { shard: file.path });
      }
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version !== SCHEMA_VERSION) {
        const who = version > SCHEMA_VERSION ? 'a newer' : 'an older';
        throw new MergeError('damaged-shard', `shard ${file.name} (${file.path}) was written by ${who} Forager (schema ${version}; this one merges schema ${SCHEMA_VERSION})`, {
          shard: file.path,
          version,
        });
      }
      // The snapshot starts with the first read after BEGIN and lasts until close().
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM pages').get();
      return new ShardReader(file, db);
    } catch (err) {
      db.close();
      throw err instanceof MergeError ? err : damaged(file, err);
    }
  }

  /** A statement over this shard, prepared once. `raw` rows are arrays rather than objects (for the passes over every URL). */
  query<Row>(sql: string, raw = false): ShardQuery<Row> {
    const key = `${raw ? 'raw' : 'obj'}:${sql}`;
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      statement = this.#guard(() => this.#db.prepare(sql).raw(raw));
      this.#statements.set(key, statement);
    }
    const prepared = statement;
    const guard = <T>(read: () => T): T => this.#guard(read);
    return {
      get: (...params) => guard(() => prepared.get(...params) as Row | undefined),
      all: (...params) => guard(() => prepared.all(...params) as Row[]),
      *iterate(...params) {
        const rows = guard(() => prepared.iterate(...params) as IterableIterator<Row>);
        try {
          for (;;) {
            const next = guard(() => rows.next());
            if (next.done === true) return;
            yield next.value;
          }
        } finally {
          rows.return?.();
        }
      },
    };
  }

  /** Reads through a store read model (the settings); its failures name the shard too. */
  read<T>(reader: (db: ReadonlyDb) => T): T {
    return this.#guard(() => reader(this.#db));
  }

  /** A MergeError naming this shard, for facts that do not add up (a row pointing at nothing). */
  inconsistent(what: string): MergeError {
    return new MergeError('damaged-shard', `shard ${this.file.name} (${this.file.path}) is damaged: ${what}`, { shard: this.file.path });
  }

  close(): void {
    try {
      if (this.#db.inTransaction) this.#db.exec('COMMIT');
    } catch {
      // A read transaction that cannot end is ended by closing the connection.
    }
    this.#db.close();
  }

  #guard<T>(read: () => T): T {
    try {
      return read();
    } catch (err) {
      if (err instanceof MergeError) throw err;
      throw damaged(this.file, err);
    }
  }
}

function damaged(file: ShardFile, err: unknown): MergeError {
  const why = err instanceof ForagerError ? err.message : inWords(err);
  return new MergeError('damaged-shard', `cannot read shard ${file.name} (${file.path}): ${why}`, { shard: file.path }, { cause: err });
}
