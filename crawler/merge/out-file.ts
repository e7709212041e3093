import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { MergeError } from './merge-error.ts';

/*
 * The merged collection is built under a temporary name beside its final one and renamed
 * into place only when complete and on disk (as export's AtomicFile and import do), so a
 * failed or interrupted merge never leaves a half collection under the name asked for.
 */

/** Refuses, before any work, an output that exists (without force), that is a shard, or whose folder is missing. */
export function checkOutPath(out: string, force: boolean, shardPaths: readonly string[]): void {
  const target = resolve(out);
  if (shardPaths.some((path) => resolve(path) === target)) {
    throw new MergeError('out-exists', `${out} is one of the shards being merged; choose another --db`, { path: out });
  }
  if (existsSync(out)) {
    if (statSync(out).isDirectory()) throw new MergeError('out-unwritable', `${out} is a directory; --db names the collection file to write`, { path: out });
    if (!force) throw new MergeError('out-exists', `${out} already exists; choose another --db, or add --force to replace it`, { path: out });
  }
  const dir = dirname(target);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new MergeError('out-unwritable', `cannot create ${out}: the folder ${dir} does not exist`, { path: out });
}

/** A fresh name in the output's folder, hidden and unlike any shard's. */
export function temporaryPath(out: string): string {
  return join(dirname(resolve(out)), `.${basename(out)}.${randomBytes(4).toString('hex')}.merging`);
}

/** A collection file and the files SQLite keeps beside it. */
export function removeCollectionFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/**
 * Puts the finished file at `out`. Without force a file that appeared there meanwhile is
 * never replaced (link() fails where rename() would replace). With force the old
 * collection's WAL and shared memory go first: SQLite would otherwise read an old WAL as
 * the new file's.
 */
export function placeMerged(temp: string, out: string, force: boolean): void {
  syncFile(temp, false);
  if (force) {
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(out + suffix, { force: true });
    renameSync(temp, out);
  } else {
    try {
      linkSync(temp, out);
      rmSync(temp);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new MergeError('out-exists', `${out} already exists; choose another --db, or add --force to replace it`, { path: out });
      // File systems without hard links: check, then rename.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
      if (existsSync(out)) throw new MergeError('out-exists', `${out} already exists; choose another --db, or add --force to replace it`, { path: out });
      renameSync(temp, out);
    }
  }
  syncFile(dirname(resolve(out)), true);
}

/**
 * The file's bytes on the disk before the rename, so that a power cut cannot leave a
 * complete-looking collection of zeros; then the rename itself (its directory), best effort
 * where a platform cannot open or sync a directory.
 */
function syncFile(path: string, bestEffort: boolean): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch (err) {
    if (!bestEffort) throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
