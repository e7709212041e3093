import { WorkerRequests } from '../../../../crawler/cluster/worker-requests.ts';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ShardLockedError, ShardRunner } from '../../../../crawler/cluster/shard-runner.ts';
import { PartitionMap } from '../../../../crawler/cluster/partition.ts';
import { shardFileName } from '../../../../crawler/store/shard-names.ts';
import { raiseFence } from '../../../../crawler/cluster/shard-fence.ts';
import { shardTemplate } from '../../../../crawler/cluster/shard-template.ts';
import { ResponseReader } from '../../../../crawler/parse/response-reader.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { validateSettings } from '../../../../crawler/settings.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { stoppedLockHolder } from '../../../support/stopped-lock-holder.ts';

/** The longest the event loop went without running a timer while `work` ran, in milliseconds. */
async function longestStall(work: () => void): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  work();
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(timer);
  return longest;
}

test('a taker never waits on its one thread for a shard\'s write lock that a stopped worker holds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'forager-shard-lock-'));
  const parser = new ResponseReader({ parseWorkers: 0 });
  const partition = 7;
  copyFileSync(shardTemplate(), join(dir, shardFileName(partition)));
  const stale = openCollection(join(dir, shardFileName(partition)), { create: false });
  raiseFence(stale, 1);
  stale.close();
  const settings = validateSettings({ ...DEFAULT_SETTINGS, query: 'lock', seeds: ['http://lock.test/'] });
  const open = (): ShardRunner => new ShardRunner(partition, 2, {
    dir, settings, partitions: new PartitionMap(), parser, worker: 'taker', paused: true, template: shardTemplate(), leaseFresh: () => true, requests: new WorkerRequests(4),
    budget: { forShard: () => ({ available: () => 0, spent: () => false, reserve: () => undefined, giveBack: () => undefined }) },
  });
  const holder = await stoppedLockHolder([join(dir, shardFileName(partition))]);
  try {
    let refusal: unknown;
    const stallMs = await longestStall(() => {
      try {
        open();
      } catch (err) {
        refusal = err;
      }
    });
    assert.ok(stallMs < 500, `the taker's event loop stalled ${stallMs.toFixed(0)} ms`);
    assert.ok(refusal instanceof ShardLockedError, `opened or failed otherwise: ${String(refusal)}`);
    // Once the stale worker is gone, the shard opens under the taker's epoch.
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const runner = open();
    assert.equal(runner.epoch, 2);
    await runner.close(async () => undefined);
  } finally {
    holder.kill('SIGKILL');
    await parser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
