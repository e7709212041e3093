import { StoreError } from '../errors.ts';

/** What each family of SQLite result codes means to a person, most specific prefix first. */
const MEANINGS: readonly [prefix: string, words: string][] = [
  ['SQLITE_FULL', 'the disk is full'],
  ['SQLITE_READONLY', 'the collection is read-only'],
  ['SQLITE_BUSY', 'another program holds the collection locked'],
  ['SQLITE_LOCKED', 'another program holds the collection locked'],
  ['SQLITE_IOERR', 'the disk could not be read or written'],
  ['SQLITE_CORRUPT', 'the collection file is damaged'],
  ['SQLITE_NOTADB', 'the collection file is damaged'],
  ['SQLITE_CANTOPEN', 'the collection file cannot be opened'],
  ['SQLITE_PERM', 'the collection file may not be written'],
  ['SQLITE_NOMEM', 'SQLite ran out of memory'],
];

/**
 * The StoreError an error from better-sqlite3 stands for, or undefined when `err` did not
 * come from SQLite. Any SQLite error counts: a crawl that cannot store must stop, not go on
 * marking URLs failed.
 */
export function storeErrorOf(err: unknown): StoreError | undefined {
  if (err instanceof StoreError) return err;
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  const words = MEANINGS.find(([prefix]) => code.startsWith(prefix))?.[1] ?? 'the collection could not be written';
  return new StoreError(code, `${words} (${err.message})`, {}, { cause: err });
}
