import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PartitionMap } from '../../../../crawler/cluster/partition.ts';
import { ShardRunner } from '../../../../crawler/cluster/shard-runner.ts';
import { shardTemplate } from '../../../../crawler/cluster/shard-template.ts';
import { ResponseReader } from '../../../../crawler/parse/response-reader.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { validateSettings } from '../../../../crawler/settings.ts';
import { buildLargeShard } from '../../../support/large-shard.ts';

/*
 * Opening a shard replays its history on the thread that renews the worker's leases: the
 * replay goes in slices, so a timer beside it keeps running, and the shard is served only
 * once its frontier is ready.
 */

/** The bound on the event loop's longest stall while a shard of 50,000 queued URLs opens: a tenth of this, 2 cores shared with other work. */
const STALL_BOUND_MS = 250;
const PARTITION = 5;

/** Runs `open`, then waits for `until`, with a 5 ms timer beside it; the longest gap between two of its ticks, in milliseconds. */
async function longestGap<T>(open: () => T, until: (opened: T) => Promise<unknown>): Promise<{ gapMs: number; opened: T }> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  try {
    const opened = open();
    await until(opened);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { gapMs: longest, opened };
  } finally {
    clearInterval(timer);
  }
}

describe('opening a shard of a long history', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'forager-shard-open-'));
  const settings = validateSettings({ ...DEFAULT_SETTINGS, query: 'write ahead log', seeds: ['http://h0.shard.test/'], scope: 'any' });
  const parser = new ResponseReader({ parseWorkers: 0 });
  const open = (): ShardRunner =>
    new ShardRunner(PARTITION, 1, {
      dir, settings, partitions: new PartitionMap(), parser, worker: 'stall-test', paused: true, template: shardTemplate(), leaseFresh: () => true,
      budget: { forShard: () => ({ available: () => 0, reserve: () => undefined, giveBack: () => undefined }) },
    });

  before(() => {
    buildLargeShard(dir, PARTITION, settings, { pages: 1250, linksPerPage: 40, hosts: 40 });
  });

  after(async () => {
    await parser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('never holds the event loop long: the history is replayed in slices, and the shard is ready after', async () => {
    const { gapMs, opened: runner } = await longestGap(open, (r) => r.opened);
    try {
      assert.ok(gapMs < STALL_BOUND_MS, `the event loop stalled ${gapMs.toFixed(0)} ms while the shard opened`);
      assert.equal(runner.ready, true);
      assert.equal(runner.engine.stats().queued, 50_000);
      assert.equal(runner.engine.frontierTop(1).length, 1, 'the frontier holds the queued URLs');
      assert.ok(runner.openMs > 0);
    } finally {
      await runner.close(async () => undefined);
    }
  });

  test('is not served before it is ready: no links, no labels, not idle', async () => {
    const runner = open();
    try {
      assert.equal(runner.ready, false);
      assert.equal(runner.idle, false);
      assert.throws(() => runner.admit([{ partition: PARTITION, id: '1-0', links: [{ url: 'http://h1.shard.test/new', depth: 1, anchor: '', context: '', isSeed: false }], dropped: 0 }]), /still being opened/);
      assert.equal(runner.label('http://h0.shard.test/page/0', 'relevant'), false);
      assert.equal(await runner.opened, true);
    } finally {
      await runner.close(async () => undefined);
    }
  });

  test('closes at once when stopped while it opens', async () => {
    const runner = open();
    const started = performance.now();
    const outcome = await runner.close(async () => undefined);
    assert.equal(outcome, 'stopped');
    assert.equal(await runner.opened, false, 'never became ready');
    assert.equal(runner.ready, false);
    assert.ok(performance.now() - started < 2000, `closing took ${(performance.now() - started).toFixed(0)} ms`);
  });
});
