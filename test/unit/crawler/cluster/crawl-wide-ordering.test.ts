/*
 * What the workers of a cluster share so that it orders as one focused crawl: the best
 * waiting priorities (crawl-cutoff.ts) and the link model (shared-link-model.ts), through a
 * real redis-server, with damaged fields left out and reported.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../../../crawler/cluster/cluster-keys.ts';
import { CrawlCutoff, mergeTopBuckets } from '../../../../crawler/cluster/crawl-cutoff.ts';
import type { KeyDamage } from '../../../../crawler/cluster/redis-damage.ts';
import { SharedLinkModel } from '../../../../crawler/cluster/shared-link-model.ts';
import { OnlineLogistic } from '../../../../crawler/ordering/focused/online-model.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../../../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

test('summaries merge by bucket, best first, up to the limit', () => {
  assert.deepEqual(mergeTopBuckets([[[900, 2], [500, 1]], [[900, 1], [700, 4], [100, 9]]], 5), [[900, 3], [700, 4]]);
  assert.deepEqual(mergeTopBuckets([], 5), []);
});

test('blending moves the dense weights to the mean counted by examples', () => {
  const model = new OnlineLogistic([0, 0]);
  for (let i = 0; i < 3; i++) model.learn([1, 0], [], 1);
  const own = Array.from(model.weights);
  model.blend([{ weights: [4, 8], examples: 1 }]);
  assert.deepEqual(Array.from(model.weights), [(own[0] as number) * 0.75 + 1, (own[1] as number) * 0.75 + 2]);
  const before = Array.from(model.weights);
  model.blend([{ weights: [100, 100], examples: 0 }]);
  assert.deepEqual(Array.from(model.weights), before, 'a model that learnt nothing moves nothing');
});

describe('crawl-wide ordering through Redis', { skip }, () => {
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

  test('each worker reads the others\' best ready URLs, never its own, and a worker that cannot spend publishes none', async () => {
    const keys = new ClusterKeys('cutoff');
    const damages: KeyDamage[] = [];
    const a = new CrawlCutoff(redis, keys, 'a', (d) => damages.push(d));
    const b = new CrawlCutoff(redis, keys, 'b', (d) => damages.push(d));
    assert.deepEqual(await a.exchange([[800, 3]], ['a', 'b'], 8), []);
    assert.deepEqual(await b.exchange([[900, 1]], ['a', 'b'], 8), [[800, 3]]);
    assert.deepEqual(await a.exchange([[800, 2]], ['a', 'b'], 8), [[900, 1]]);
    // b's budget is spent: its URLs must not hold a back.
    assert.deepEqual(await b.exchange(undefined, ['a', 'b'], 8), [[800, 2]]);
    assert.deepEqual(await a.exchange([[800, 2]], ['a', 'b'], 8), []);
    // A damaged field is left out and said; a field of a worker no longer live is dropped.
    await redis.hset(keys.topPriorities, 'c', '[[1,"x"]]', 'gone', '[[700,5]]');
    assert.deepEqual(await a.exchange([[800, 2]], ['a', 'b', 'c'], 8), []);
    assert.equal(damages.length, 1);
    assert.match(damages[0]?.found ?? '', /"c"/);
    assert.equal(await redis.hexists(keys.topPriorities, 'gone'), 0);
  });

  test('workers blend their link models: each moves towards the others by what they learnt since', async () => {
    const keys = new ClusterKeys('models');
    const damages: KeyDamage[] = [];
    const a = new SharedLinkModel(redis, keys, 'a', (d) => damages.push(d));
    const b = new SharedLinkModel(redis, keys, 'b', (d) => damages.push(d));
    const modelA = new OnlineLogistic([0, 0]);
    const modelB = new OnlineLogistic([0, 0]);
    for (let i = 0; i < 4; i++) modelB.learn([0, 1], [], 1);
    await a.exchange(modelA, ['a', 'b']);
    assert.deepEqual(Array.from(modelA.weights), [0, 0], 'nobody else has published yet');
    const learntB = Array.from(modelB.weights);
    await b.exchange(modelB, ['a', 'b']);
    assert.deepEqual(Array.from(modelB.weights), learntB, 'a has learnt nothing: b keeps its weights');
    await a.exchange(modelA, ['a', 'b']);
    assert.deepEqual(Array.from(modelA.weights), learntB, 'a, with no examples, takes b\'s weights');
    const after = Array.from(modelA.weights);
    await a.exchange(modelA, ['a', 'b']);
    assert.deepEqual(Array.from(modelA.weights), after, 'b\'s examples count once');
    await redis.hset(keys.linkModels, 'c', JSON.stringify({ weights: [1, Number.NaN], examples: 2 }));
    await a.exchange(modelA, ['a', 'b', 'c']);
    assert.equal(damages.length, 1, 'a field that is not a model of this size is left out and said');
    assert.deepEqual(Array.from(modelA.weights), after);
  });
});
