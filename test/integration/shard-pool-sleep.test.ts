import { WorkerRequests } from '../../crawler/cluster/worker-requests.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../crawler/cluster/cluster-keys.ts';
import { createCluster, type ClusterDefinition } from '../../crawler/cluster/cluster-definition.ts';
import { LeaseKeeper } from '../../crawler/cluster/lease-keeper.ts';
import { LinkStreams, type LinkBatch } from '../../crawler/cluster/link-streams.ts';
import { PartitionLeases } from '../../crawler/cluster/partition-leases.ts';
import { PartitionMap, partitionOf } from '../../crawler/cluster/partition.ts';
import { ShardPool } from '../../crawler/cluster/shard-pool.ts';
import { ShardRunner } from '../../crawler/cluster/shard-runner.ts';
import { shardTemplate } from '../../crawler/cluster/shard-template.ts';
import { SharedBudget } from '../../crawler/cluster/shared-budget.ts';
import { WorkerRegistry } from '../../crawler/cluster/worker-registry.ts';
import { ResponseReader } from '../../crawler/parse/response-reader.ts';
import { DEFAULT_SETTINGS } from '../../crawler/protocol/settings.ts';
import { validateSettings } from '../../crawler/settings.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { shardFileName } from '../../crawler/store/shard-names.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';
import { existsSync } from 'node:fs';

/*
 * A worker's shard pool against a real Redis and a real web site: a shard serves links only
 * once its frontier is ready; idle, it goes to sleep; links for it then go to its intake,
 * which stores them without an engine; the shard wakes for them later, not per batch, and
 * crawls them.
 */

const skip = existsSync(REDIS_SERVER_BIN) ? false : `${REDIS_SERVER_BIN} is missing`;
const SLEEP = { afterMs: 300, wakeAfterMs: 1500 };

describe('a worker\'s sleeping shards', { skip, timeout: 120_000 }, () => {
  let server: RedisServer;
  let redis: Redis;
  let site: TestSite;
  let keeper: LeaseKeeper;
  let renewals: Promise<void>;
  let pool: ShardPool;
  const dir = mkdtempSync(join(tmpdir(), 'forager-pool-sleep-'));
  const parser = new ResponseReader({ parseWorkers: 0 });
  const logs: string[] = [];

  before(async () => {
    server = await startRedisServer();
    redis = server.client();
    site = await startTestSite({
      '/': html('<a href="/a">a</a>', 'home'),
      '/a': html('<p>a page</p>', 'a'),
      '/b': html('<p>b page</p>', 'b'),
      '/c': html('<p>c page</p>', 'c'),
    });
    const settings = validateSettings({ ...DEFAULT_SETTINGS, query: 'page', seeds: [`${site.origin}/`], delayMs: 0, probeSoft404: false });
    const definition: ClusterDefinition = await createCluster(redis, 'sleep', settings);
    const keys = new ClusterKeys('sleep');
    const id = 'sleep-worker';
    const streams = new LinkStreams(redis, keys);
    const voice = { log: (line: string) => void logs.push(line), report: (_problem: string, line: string) => void logs.push(line) };
    keeper = new LeaseKeeper(
      { registry: new WorkerRegistry(redis, keys, id, definition.leaseMs), leases: new PartitionLeases(redis, keys, id, definition.leaseMs), streams, keys, definition, id, home: `test:${dir}`, dir },
      { ...voice, lost: () => undefined, handOver: async () => 0, forget: () => undefined, lateChanged: () => undefined },
    );
    await keeper.join();
    await keeper.balance();
    renewals = keeper.renewalLoop();
    pool = new ShardPool(
      { dir, definition, partitions: new PartitionMap(), parser, budget: new SharedBudget(redis, keys, 100), template: shardTemplate(), worker: id, keeper, sleep: SLEEP, requests: new WorkerRequests(4) },
      { ...voice, reportNow: (line) => void logs.push(line), paused: () => false, send: async () => 0, fenced: () => undefined, refreshEnded: () => undefined },
    );
  });

  after(async () => {
    await pool?.closeAll(true);
    keeper?.stop();
    await renewals;
    redis?.disconnect();
    await server?.close();
    await site?.close();
    await parser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The worker's tick, as far as the pool goes. */
  const tick = (): void => {
    pool.newTick();
    pool.reapEndedShards();
    pool.openShardsWithWork();
    pool.tendIdleShards();
  };
  const tickUntil = async (what: string, done: () => boolean): Promise<void> => {
    const until = Date.now() + 60_000;
    while (!done()) {
      if (Date.now() > until) assert.fail(`${what}: not within a minute (${logs.join('; ')})`);
      tick();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const batch = (path: string, id: string): LinkBatch[] => [{ partition: partitionOf(site.origin), id, links: [{ url: `${site.origin}${path}`, depth: 1, anchor: path, context: '', isSeed: path === '/' }], dropped: 0 }];
  const stateOf = (path: string): unknown => {
    const db = openCollection(join(dir, shardFileName(partitionOf(site.origin))), { create: false, readonly: true });
    try {
      return db.prepare('SELECT state FROM urls WHERE url = ?').pluck().get(`${site.origin}${path}`);
    } finally {
      db.close();
    }
  };

  test('serve links once ready, sleep when idle, store links asleep without an engine, and wake for them', async () => {
    const partition = partitionOf(site.origin);
    assert.equal(keeper.held.has(partition), true, 'the one worker holds every partition');
    // Opening: nothing is served until the shard is ready.
    pool.newTick();
    assert.equal(pool.linkSinkFor(partition), undefined);
    assert.equal(pool.settled, false, 'a shard being opened keeps the worker from being idle');
    await tickUntil('the shard ready', () => pool.linkSinkFor(partition) instanceof ShardRunner);
    assert.equal(pool.shardTime.opened, 1);
    pool.linkSinkFor(partition)?.admit(batch('/', '1-0'));
    await tickUntil('the seed and its link crawled', () => site.count('/a') === 1);
    // Idle past its time: asleep.
    await tickUntil('the shard asleep', () => !pool.runners.has(partition));
    await new Promise((resolve) => setTimeout(resolve, 200));
    tick();

    // Asleep: links go to its intake, stored at once, with no engine and no open.
    const intake = pool.linkSinkFor(partition);
    assert.ok(intake !== undefined && !(intake instanceof ShardRunner), 'a sleeping shard takes links through its intake');
    assert.equal(intake.admit(batch('/b', '2-0')), 0);
    assert.equal(pool.linkSinkFor(partition)?.admit(batch('/c', '3-0')), 0);
    assert.equal(stateOf('/b'), 0, '/b is stored queued');
    assert.equal(stateOf('/c'), 0, '/c is stored queued');
    assert.equal(pool.shardTime.intakes, 2);
    assert.equal(pool.runners.has(partition), false);
    assert.equal(pool.settled, false, 'a sleeping shard that holds links keeps the worker from being idle');
    tick();
    assert.equal(pool.shardTime.opened, 1, 'not opened for each batch');
    assert.equal(site.count('/b'), 0);

    // Woken once it held them a while: one open for both batches, and both crawled.
    await tickUntil('/b and /c crawled', () => site.count('/b') === 1 && site.count('/c') === 1);
    assert.equal(pool.shardTime.opened, 2);
    assert.equal(logs.filter((line) => /could not|ended|locked/.test(line)).length, 0, logs.join('; '));
  });
});
