/*
 * What a worker reads from Redis is untrusted input (issue 35): stream entries, link fields,
 * keys of the wrong type and a damaged budget counter, against a real redis-server.
 */
import { WorkerRequests } from '../../../../crawler/cluster/worker-requests.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../../../crawler/cluster/cluster-keys.ts';
import { changedLabels } from '../../../../crawler/cluster/cluster-labels.ts';
import { LinkStreams, MAX_ENTRY_JSON_BYTES, type SentLink } from '../../../../crawler/cluster/link-streams.ts';
import { PartitionLeases } from '../../../../crawler/cluster/partition-leases.ts';
import { PartitionMap, partitionOf } from '../../../../crawler/cluster/partition.ts';
import { describeDamage, type KeyDamage } from '../../../../crawler/cluster/redis-damage.ts';
import { ReportThrottle } from '../../../../crawler/cluster/report-throttle.ts';
import { ShardRunner } from '../../../../crawler/cluster/shard-runner.ts';
import { shardTemplate } from '../../../../crawler/cluster/shard-template.ts';
import { SharedBudget } from '../../../../crawler/cluster/shared-budget.ts';
import { SharedJudging } from '../../../../crawler/cluster/shared-judging.ts';
import { ResponseReader } from '../../../../crawler/parse/response-reader.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { validateSettings } from '../../../../crawler/settings.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../../../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A stream entry as LinkStreams.send writes one, with rows of our choosing. */
function wireEntry(rows: unknown[]): Buffer {
  return deflateRawSync(Buffer.from(JSON.stringify(rows)));
}

/** Deflated JSON that inflates to `megabytes` MB: an empty list padded with spaces, made a megabyte at a time. */
function deflateBomb(megabytes: number): Buffer {
  const spaces = Buffer.alloc(1024 * 1024, 0x20);
  const chunks = [Buffer.from('[')];
  for (let i = 0; i < megabytes; i++) chunks.push(spaces);
  chunks.push(Buffer.from(']'));
  return deflateRawSync(Buffer.concat(chunks), { level: 9 });
}

/** Redis's count of commands processed so far. */
async function commandsProcessed(redis: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1]);
}

describe('a worker trusts nothing it reads from Redis', { skip }, () => {
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

  test('a stream entry that inflates past its cap is dropped with its reason, and the entries after it are read', async () => {
    const keys = new ClusterKeys('bomb');
    const streams = new LinkStreams(redis, keys);
    const good: SentLink = { url: 'http://good.test/after', depth: 1, anchor: 'after the bomb', context: '', isSeed: false };
    const partition = partitionOf(good.url);
    await streams.prepareOwnership([partition], 'owner', (p) => keys.quietUntil(p));
    const bomb = deflateBomb(200);
    assert.ok(bomb.length < 1024 * 1024, `the bomb is ${bomb.length} bytes deflated`);
    await redis.xadd(keys.links(partition), '*', 'n', '200', 'd', bomb);
    // A field larger than any deflated entry can be is refused before it is inflated.
    await redis.xadd(keys.links(partition), '*', 'n', '1', 'd', Buffer.alloc(2 * MAX_ENTRY_JSON_BYTES));
    await streams.send([good]);
    const heapBefore = process.memoryUsage().arrayBuffers;
    const [first, second, third] = await streams.read([partition], 'owner', 10);
    assert.deepEqual([first?.links, first?.dropped], [[], 1]);
    assert.match(first?.problem ?? '', /inflates past 8388608 bytes/);
    assert.deepEqual([second?.links, second?.dropped], [[], 1]);
    assert.match(second?.problem ?? '', /deflated bytes, more than/);
    assert.deepEqual(third?.links, [good]);
    assert.ok(process.memoryUsage().arrayBuffers - heapBefore < 64 * 1024 * 1024, 'the bomb was inflated whole');
  });

  test('what an honest worker sends always passes the owner\'s checks: long texts are cut, and an entry too large is split', async () => {
    const keys = new ClusterKeys('honest');
    const limits = { maxUrlLength: 1_000_000, maxDepth: 32 };
    const streams = new LinkStreams(redis, keys, { limits });
    // 40 links of 300,000-character URLs (a crawl allowing them) are 12 MB of JSON: two entries.
    const links: SentLink[] = Array.from({ length: 40 }, (_, i) => ({ url: `http://honest.test/${String(i).padStart(3, '0')}${'x'.repeat(300_000)}`, depth: 3, anchor: 'a'.repeat(5000), context: 'c'.repeat(50_000), isSeed: false }));
    const partition = partitionOf(links[0]!.url);
    await streams.prepareOwnership([partition], 'owner', (p) => keys.quietUntil(p));
    await streams.send(links);
    const read = await streams.read([partition], 'owner', 10);
    assert.equal(read.length, 2);
    assert.deepEqual(read.map((b) => b.dropped), [0, 0]);
    const received = read.flatMap((b) => b.links);
    assert.deepEqual(received.map((l) => l.url), links.map((l) => l.url));
    assert.deepEqual(received.map((l) => [l.anchor.length, l.context.length])[0], [1000, 2000]);
  });

  test('links out of the crawl\'s bounds are dropped and counted, and a shard admits none of them', async () => {
    const keys = new ClusterKeys('bounds');
    const streams = new LinkStreams(redis, keys, { limits: { maxUrlLength: 100, maxDepth: 5 } });
    const url = (path: string): string => `http://bounds.test/${path}`;
    const partition = partitionOf(url(''));
    await streams.prepareOwnership([partition], 'owner', (p) => keys.quietUntil(p));
    const rows = [
      [url('good'), 2, 'anchor', 'context', 0, 0.5],
      [url('deepest'), 6, '', '', 1],
      [url('negative'), -5, '', '', 0],
      [url('half'), 0.5, '', '', 0],
      [url('huge'), 1e308, '', '', 0],
      [url('too-deep'), 7, '', '', 0],
      [url('relevance'), 1, '', '', 0, 5],
      [url('seed-flag'), 1, '', '', 2],
      ['javascript:alert(1)', 1, '', '', 0],
      [url('x'.repeat(100)), 1, '', '', 0],
      [url('anchor'), 1, 'a'.repeat(1001), '', 0],
      [url('context'), 1, '', 7, 0],
      'not a link',
    ];
    await redis.xadd(keys.links(partition), '*', 'n', String(rows.length), 'd', wireEntry(rows));
    const [batch] = await streams.read([partition], 'owner', 10);
    assert.deepEqual(batch?.links.map((l) => [l.url, l.depth]), [[url('good'), 2], [url('deepest'), 6]]);
    assert.equal(batch?.dropped, rows.length - 2);
    assert.match(batch?.problem ?? '', /depth -5 is not a whole number from 0 to 6/);

    // The shard checks again what it is given: a link that did not come through a stream is no more trusted.
    const dir = mkdtempSync(join(tmpdir(), 'forager-untrusted-'));
    const parser = new ResponseReader({ parseWorkers: 0 });
    try {
      const settings = validateSettings({ ...DEFAULT_SETTINGS, query: 'bounds', seeds: [url('')], maxDepth: 5 });
      const runner = new ShardRunner(partition, 1, {
        dir, settings, partitions: new PartitionMap(), parser, worker: 'test', paused: true, template: shardTemplate(), leaseFresh: () => false, requests: new WorkerRequests(4),
        budget: { forShard: () => ({ available: () => 0, spent: () => false, reserve: () => undefined, giveBack: () => undefined }) },
      });
      const link = (path: string, depth: number, more: Partial<SentLink> = {}): SentLink => ({ url: url(path), depth, anchor: '', context: '', isSeed: false, ...more });
      const given = [link('kept', 3), link('negative', -5), link('half', 0.5), link('huge', 1e308), link('nan-relevance', 1, { parentRelevance: Number.NaN })];
      // A shard takes links once its frontier is ready.
      assert.equal(await runner.opened, true);
      assert.equal(runner.admit([{ partition, id: '1-0', links: given, dropped: 0 }]), 4);
      await runner.close(async () => undefined);
      const shard = openCollection(join(dir, `shard-${String(partition).padStart(3, '0')}.forager`), { create: false });
      try {
        assert.deepEqual(shard.prepare('SELECT url, depth FROM urls ORDER BY url').all(), [{ url: url('kept'), depth: 3 }]);
      } finally {
        shard.close();
      }
    } finally {
      await parser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a key of the wrong type is named with its repair, and the other partitions\' streams and leases go on', async () => {
    const keys = new ClusterKeys('types');
    const damages: KeyDamage[] = [];
    const onDamage = (damage: KeyDamage): void => void damages.push(damage);
    const streams = new LinkStreams(redis, keys, { onDamage });
    const sound: SentLink = { url: 'http://sound.test/', depth: 0, anchor: '', context: '', isSeed: true };
    const broken: SentLink = { url: 'http://broken.test/', depth: 0, anchor: '', context: '', isSeed: true };
    const [p1, p2] = [partitionOf(sound.url), partitionOf(broken.url)] as [number, number];
    assert.notEqual(p1, p2);
    assert.deepEqual(await streams.prepareOwnership([p1, p2], 'owner', (p) => keys.quietUntil(p)), [0, 0]);
    // A hostile neighbour replaces one partition's stream with a list.
    await redis.del(keys.links(p2));
    await redis.lpush(keys.links(p2), 'not a stream');
    await streams.send([sound, broken]);
    const read = await streams.read([p1, p2], 'owner', 10);
    assert.deepEqual(read.map((b) => [b.partition, b.links]), [[p1, [sound]]]);
    await streams.ack(new Map([[p1, read], [p2, [{ partition: p2, id: '1-0', links: [], dropped: 0 }]]]));
    assert.equal(await redis.xlen(keys.links(p1)), 0);
    assert.deepEqual(await streams.prepareOwnership([p1, p2], 'next', (p) => keys.quietUntil(p)), [0, null]);
    assert.ok(damages.length >= 4 && damages.every((d) => d.key === keys.links(p2) && d.partition === p2), JSON.stringify(damages));
    const said = describeDamage(damages[0] as KeyDamage, 'types');
    assert.match(said, /Redis key forager:\{types\}:links:\d+ is damaged: it should hold a stream .* but Redis says: WRONGTYPE/);
    assert.match(said, /redis-cli DEL forager:\{types\}:links:\d+.*forager cluster delete --name types/);

    // Leases: a lease key replaced by a list, or kept without an expiry, is damage, not a lease someone holds.
    damages.length = 0;
    const leases = new PartitionLeases(redis, keys, 'w', 5000, onDamage);
    const [held] = await leases.acquire([1]);
    assert.equal(held?.epoch, 1);
    await redis.del(keys.lease(1));
    await redis.lpush(keys.lease(1), 'x');
    await redis.set(keys.lease(2), 'forever');
    await redis.set(keys.epoch(3), 'abc');
    assert.deepEqual(await leases.renew([held!]), [held], 'a damaged lease key holds no lease of this worker\'s');
    assert.deepEqual((await leases.acquire([1, 2, 3, 4])).map((l) => l.partition), [4]);
    await leases.release(held!, 100);
    assert.deepEqual(damages.map((d) => [d.key, d.found]), [
      [keys.lease(1), 'it is a list'],
      [keys.lease(1), 'it is a list'],
      [keys.lease(2), 'it holds "forever"'],
      [keys.epoch(3), 'it holds "abc"'],
    ]);
    // A home key of another type: its partition is neither here nor elsewhere.
    await redis.lpush(keys.home(5), 'x');
    assert.deepEqual(await leases.claimHomes([5, 6], 'here'), []);
    assert.equal(damages.at(-1)?.key, keys.home(5));

    // Labels: a labels key of another type is said and reads as no change; entries that are not labels are left out.
    damages.length = 0;
    await redis.set(keys.labelsVersion, '1');
    await redis.set(keys.labels, 'not a hash');
    assert.equal(await changedLabels(redis, keys, null, onDamage), undefined);
    assert.equal(damages[0]?.key, keys.labels);
    await redis.del(keys.labels);
    await redis.hset(keys.labels, 'http://a.test/', 'relevant', 'http://a.test/x', 'maybe', 'not a url', 'clear');
    const labels = await changedLabels(redis, keys, null, onDamage);
    assert.deepEqual([...(labels?.labels ?? [])], [['http://a.test/', 'relevant']]);
    assert.equal(labels?.dropped, 2);
  });

  test('a damaged budget counter hands out no page, is reported, and is asked again at a bounded rate', async () => {
    for (const damaged of ['abc', '-1000', '2.5', '1e3']) {
      const keys = new ClusterKeys(`budget-${damaged}`);
      await redis.set(keys.budgetUsed, damaged);
      const damages: KeyDamage[] = [];
      const shared = new SharedBudget(redis, keys, 3, { onDamage: (d) => void damages.push(d) });
      const shard = shared.forShard(() => undefined);
      const commandsBefore = await commandsProcessed(redis);
      let pages = 0;
      // A shard looking for work every 2 ms for a second, as hundreds of shards of one worker do.
      for (const started = Date.now(); Date.now() - started < 1000; await sleep(2)) {
        while (shard.available() > 0) {
          shard.reserve();
          pages++;
        }
      }
      const commands = (await commandsProcessed(redis)) - commandsBefore;
      assert.equal(pages, 0, `a counter of ${damaged} handed out pages`);
      assert.equal(await redis.get(keys.budgetUsed), damaged, 'the damaged counter was changed');
      assert.ok(commands <= 10, `a counter of ${damaged}: ${commands} Redis commands in a second`);
      assert.ok(damages.length >= 1 && damages.every((d) => d.key === keys.budgetUsed), `a counter of ${damaged} was not reported`);
      assert.match(describeDamage(damages[0] as KeyDamage, 'b'), new RegExp(`it holds "${damaged.replace('.', '\\.')}"`));
    }
    // A counter of another type is damage too.
    const keys = new ClusterKeys('budget-list');
    await redis.lpush(keys.budgetUsed, '1');
    const damages: KeyDamage[] = [];
    const shared = new SharedBudget(redis, keys, 3, { onDamage: (d) => void damages.push(d) });
    shared.forShard(() => undefined).available();
    await sleep(50);
    assert.match(damages[0]?.found ?? '', /WRONGTYPE/);
  });

  test('pages given back never take the budget counter below 0', async () => {
    const keys = new ClusterKeys('give-back');
    const shared = new SharedBudget(redis, keys, 100);
    const shard = shared.forShard(() => undefined);
    shard.available();
    await sleep(50);
    assert.equal(shard.available(), 8);
    // The counter was reset (the cluster deleted and made again) while this worker held 8 pages.
    await redis.set(keys.budgetUsed, '3');
    await shared.returnAllowance();
    assert.equal(await redis.get(keys.budgetUsed), '0');
  });

  test('judge statistics of another worker that are not statistics are left out, not summed', async () => {
    const keys = new ClusterKeys('judging');
    const damages: KeyDamage[] = [];
    const judging = new SharedJudging(redis, keys, 'me', (d) => void damages.push(d));
    const mine = { terms: { documents: 2, df: [1], pagesMentioning: [1], mentions: [3] }, best: [0.5] };
    const given: unknown[] = [];
    const judge = { statistics: () => mine, useShared: (shared: unknown) => void given.push(shared) } as unknown as Parameters<typeof judging.exchange>[0][number];
    await redis.hset(keys.judgeStatistics, 'sound', JSON.stringify({ terms: { documents: 1, df: [1], pagesMentioning: [0], mentions: [0] }, best: [] }));
    await redis.hset(keys.judgeStatistics, 'nan', '{"terms":{"documents":1,"df":[null],"pagesMentioning":[0],"mentions":[0]},"best":[]}');
    await redis.hset(keys.judgeStatistics, 'junk', 'not json');
    await judging.exchange([judge], ['me', 'sound', 'nan', 'junk']);
    assert.deepEqual(given, [{ terms: { documents: 1, df: [1], pagesMentioning: [0], mentions: [0] }, best: [] }]);
    assert.equal(damages.length, 2);
  });

  test('a problem that comes back is said once per interval, with how often it came back', () => {
    const throttle = new ReportThrottle(1000);
    assert.equal(throttle.note('a', 0), 0);
    assert.equal(throttle.note('a', 10), undefined);
    assert.equal(throttle.note('b', 20), 0);
    assert.equal(throttle.note('a', 500), undefined);
    assert.equal(throttle.note('a', 1000), 2);
  });
});
