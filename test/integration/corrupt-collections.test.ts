/*
 * A damaged collection file is the user's problem to know about, not a reason to hide the
 * healthy collections beside it or to print a stack trace.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { openSync, writeSync, closeSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ForagerService } from '../../crawler/service/service.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';

const dir = tempDir('forager-corrupt-');

/** A collection whose pages past the first (its schema) are overwritten with garbage: it opens, and its reads fail. */
function damagedCopy(healthy: string, damaged: string): void {
  copyFileSync(healthy, damaged);
  const fd = openSync(damaged, 'r+');
  try {
    writeSync(fd, Buffer.alloc(4096 * 3, 0xa5), 0, 4096 * 3, 4096);
  } finally {
    closeSync(fd);
  }
}

before(() => {
  const healthy = join(dir.dir, 'healthy.forager');
  const db = openCollection(healthy, { create: true });
  saveSettings(db, testSettings(['http://a.example/'], { query: 'write-ahead logging' }));
  for (let i = 0; i < 200; i++) db.prepare('INSERT INTO hosts (origin) VALUES (?)').run(`http://h${i}.example`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  damagedCopy(healthy, join(dir.dir, 'damaged.forager'));
});

after(() => dir.cleanup());

test('the collection list shows a damaged file with its problem beside the healthy one', async () => {
  const service = new ForagerService({ dir: dir.dir, statusIntervalMs: 10_000 });
  try {
    const listed = await service.listCollections();
    const byId = new Map(listed.map((c) => [c.id, c]));
    assert.equal(byId.get('healthy')?.problem, null);
    assert.equal(byId.get('healthy')?.query, 'write-ahead logging');
    assert.match(byId.get('damaged')?.problem ?? '', /damaged|malformed|not a database/);
  } finally {
    await service.close();
  }
});

test('the CLI says in one line that a collection is damaged', () => {
  const cli = new URL('../../crawler/cli/main.ts', import.meta.url).href;
  const script = `import { main } from ${JSON.stringify(cli)}; process.exitCode = await main(['stats', '--db', ${JSON.stringify(join(dir.dir, 'damaged.forager'))}]);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 1);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0] ?? '', /^forager: .*(damaged|malformed|not a database)/);
});
