/*
 * A cluster's refresh request and its shared fetch budget against a real redis-server; and
 * a shard's refresh policy's sums.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../../../crawler/cluster/cluster-keys.ts';
import { giveBackFetches, markRefreshDone, readRefresh, refreshProgress, requestRefresh, takeFetches } from '../../../../crawler/cluster/cluster-refresh.ts';
import { ShardRefreshPolicy } from '../../../../crawler/cluster/shard-refresh-policy.ts';
import { ClusterError } from '../../../../crawler/errors.ts';
import type { RunProgress } from '../../../../crawler/engine/run-policy.ts';
import { WorkerRequests } from '../../../../crawler/cluster/worker-requests.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../../../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

describe('a cluster refresh on Redis', { skip }, () => {
  let server: RedisServer;
  let redis: Redis;
  before(async () => {
    server = await startRedisServer();
    redis = server.client();
  });
  after(async () => {
    redis.disconnect();
    await server.close();
  });

  test('the fetches handed out never add up past the budget, what is given back can be taken again, and a new request starts afresh', async () => {
    const keys = new ClusterKeys('budget');
    await redis.set(keys.state, 'finished');
    const first = await requestRefresh(redis, keys, { since: 1000, maxFetches: 10 });
    assert.equal(await redis.get(keys.state), 'running', 'a finished crawl runs again for its refresh');
    assert.deepEqual(await readRefresh(redis, keys), first);
    assert.equal(await takeFetches(redis, keys, first, 4), 4);
    assert.equal(await takeFetches(redis, keys, first, 4), 4);
    assert.equal(await takeFetches(redis, keys, first, 4), 2);
    assert.equal(await takeFetches(redis, keys, first, 4), 0);
    await giveBackFetches(redis, keys, 3);
    assert.equal(await takeFetches(redis, keys, first, 4), 3);
    await markRefreshDone(redis, keys, 17);
    assert.deepEqual(await refreshProgress(redis, keys), { ...first, fetches: 10, partitionsDone: 1 });

    const second = await requestRefresh(redis, keys, { since: 2000, maxFetches: 5 });
    assert.notEqual(second.id, first.id);
    assert.deepEqual(await refreshProgress(redis, keys), { ...second, fetches: 0, partitionsDone: 0 });
    // A run of the first request giving back after the second began: the counter never goes below 0.
    await giveBackFetches(redis, keys, 4);
    assert.equal(await takeFetches(redis, keys, second, 9), 5);
  });

  test('a damaged request or counter hands out nothing and says so', async () => {
    const keys = new ClusterKeys('damaged');
    const refresh = await requestRefresh(redis, keys, { since: 1000, maxFetches: 10 });
    await redis.set(keys.refreshUsed, '-3');
    assert.equal(await takeFetches(redis, keys, refresh, 4), undefined);
    await redis.set(keys.refresh, '{"id":"zz","since":1}');
    await assert.rejects(readRefresh(redis, keys), (err: unknown) => err instanceof ClusterError && /does not hold a refresh request/.test(err.message));
  });
});

test("a shard's refresh counts revisits and new pages against its chunk, and says what it spent", () => {
  const policy = new ShardRefreshPolicy({ since: 5, maxFetches: 4 }, { mayDispatch: () => true, requests: new WorkerRequests(2).gate(() => undefined), partition: { elsewhere: () => null, forward: () => undefined } });
  const run: RunProgress = { pagesAtStart: 9, pagesThisRun: 1, pageTasks: 1, revisitTasks: 1, revisitedThisRun: 1, queuedRevisits: 3 };
  assert.equal(policy.fetchesSpent, 0);
  assert.equal(policy.budgetLeft(run), 1);
  assert.equal(policy.fetchesSpent, 2);
  assert.equal(policy.mayTakeNew(), true);
  assert.equal(policy.admitsSeeds, false);
  assert.equal(policy.locksCollection, false);
  assert.equal(policy.endsWhenIdle, true);
  assert.equal(policy.unqueuesRevisitsAtEnd, true);
  assert.deepEqual(policy.frontier, { keepsRobots: false, keepsCrawlQueue: false, dueRevisits: { since: 5 } });
});
