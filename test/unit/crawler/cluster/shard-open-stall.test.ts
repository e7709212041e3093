import { WorkerRequests } from '../../../../crawler/cluster/worker-requests.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PartitionMap } from '../../../../crawler/cluster/partition.ts';
import { ShardRunner } from '../../../../crawler/cluster/shard-runner.ts';
import { threadCpuMs } from '../../../../crawler/engine/time-slices.ts';
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

/**
 * The bounds on the event loop's longest stall while a shard of 50,000 queued URLs opens
 * (the synchronous open held it for seconds, all of it its own CPU): the work the thread did
 * between two ticks of a 5 ms timer, and the wall time between them, which on 2 cores shared
 * with other work also counts the time the process waited for a core.
 */
const STALL_CPU_BOUND_MS = 100;
const STALL_WALL_BOUND_MS = 1000;
const PARTITION = 5;

interface Stall {
  /** The longest gap between two ticks, in milliseconds. */
  wallMs: number;
  /** The most CPU this thread spent between two ticks, in milliseconds. */
  cpuMs: number;
}

/** Runs `open`, then waits for `until`, with a 5 ms timer beside it: the longest stall it saw. */
async function longestStall<T>(open: () => T, until: (opened: T) => Promise<unknown>): Promise<{ stall: Stall; opened: T }> {
  let last = performance.now();
  let lastCpu = threadCpuMs();
  const stall: Stall = { wallMs: 0, cpuMs: 0 };
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = threadCpuMs();
    stall.wallMs = Math.max(stall.wallMs, now - last);
    stall.cpuMs = Math.max(stall.cpuMs, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  try {
    const opened = open();
    await until(opened);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { stall, opened };
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
      dir, settings, partitions: new PartitionMap(), parser, worker: 'stall-test', paused: true, template: shardTemplate(), leaseFresh: () => true, requests: new WorkerRequests(4),
      budget: { forShard: () => ({ available: () => 0, spent: () => false, reserve: () => undefined, giveBack: () => undefined }) },
    });

  before(() => {
    buildLargeShard(dir, PARTITION, settings, { pages: 1250, linksPerPage: 40, hosts: 40 });
  });

  after(async () => {
    await parser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('never holds the event loop long: the history is replayed in slices, and the shard is ready after', async () => {
    const { stall, opened: runner } = await longestStall(open, (r) => r.opened);
    try {
      const said = `the event loop stalled ${stall.wallMs.toFixed(0)} ms, ${stall.cpuMs.toFixed(0)} ms of it this thread's work, while the shard opened`;
      assert.ok(stall.cpuMs < STALL_CPU_BOUND_MS && stall.wallMs < STALL_WALL_BOUND_MS, said);
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
