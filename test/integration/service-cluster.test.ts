/*
 * ForagerService's read-only view of a crawl cluster, on a real redis-server: the answer
 * without a cluster, the status of one, typed CLUSTER errors for an unknown cluster and a
 * Redis that is gone, and the same service answering again once Redis is back.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../crawler/cluster/cluster-definition.ts';
import { DEFAULT_SETTINGS } from '../../crawler/protocol/settings.ts';
import { errorBody, ForagerService } from '../../crawler/service/service.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { freePort, REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    return errorBody(err);
  }
  throw new Error('expected a refusal');
}

describe('ForagerService: a crawl cluster\'s status', { skip, timeout: 60_000 }, () => {
  let redis: RedisServer;
  const dir = tempDir('forager-service-cluster-');

  before(async () => {
    // On disk, so that the cluster is still there after the restart below.
    redis = await startRedisServer({ appendonly: true, appendfsync: 'always' });
    const client = redis.client();
    try {
      await createCluster(client, 'docs', { ...DEFAULT_SETTINGS, query: 'write ahead log', seeds: ['http://127.0.0.1:9/'], maxPages: 500 });
    } finally {
      client.disconnect();
    }
  });

  after(async () => {
    await redis?.close();
    dir.cleanup();
  });

  test('without --redis and --cluster there is nothing to show, and info says so', async () => {
    const service = new ForagerService({ dir: dir.dir });
    try {
      assert.equal((await service.info()).cluster, null);
      assert.deepEqual(await service.clusterStatus(), { configured: false });
    } finally {
      await service.close();
    }
  });

  test('answers the status, says when Redis is gone, and reconnects when it is back', async () => {
    const service = new ForagerService({ dir: dir.dir, cluster: { redis: redis.url, name: 'docs' } });
    try {
      assert.deepEqual((await service.info()).cluster, { name: 'docs' });
      const answer = await service.clusterStatus();
      assert.ok(answer.configured);
      assert.equal(answer.status.name, 'docs');
      assert.equal(answer.status.query, 'write ahead log');
      assert.equal(answer.status.state, 'running');
      assert.equal(answer.status.maxPages, 500);
      assert.equal(answer.status.partitions, 256);
      assert.deepEqual(answer.status.workers, []);
      assert.ok(!JSON.stringify(answer).includes(redis.url), 'the Redis URL never reaches the UI');

      await redis.stop();
      const down = await refusal(service.clusterStatus());
      assert.equal(down.code, 'CLUSTER');
      assert.match(down.message, /Redis/);

      await redis.restart();
      const back = await service.clusterStatus();
      assert.ok(back.configured && back.status.name === 'docs', 'the same service reads the cluster again');
    } finally {
      await service.close();
    }
  });

  test('an unknown cluster and an unreachable Redis are CLUSTER errors in words', async () => {
    const unknown = new ForagerService({ dir: dir.dir, cluster: { redis: redis.url, name: 'nope' } });
    try {
      const refused = await refusal(unknown.clusterStatus());
      assert.equal(refused.code, 'CLUSTER');
      assert.match(refused.message, /no cluster named "nope"/);
    } finally {
      await unknown.close();
    }
    const nowhere = new ForagerService({ dir: dir.dir, cluster: { redis: `redis://127.0.0.1:${await freePort()}`, name: 'docs' } });
    try {
      const refused = await refusal(nowhere.clusterStatus());
      assert.equal(refused.code, 'CLUSTER');
      assert.match(refused.message, /cannot reach Redis at 127\.0\.0\.1:\d+/);
    } finally {
      await nowhere.close();
    }
  });
});
