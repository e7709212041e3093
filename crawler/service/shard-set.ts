import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { PartitionMap } from '../cluster/partition.ts';
import { CollectionError, ForagerError, UsageError } from '../errors.ts';
import { MergeError } from '../merge/merge-error.ts';
import { findShards, type ShardFile } from '../merge/shard-files.ts';
import { openCollection, type ReadonlyDb } from '../store/database.ts';
import { PARTITIONS } from '../store/shard-names.ts';

/*
 * A crawl cluster's data directory read in place (`forager serve --shards DIR`): every shard
 * file opened read-only, for the library's read models to run on each. The workers may be
 * writing the shards now: each connection reads the latest committed state of its WAL at
 * every query (no snapshot is held open, so no checkpoint waits on a reader), and waits
 * out a checkpoint's lock with a busy time-out. The directory is looked at again at most
 * once a RESCAN_MS, so a shard that a worker creates later is served from the next request
 * on; a file that cannot be read yet (a worker creating it) is tried again at each look.
 */

/** How stale the list of shard files may get. */
const RESCAN_MS = 1_000;
/** A checkpoint holds a reader back for milliseconds; a stuck writer should not hang a page. */
const BUSY_TIMEOUT_MS = 2_000;

export interface OpenShard {
  partition: number;
  /** The file name (shard-007.forager), as messages name it. */
  name: string;
  db: ReadonlyDb;
}

export class ShardSet {
  /** The data directory, absolute. */
  readonly dir: string;
  /** The one collection the shards make, named after their directory. */
  readonly id: string;
  readonly #open = new Map<number, OpenShard>();
  /** Files seen but not readable, by name: what went wrong at the last try. */
  readonly #problems = new Map<string, string>();
  readonly #partitions = new PartitionMap();
  #scannedAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  private constructor(dir: string) {
    this.dir = dir;
    this.id = collectionId(dir);
  }

  /** The shards of `dir`; none yet is no error (the workers may not have started), a missing directory is. */
  static open(dir: string): ShardSet {
    const path = resolve(dir);
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (err) {
      throw new UsageError(`--shards ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (err as Error).message}`, { dir: path });
    }
    if (!isDir) throw new UsageError(`--shards ${path} is a file; give the data directory the workers write their shards in (forager worker --dir)`, { dir: path });
    const set = new ShardSet(path);
    set.#scan();
    return set;
  }

  /** The shards open now, by partition (the directory looked at again when the last look is stale). */
  shards(): OpenShard[] {
    this.#refresh();
    return [...this.#open.values()].sort((a, b) => a.partition - b.partition);
  }

  /** The shard of one partition, if it has one. */
  shard(partition: number): OpenShard | undefined {
    if (!this.#open.has(partition)) this.#refresh();
    return this.#open.get(partition);
  }

  /** The shard that owns a canonical URL: the partition of its registrable domain, as the workers place it. */
  owner(url: string): OpenShard | undefined {
    let partition: number;
    try {
      partition = this.#partitions.of(url);
    } catch {
      return undefined;
    }
    return this.shard(partition);
  }

  /** Shard files that could not be read at the last look, each with the reason in words. */
  problems(): string[] {
    this.#refresh();
    return [...this.#problems.entries()].map(([name, why]) => `${name}: ${why}`);
  }

  /** Throws the CollectionError a transport answers "not found" with, unless `collection` names these shards. */
  check(collection: string): void {
    if (collection !== this.id) throw new CollectionError(`no collection named "${collection}" here: this server shows the shards of ${this.dir} as "${this.id}"`, { collection });
  }

  close(): void {
    this.#closed = true;
    for (const shard of this.#open.values()) shard.db.close();
    this.#open.clear();
  }

  #refresh(): void {
    if (!this.#closed && performance.now() - this.#scannedAt >= RESCAN_MS) this.#scan();
  }

  #scan(): void {
    this.#scannedAt = performance.now();
    let files: ShardFile[];
    try {
      files = findShards(this.dir);
    } catch (err) {
      // An empty directory is a cluster whose workers have not stored a page yet.
      if (err instanceof MergeError && err.problem === 'no-shards') return;
      throw err;
    }
    for (const file of files) {
      if (this.#open.has(file.partition)) continue;
      try {
        const db = openCollection(file.path, { create: false, readonly: true, busyTimeoutMs: BUSY_TIMEOUT_MS });
        this.#open.set(file.partition, { partition: file.partition, name: file.name, db });
        this.#problems.delete(file.name);
      } catch (err) {
        if (!(err instanceof ForagerError)) throw err;
        this.#problems.set(file.name, err.message);
      }
    }
  }
}

/** The collection's id: the directory's name where it can name a collection, else "shards". */
function collectionId(dir: string): string {
  const name = basename(dir);
  return /^[\p{L}\p{N}][\p{L}\p{N} _-]{0,79}$/u.test(name) ? name : 'shards';
}

/**
 * A page's number in the shards' one collection: its shard's own fetch number and its
 * partition in one integer, so a number names one page and says which shard to ask.
 */
export function shardSeq(partition: number, seq: number): number {
  return seq * PARTITIONS + partition;
}

/** The shard and its own fetch number of a number shardSeq made; undefined for any other number. */
export function shardSeqParts(seq: number): { partition: number; seq: number } | undefined {
  if (!Number.isSafeInteger(seq) || seq < PARTITIONS) return undefined;
  return { partition: seq % PARTITIONS, seq: Math.floor(seq / PARTITIONS) };
}
