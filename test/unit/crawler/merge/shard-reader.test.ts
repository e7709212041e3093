import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MergeError } from '../../../../crawler/merge/merge-error.ts';
import { findShards } from '../../../../crawler/merge/shard-files.ts';
import { ShardReader } from '../../../../crawler/merge/shard-reader.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import { MIGRATIONS } from '../../../../crawler/store/migrations.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

const tmp = tempDir('forager-shard-reader-');
after(() => tmp.cleanup());

describe('findShards', () => {
  it('lists shard-NNN.forager files by partition, and nothing else', () => {
    for (const name of ['shard-010.forager', 'shard-002.forager', 'shard-002.forager-wal', 'shard-7.forager', 'shard-300.forager', 'notes.txt', 'shard-255.forager']) {
      writeFileSync(join(tmp.dir, name), '');
    }
    assert.deepEqual(
      findShards(tmp.dir).map((s) => [s.partition, s.name]),
      [
        [2, 'shard-002.forager'],
        [10, 'shard-010.forager'],
        [255, 'shard-255.forager'],
      ],
    );
    assert.throws(() => findShards(join(tmp.dir, 'nowhere')), (err: unknown) => err instanceof MergeError && err.problem === 'no-dir');
  });
});

describe('ShardReader', () => {
  it('reads one snapshot from open to close while a crawl goes on writing', () => {
    const live = openCollection(join(tmp.dir, 'shard-live.forager'), { create: true });
    const hosts = new HostStore(live);
    hosts.idFor('http://one.test');
    const reader = ShardReader.open({ partition: 1, name: 'shard-live.forager', path: join(tmp.dir, 'shard-live.forager') });
    try {
      const count = reader.query<[number]>('SELECT count(*) FROM hosts', true);
      assert.deepEqual(count.get(), [1]);
      hosts.idFor('http://two.test');
      assert.equal(live.prepare('SELECT count(*) FROM hosts').pluck().get(), 2);
      assert.deepEqual(count.get(), [1], 'the snapshot taken at open');
    } finally {
      reader.close();
      live.close();
    }
  });

  it('names the shard that is not a collection, of another schema, or damaged', () => {
    const file = (name: string) => ({ partition: 3, name, path: join(tmp.dir, name) });
    writeFileSync(join(tmp.dir, 'junk.forager'), Buffer.alloc(4096, 0x41));
    assert.throws(() => ShardReader.open(file('junk.forager')), /junk\.forager.*(damaged|not a database)/);
    writeFileSync(join(tmp.dir, 'empty.forager'), '');
    assert.throws(() => ShardReader.open(file('empty.forager')), /empty\.forager.*empty/);
    const old = openCollection(join(tmp.dir, 'old.forager'), { create: true });
    old.pragma(`user_version = ${MIGRATIONS.length - 1}`);
    old.close();
    assert.throws(() => ShardReader.open(file('old.forager')), (err: unknown) => err instanceof MergeError && err.problem === 'damaged-shard' && /old\.forager.*older Forager/.test(err.message));
    assert.throws(() => ShardReader.open(file('missing.forager')), (err: unknown) => err instanceof MergeError && /missing\.forager/.test(err.message));
  });
});
