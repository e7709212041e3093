/*
 * One writer per collection. Two crawls on one file would reset each other's in-flight URLs
 * and fail each other's fetches, so a crawl holds a lock file beside the collection
 * (`<collection>.lock`, created exclusively) naming its process. The lock survives kill -9
 * and is then taken over: it is stale when its process is gone from this machine, or when
 * its heartbeat (rewritten every HEARTBEAT_MS) is older than STALE_MS.
 */
import { openSync, readFileSync, unlinkSync, writeFileSync, closeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { CollectionError, CollectionLockedError, ForagerError } from '../errors.ts';

export const HEARTBEAT_MS = 10_000;
export const STALE_MS = 60_000;

interface LockHolder {
  pid: number;
  host: string;
  /** What holds it, in words: "forager crawl", "forager serve". */
  holder: string;
  since: string;
  heartbeat: number;
}

export function lockPathOf(collectionPath: string): string {
  return `${collectionPath}.lock`;
}

export class WriterLock {
  readonly #path: string;
  readonly #holder: LockHolder;
  readonly #timer: NodeJS.Timeout;
  #released = false;

  private constructor(path: string, holder: LockHolder) {
    this.#path = path;
    this.#holder = holder;
    this.#timer = setInterval(() => this.#beat(), HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Takes the lock of the collection at `collectionPath`, or throws CollectionLockedError naming its holder. */
  static acquire(collectionPath: string, holder: string, now = Date.now()): WriterLock {
    const path = lockPathOf(collectionPath);
    const mine: LockHolder = { pid: process.pid, host: hostname(), holder, since: new Date(now).toISOString(), heartbeat: now };
    for (let attempt = 0; attempt < 2; attempt++) {
      if (tryCreate(path, mine, collectionPath)) return new WriterLock(path, mine);
      const current = readHolder(path);
      if (current !== undefined && !isStale(current, now)) {
        throw new CollectionLockedError(
          `${collectionPath} is being written by ${current.holder} (process ${current.pid} on ${current.host}, since ${current.since}); wait for it to finish or stop it first`,
          { path: collectionPath, ...current },
        );
      }
      // Stale (its process died) or unreadable (it died while writing the file): take it over.
      unlinkQuietly(path);
    }
    throw new CollectionLockedError(`${collectionPath} is being locked by another process at this very moment; try again`, { path: collectionPath });
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    clearInterval(this.#timer);
    // Only our own lock is removed: a process that took over a lock it judged stale keeps it.
    if (readHolder(this.#path)?.pid === this.#holder.pid) unlinkQuietly(this.#path);
  }

  #beat(): void {
    try {
      writeFileSync(this.#path, JSON.stringify({ ...this.#holder, heartbeat: Date.now() }));
    } catch {
      // A heartbeat that cannot be written (a full disk) only makes the lock look older; the crawl's own writes report the problem.
    }
  }
}

/**
 * Runs `work` holding the writer lock of the collection at `collectionPath`, released however
 * it ends. Every command that writes or replaces a collection runs in one, so that nothing
 * is written (not its settings, not a refresh's start) before the lock is held.
 */
export async function withWriterLock<T>(collectionPath: string, holder: string, work: () => T | Promise<T>): Promise<T> {
  const lock = WriterLock.acquire(collectionPath, holder);
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/** withWriterLock for work that is synchronous from start to end (a merge, a label). */
export function withWriterLockSync<T>(collectionPath: string, holder: string, work: () => T): T {
  const lock = WriterLock.acquire(collectionPath, holder);
  try {
    return work();
  } finally {
    lock.release();
  }
}

function tryCreate(path: string, holder: LockHolder, collectionPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'ENOENT') throw new CollectionError(`cannot create ${collectionPath}: the folder ${dirname(path)} does not exist`, { path: collectionPath });
    throw new ForagerError('STORE', `cannot create the lock file ${path}: ${(err as Error).message}`, { path });
  }
  try {
    writeFileSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.heartbeat !== 'number') return undefined;
    return { pid: value.pid, host: value.host, holder: String(value.holder ?? 'another process'), since: String(value.since ?? '?'), heartbeat: value.heartbeat };
  } catch {
    return undefined;
  }
}

function isStale(holder: LockHolder, now: number): boolean {
  if (now - holder.heartbeat > STALE_MS) return true;
  return holder.host === hostname() && !processAlive(holder.pid);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
