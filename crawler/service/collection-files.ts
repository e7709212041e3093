import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { CollectionError, UsageError } from '../errors.ts';

export const COLLECTION_EXTENSION = '.forager';
/** Files the CLI users made with `--db x.db` are collections too. */
const OPENABLE_EXTENSIONS = new Set([COLLECTION_EXTENSION, '.db', '.sqlite']);
const NAME_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N} _-]{0,79}$/u;

/**
 * Where the service's collections live: every collection file of one directory
 * (`forager serve --dir`, the desktop app), or a single file (`forager serve --db`).
 * Ids are file names without their extension; they never contain a path separator.
 */
export class CollectionFiles {
  readonly location: string;
  readonly canManage: boolean;
  readonly #single: string | undefined;

  private constructor(location: string, single: string | undefined) {
    this.location = location;
    this.#single = single;
    this.canManage = single === undefined;
  }

  static directory(dir: string): CollectionFiles {
    const path = resolve(dir);
    if (existsSync(path) && !statSync(path).isDirectory()) throw new UsageError(`${path} is a file; --dir needs a directory of collections`, { path });
    mkdirSync(path, { recursive: true });
    return new CollectionFiles(path, undefined);
  }

  static singleFile(file: string): CollectionFiles {
    const path = resolve(file);
    if (!existsSync(path)) throw new CollectionError(`no collection at ${path}`, { path });
    return new CollectionFiles(dirname(path), path);
  }

  /** Ids of the collections present, sorted. */
  ids(): string[] {
    if (this.#single !== undefined) return [idOf(this.#single)];
    const ids: string[] = [];
    for (const entry of readdirSync(this.location, { withFileTypes: true })) {
      if (entry.isFile() && OPENABLE_EXTENSIONS.has(extname(entry.name))) ids.push(idOf(entry.name));
    }
    return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
  }

  /** The file of an existing collection. */
  pathOf(id: string): string {
    if (this.#single !== undefined) {
      if (id !== idOf(this.#single)) throw new CollectionError(`no collection named "${id}" here`, { id });
      return this.#single;
    }
    checkName(id);
    for (const ext of OPENABLE_EXTENSIONS) {
      const path = join(this.location, id + ext);
      if (existsSync(path)) return path;
    }
    throw new CollectionError(`no collection named "${id}"`, { id, dir: this.location });
  }

  /** A free file for a new collection named `name`, or after the query when no name is given. */
  newPath(name: string | undefined, query: string): { id: string; path: string } {
    if (!this.canManage) throw new UsageError('this server was started on one collection file (--db); start it with --dir to create collections', {});
    const base = name === undefined ? nameFromQuery(query) : name.trim();
    checkName(base);
    for (let n = 1; n < 1000; n++) {
      const id = n === 1 ? base : `${base}-${n}`;
      if (![...OPENABLE_EXTENSIONS].some((ext) => existsSync(join(this.location, id + ext)))) {
        if (name !== undefined && n > 1) throw new UsageError(`a collection named "${base}" exists already; choose another name`, { name: base });
        return { id, path: join(this.location, id + COLLECTION_EXTENSION) };
      }
    }
    throw new UsageError(`too many collections named "${base}"`, { name: base });
  }

  /** Removes a collection's file and its WAL side files. */
  remove(id: string): void {
    if (!this.canManage) throw new UsageError('this server was started on one collection file (--db); it cannot delete it', { id });
    const path = this.pathOf(id);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
}

function idOf(file: string): string {
  return basename(file, extname(file));
}

function checkName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new UsageError(`"${name}" cannot name a collection: use letters, digits, spaces, '-' or '_' (at most 80)`, { name });
  }
}

/** "Write-ahead logging and checkpoints!" → "write-ahead-logging-and-checkpoints". */
export function nameFromQuery(query: string): string {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const name = words.join('-').slice(0, 60).replace(/-+$/, '');
  return name === '' ? 'collection' : name;
}
