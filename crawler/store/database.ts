import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { CollectionError } from '../errors.ts';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from './migrations.ts';

/**
 * A writable connection: better-sqlite3's Database, with every write (statements that run,
 * exec, pragmas, transactions). The crawl, the import, labelling and the service's own
 * connections are Dbs; they write through the stores in this folder. A Db can be passed
 * wherever a ReadonlyDb is expected.
 */
export type Db = Database.Database;

/**
 * A prepared statement that can only read: better-sqlite3's Statement without run(), and
 * without `database` (which would hand back the writable connection). SQLite decides
 * whether SQL writes; this type keeps read-only code from asking it to (a statement with
 * RETURNING could still write through get(), which a connection opened read-only refuses).
 */
export interface ReadStatement<BindParameters extends unknown[] = unknown[], Result = unknown> {
  readonly source: string;
  readonly reader: boolean;
  readonly busy: boolean;
  get(...params: BindParameters): Result | undefined;
  all(...params: BindParameters): Result[];
  iterate(...params: BindParameters): IterableIterator<Result>;
  pluck(toggleState?: boolean): this;
  expand(toggleState?: boolean): this;
  raw(toggleState?: boolean): this;
  bind(...params: BindParameters): this;
  columns(): Database.ColumnDefinition[];
  safeIntegers(toggleState?: boolean): this;
}

/**
 * A connection that can only read (after Signal Desktop's ReadableDB): statements without
 * run(), and no exec, pragma or transaction. The export, the lab, the viewer and the
 * library's read models take one, so that they cannot write to a collection by accident;
 * `openCollection(path, { readonly: true })` returns one, which SQLite also opens
 * read-only. A consistent snapshot over several reads is `readSnapshot`.
 */
export interface ReadonlyDb {
  readonly name: string;
  readonly open: boolean;
  /** True when the connection itself is read-only (opened so), false for a writable Db seen as a reader. */
  readonly readonly: boolean;
  readonly inTransaction: boolean;
  prepare(source: string): ReadStatement;
  close(): void;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export interface OpenCollectionOptions {
  /** Create the file when it does not exist. */
  create: boolean;
  readonly?: boolean;
  /** How long a statement waits for another process's lock, migrations included (default 5 s). */
  busyTimeoutMs?: number;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function checkFileBeforeOpen(path: string, options: OpenCollectionOptions): void {
  if (!existsSync(path)) {
    if (options.create) return;
    throw new CollectionError(`no collection at ${path}`, { path });
  }
  if (statSync(path).isDirectory()) throw new CollectionError(`${path} is a directory, not a collection file`, { path });
  try {
    accessSync(path, options.readonly ? constants.R_OK : constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new CollectionError(`cannot ${options.readonly ? 'read' : 'read and write'} ${path}: ${describe(err)}`, { path }, { cause: err });
  }
}

function isEmptyDatabase(db: Db): boolean {
  const row = db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number };
  return row.n === 0;
}

function migrate(db: Db, path: string, readonly: boolean): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new CollectionError(`${path} was written by a newer Forager (schema ${version}, this one knows ${SCHEMA_VERSION})`, { path, version });
  }
  if (version === SCHEMA_VERSION) return;
  if (readonly) throw new CollectionError(`${path} needs a schema upgrade and was opened read-only`, { path, version });
  for (let v = version; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v] as string);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}

/**
 * Opens (or creates) a collection file: WAL mode, the Forager application id checked,
 * and the schema migrated to the current version. Every failure is a CollectionError
 * with a one-line message fit for the CLI. Opened with `readonly: true` (SQLite's read-only
 * mode) it is a ReadonlyDb; without it, a writable Db.
 */
export function openCollection(path: string, options: OpenCollectionOptions & { readonly: true }): ReadonlyDb;
export function openCollection(path: string, options: OpenCollectionOptions & { readonly?: false }): Db;
export function openCollection(path: string, options: OpenCollectionOptions): Db | ReadonlyDb;
export function openCollection(path: string, options: OpenCollectionOptions): Db | ReadonlyDb {
  checkFileBeforeOpen(path, options);
  let db: Db;
  try {
    db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: !options.create });
  } catch (err) {
    throw new CollectionError(`cannot open ${path}: ${describe(err)}`, { path }, { cause: err });
  }
  try {
    const appId = db.pragma('application_id', { simple: true }) as number;
    if (appId !== APPLICATION_ID) {
      if (!isEmptyDatabase(db)) throw new CollectionError(`${path} is not a Forager collection`, { path, applicationId: appId });
      if (options.readonly || !options.create) throw new CollectionError(`${path} is empty, not a Forager collection`, { path });
      db.pragma(`application_id = ${APPLICATION_ID}`);
    }
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode: a committed transaction survives a killed process; only power loss may drop the last ones.
      db.pragma('synchronous = NORMAL');
    }
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    db.pragma('cache_size = -8192');
    // Checkpoint less often than SQLite's default (1,000 pages): random index pages rewritten
    // between checkpoints are copied once, which halves the write cost of a fast-growing frontier.
    if (!options.readonly) db.pragma('wal_autocheckpoint = 10000');
    migrate(db, path, options.readonly ?? false);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof CollectionError) throw err;
    throw new CollectionError(`cannot use ${path}: ${describe(err)}`, { path }, { cause: err });
  }
}

/**
 * Runs `read` in one read transaction, so that every query it makes sees the same snapshot
 * even while a crawl writes on another connection (a long export, say). Deferred: the
 * snapshot starts with the first read; nothing is written, and the transaction ends when
 * `read` settles. Not nested: the connection must not be in a transaction already.
 */
export async function readSnapshot<T>(db: ReadonlyDb, read: () => Promise<T>): Promise<T> {
  // The one place a reader's connection is seen as what it is: BEGIN and COMMIT write nothing.
  const connection = db as Db;
  connection.exec('BEGIN');
  try {
    return await read();
  } finally {
    connection.exec('COMMIT');
  }
}

/** Runs `write` in one transaction (nested: a savepoint), so that what it writes is stored together or not at all. */
export function writeTransaction<T>(db: Db, write: () => T): T {
  return db.transaction(write)();
}

/**
 * SQLite stops syncing writes to disk: for a collection being built from scratch (an
 * import), since nothing is gained by syncing a file that a failure deletes whole.
 */
export function skipSyncing(db: Db): void {
  db.pragma('synchronous = OFF');
}

/** Copies the WAL into the database file and empties it, so that the file stands alone. */
export function checkpointAndTruncate(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}
