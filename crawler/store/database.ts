import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { CollectionError } from '../errors.ts';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from './migrations.ts';

export type Db = Database.Database;

export interface OpenCollectionOptions {
  /** Create the file when it does not exist. */
  create: boolean;
  readonly?: boolean;
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
 * with a one-line message fit for the CLI.
 */
export function openCollection(path: string, options: OpenCollectionOptions): Db {
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
    db.pragma('busy_timeout = 5000');
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
