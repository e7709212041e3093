import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AtomicFile } from '../../../../crawler/export/atomic-file.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

test('the bytes are synced to the disk before the file takes its name, and the directory after', async () => {
  const dir = tempDir('forager-atomic-');
  try {
    const path = join(dir.dir, 'out.warc');
    const synced: { kind: 'file' | 'directory'; size: number; namedYet: boolean }[] = [];
    const file = new AtomicFile(path, (fd) => {
      const stat = fstatSync(fd);
      synced.push({ kind: stat.isDirectory() ? 'directory' : 'file', size: stat.size, namedYet: existsSync(path) });
    });
    await file.write('hello ');
    await file.write(Buffer.from('world'));
    await file.commit();
    assert.deepEqual(synced, [
      { kind: 'file', size: 11, namedYet: false },
      { kind: 'directory', size: synced[1]?.size ?? -1, namedYet: true },
    ]);
    assert.equal(readFileSync(path, 'utf8'), 'hello world');
  } finally {
    dir.cleanup();
  }
});

test('discarding after a commit leaves other files alone, even one given the same descriptor number', async () => {
  const dir = tempDir('forager-atomic-');
  try {
    const file = new AtomicFile(join(dir.dir, 'out.warc'));
    await file.write('bytes');
    await file.commit();
    // The descriptor the commit closed is the lowest free one: the next open most likely gets its number.
    const other = openSync(join(dir.dir, 'other'), 'w');
    file.discard();
    // A stream closes its descriptor asynchronously: give it the time to do the harm it might.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.doesNotThrow(() => fstatSync(other), 'the other file is still open');
    closeSync(other);
    assert.equal(readFileSync(join(dir.dir, 'out.warc'), 'utf8'), 'bytes');
  } finally {
    dir.cleanup();
  }
});
