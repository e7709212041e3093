/*
 * The cluster's coordination pieces against a real redis-server: leases and their epochs,
 * link streams with their consumer group, and the shared page budget.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../../../crawler/cluster/cluster-keys.ts';
import { decodeLinks, encodeLinks, LinkStreams, type SentLink } from '../../../../crawler/cluster/link-streams.ts';
import { PartitionLeases } from '../../../../crawler/cluster/partition-leases.ts';
import { partitionOf } from '../../../../crawler/cluster/partition.ts';
import { SharedBudget } from '../../../../crawler/cluster/shared-budget.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../../../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('cluster coordination on Redis', { skip }, () => {
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

  test('a lease is one worker\'s at a time; its epoch rises with every acquisition, and the old holder can neither renew nor release it', async () => {
    const keys = new ClusterKeys('leases');
    const a = new PartitionLeases(redis, keys, 'a', 300);
    const b = new PartitionLeases(redis, keys, 'b', 300);
    const [first] = await a.acquire([5, 6]).then((l) => l.filter((x) => x.partition === 5));
    assert.equal(first?.epoch, 1);
    assert.deepEqual(await b.acquire([5]), []);
    assert.deepEqual(await a.renew([first!]), []);
    assert.deepEqual(await b.free(8, 'home-b'), { homedHere: [], homeless: [0, 1, 2, 3, 4, 7] });
    // A partition whose shard lives at another home is never free for this one.
    assert.deepEqual(await a.claimHomes([0, 1], 'home-a'), []);
    assert.deepEqual(await b.claimHomes([1, 2], 'home-b'), [1]);
    assert.deepEqual(await b.free(8, 'home-b'), { homedHere: [2], homeless: [3, 4, 7] });
    assert.deepEqual(await a.free(8, 'home-a'), { homedHere: [0, 1], homeless: [3, 4, 7] });
    await sleep(400);
    const [second] = await b.acquire([5]);
    assert.equal(second?.epoch, 2);
    assert.deepEqual(await a.renew([first!]), [first], 'the old holder renewed a lease that is not its own');
    await a.release(first!, 1000);
    assert.equal(await redis.get(keys.lease(5)), 'b:2', 'the old holder released the new holder\'s lease');
    await b.release(second!, 1000);
    assert.equal(await redis.get(keys.lease(5)), null);
    assert.ok(Number(await redis.get(keys.quietUntil(5))) > Date.now(), 'a release names a quiet time for the next owner');
  });

  test('links travel in deflated batches to their partition, come back to a new owner when unacknowledged, and leave the stream when acknowledged', async () => {
    const keys = new ClusterKeys('links');
    const streams = new LinkStreams(redis, keys);
    const links: SentLink[] = Array.from({ length: 450 }, (_, i) => ({ url: `http://h${i % 3}.test/p/${i}`, depth: 2, anchor: `page ${i}`, context: 'words around the link', isSeed: false, parentRelevance: 0.25 }));
    // Entries of every size, each deflated with a window fitted to it.
    const many = Array.from({ length: 6 }, () => links).flat();
    for (const batch of [links.slice(0, 1), links.slice(0, 3), links, many]) assert.deepEqual(decodeLinks(encodeLinks(batch)), batch);
    assert.ok(encodeLinks(links.slice(0, 3)).length < JSON.stringify(links.slice(0, 3)).length, 'a small entry is deflated too');
    assert.equal(decodeLinks(Buffer.from('not deflate')), undefined);
    await streams.send(links);
    const partitions = [...new Set(links.map((l) => partitionOf(l.url)))];
    assert.deepEqual(await streams.prepareOwnership(partitions, 'old', (p) => keys.quietUntil(p)), partitions.map(() => 0));
    const read = await streams.read(partitions, 'old', 100);
    assert.equal(read.reduce((n, b) => n + b.links.length, 0), 450);
    assert.ok(read.every((b) => b.links.every((l) => partitionOf(l.url) === b.partition)));
    // The old owner dies before acknowledging: the next one claims and reads them as its pending batches.
    await streams.prepareOwnership(partitions, 'new', (p) => keys.quietUntil(p));
    const again = await streams.read(partitions, 'new', 100, true);
    assert.equal(again.reduce((n, b) => n + b.links.length, 0), 450);
    assert.equal(await streams.backlog(256), read.length);
    await streams.ack(new Map(partitions.map((p) => [p, again.filter((b) => b.partition === p)])));
    assert.equal(await streams.backlog(256), 0);
    assert.deepEqual(await streams.read(partitions, 'new', 100, true), []);
  });

  test('one page budget for every worker: allowances never add up past it, and what is given back can be spent by another', async () => {
    const keys = new ClusterKeys('budget');
    let wakes = 0;
    const sharedA = new SharedBudget(redis, keys, 20);
    const a = sharedA.forShard(() => wakes++);
    const sharedB = new SharedBudget(redis, keys, 20);
    const b = sharedB.forShard(() => wakes++);
    let spent = 0;
    for (let round = 0; round < 20; round++) {
      for (const budget of [a, b]) {
        while (budget.available() > 0) {
          budget.reserve();
          spent++;
        }
      }
      await sleep(10);
    }
    assert.equal(spent, 20);
    assert.ok(sharedA.spent && sharedB.spent);
    assert.ok(wakes > 0, 'a shard that found no pages is woken when some come');
    a.giveBack();
    a.giveBack();
    await sharedA.returnAllowance();
    sharedB.recheck();
    b.available();
    await sleep(50);
    assert.equal(b.available(), 2);
  });

  test('a worker that spends fast takes larger chunks, never more than a quarter of what is left, and wakes only the shards that asked', async () => {
    const keys = new ClusterKeys('chunks');
    const shared = new SharedBudget(redis, keys, 1000);
    let asked = 0;
    let quiet = 0;
    const asking = shared.forShard(() => asked++);
    shared.forShard(() => quiet++);
    const chunks: number[] = [];
    for (let refill = 0; refill < 8; refill++) {
      assert.equal(asking.available(), 0);
      await sleep(20);
      const n = asking.available();
      chunks.push(n);
      for (let i = 0; i < n; i++) asking.reserve();
    }
    assert.deepEqual(chunks.slice(0, 5), [8, 16, 32, 64, 128], 'each chunk spent within a second doubles the next');
    const used = Number(await redis.get(keys.budgetUsed));
    assert.equal(used, chunks.reduce((x, y) => x + y, 0));
    // 248 used before the sixth: 752 left, so at most 188 of the 256 asked for, and so on.
    for (let i = 5, before = 248; i < chunks.length; before += chunks[i] as number, i++) assert.equal(chunks[i], Math.min(256, Math.max(8, Math.floor((1000 - before) / 4))), `chunk ${i + 1}`);
    assert.equal(asked, 8, 'the shard that found the allowance empty was woken at each refill');
    assert.equal(quiet, 0, 'the shard that never asked was not');
  });
});
