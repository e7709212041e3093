import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CollectionLockedError } from '../../../../crawler/errors.ts';
import { lockPathOf, STALE_MS, WriterLock } from '../../../../crawler/store/writer-lock.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

test('a second writer is refused with the holder named; release lets the next one in', () => {
  const dir = tempDir('forager-lock-');
  try {
    const path = join(dir.dir, 'c.db');
    const first = WriterLock.acquire(path, 'forager crawl');
    assert.throws(
      () => WriterLock.acquire(path, 'forager serve'),
      (err: unknown) => err instanceof CollectionLockedError && err.code === 'LOCKED' && /being written by forager crawl \(process \d+/.test(err.message),
    );
    first.release();
    assert.equal(existsSync(lockPathOf(path)), false);
    WriterLock.acquire(path, 'forager serve').release();
  } finally {
    dir.cleanup();
  }
});

test('the lock of a process killed with SIGKILL is taken over', async () => {
  const dir = tempDir('forager-lock-');
  try {
    const path = join(dir.dir, 'c.db');
    const lockModule = new URL('../../../../crawler/store/writer-lock.ts', import.meta.url).href;
    const child = spawn(process.execPath, ['--input-type=module', '-e', `import { WriterLock } from ${JSON.stringify(lockModule)}; WriterLock.acquire(${JSON.stringify(path)}, 'doomed crawl'); console.log('locked'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    assert.throws(() => WriterLock.acquire(path, 'forager crawl'), CollectionLockedError, 'held while the child lives');
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const lock = WriterLock.acquire(path, 'forager crawl');
    assert.equal(JSON.parse(readFileSync(lockPathOf(path), 'utf8')).pid, process.pid);
    lock.release();
  } finally {
    dir.cleanup();
  }
});

test('a lock whose heartbeat stopped long ago is stale even if its pid lives', () => {
  const dir = tempDir('forager-lock-');
  try {
    const path = join(dir.dir, 'c.db');
    const now = Date.now();
    // The holder is on another machine, so only its heartbeat can tell whether it is stale.
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: process.ppid, host: 'elsewhere', holder: 'old crawl', since: 'then', heartbeat: now - STALE_MS - 1 }));
    WriterLock.acquire(path, 'forager crawl', now).release();
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: process.ppid, host: 'elsewhere', holder: 'live crawl', since: 'now', heartbeat: now }));
    assert.throws(() => WriterLock.acquire(path, 'forager crawl', now), /live crawl/);
  } finally {
    dir.cleanup();
  }
});
