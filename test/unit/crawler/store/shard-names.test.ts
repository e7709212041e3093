import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PARTITIONS, shardFileName, shardPartition } from '../../../../crawler/store/shard-names.ts';

test('a shard file name carries its partition in three digits, and reads back to it', () => {
  assert.equal(shardFileName(7), 'shard-007.forager');
  for (const partition of [0, 7, 128, PARTITIONS - 1]) assert.equal(shardPartition(shardFileName(partition)), partition);
});

test('files that are not a partition\'s shard have no partition', () => {
  for (const name of ['shard-007.forager-wal', 'shard-007.forager-shm', 'shard-7.forager', 'shard-0007.forager', `shard-${PARTITIONS}.forager`, 'notes.txt']) {
    assert.equal(shardPartition(name), undefined, name);
  }
});
