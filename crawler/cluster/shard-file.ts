import { ClusterError } from '../errors.ts';
import { openCollection, type Db } from '../store/database.ts';
import { raiseFence } from './shard-fence.ts';

/*
 * A shard's file opened for its owner: short lock waits, a small page cache, and the epoch
 * fence raised, so that no write of a stale owner lands. The shard's runner (with its engine)
 * and the intake of a dormant shard (links stored without an engine) open it so.
 */

/** SQLite page cache per shard, in KiB. */
const SHARD_CACHE_KIB = 1024;
/**
 * How long a shard's connection waits for another process's write lock, in milliseconds.
 * Only a worker past its lease writes a shard it does not own, and it may be stopped (SIGSTOP,
 * a paused VM) holding the lock for good; SQLite waits on this thread, which also renews the
 * leases and runs every other shard, so the wait is kept short and the open tried again later.
 */
const SHARD_BUSY_TIMEOUT_MS = 50;

/** Another process holds the shard's write lock (a worker paused past its lease): the fence could not be raised yet. */
export class ShardLockedError extends ClusterError {
  constructor(partition: number, options?: { cause?: unknown }) {
    super(`partition ${partition}: another process holds its shard's write lock (a worker paused past its lease?)`, { partition }, options);
  }
}

/** Whether an error is SQLite's "database is locked" past the busy time-out. */
function isBusy(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'SQLITE_BUSY';
}

/** A shard's collection, its lock waits kept short from the first statement (an old shard's migration included). */
function openShard(path: string, partition: number): Db {
  try {
    return openCollection(path, { create: true, busyTimeoutMs: SHARD_BUSY_TIMEOUT_MS });
  } catch (err) {
    throw isBusy(err) || (err instanceof Error && isBusy(err.cause)) ? new ShardLockedError(partition, { cause: err }) : err;
  }
}

/**
 * Opens a partition's shard under the lease's epoch; ShardLockedError when another process
 * holds its write lock, the fence's error when a later owner has written to it.
 */
export function openShardFile(path: string, partition: number, epoch: number): Db {
  const db = openShard(path, partition);
  try {
    // A worker holds many shards: each keeps a small page cache (a collection's own is 8 MB).
    db.pragma(`cache_size = -${SHARD_CACHE_KIB}`);
    // And a WAL checkpointed at SQLite's default size, not a collection's 40 MB: a worker holds a hundred shards.
    db.pragma('wal_autocheckpoint = 1000');
    try {
      raiseFence(db, epoch);
    } catch (err) {
      throw isBusy(err) ? new ShardLockedError(partition, { cause: err }) : err;
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
