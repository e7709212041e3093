/*
 * A `forager worker` process against a Redis a hostile neighbour wrote to (issue 35): a
 * deflate bomb in a partition's stream, and keys replaced by values of another type. The
 * worker stays small, says what is wrong at a bounded rate, and crawls what it still can.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../crawler/cluster/cluster-keys.ts';
import { LinkStreams } from '../../crawler/cluster/link-streams.ts';
import { partitionOf } from '../../crawler/cluster/partition.ts';
import { PARTITIONS, shardFileName } from '../../crawler/store/shard-names.ts';
import { runCli, spawnCli, type RunningCli } from '../support/cli.ts';
import { startManyHostWeb, type ManyHostWeb } from '../support/many-host-web.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

interface Harness {
  web: ManyHostWeb;
  server: RedisServer;
  redis: Redis;
  dir: string;
  name: string;
  keys: ClusterKeys;
}

async function setUp(name: string, hosts: number, latencyMs = 0): Promise<Harness> {
  const web = await startManyHostWeb({ hosts, pagesPerHost: 3, seed: 11, seedHosts: 1, latencyMs });
  const server = await startRedisServer();
  return { web, server, redis: server.client(), dir: mkdtempSync(join(tmpdir(), 'forager-hostile-redis-')), name, keys: new ClusterKeys(name) };
}

async function tearDown(h: Harness): Promise<void> {
  h.redis.disconnect();
  await h.web.close();
  await h.server.close();
  rmSync(h.dir, { recursive: true, force: true });
}

async function createCluster(h: Harness, seeds: readonly string[]): Promise<void> {
  const created = await runCli([
    'cluster', 'create', '--redis', h.server.url, '--name', h.name, '--lease-ms', '3000',
    '--query', 'test pages', ...seeds.flatMap((seed) => ['--seed', seed]),
    '--allow-private', '--scope', 'any', '--max-pages', '500', '--delay-ms', '20', '--delay-factor', '0',
  ]);
  assert.equal(created.code, 0, created.stderr);
}

function startWorker(h: Harness): RunningCli {
  return spawnCli(['worker', '--redis', h.server.url, '--name', h.name, '--dir', join(h.dir, 'shards'), '--parse-workers', '0', '--json'], { timeoutMs: 55_000 });
}

async function waitUntil(what: string, condition: () => Promise<boolean> | boolean, worker: RunningCli, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; the worker said:\n${worker.stderr().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deflated JSON that inflates to `megabytes` MB (an empty list padded with spaces), made a megabyte at a time. */
function deflateBomb(megabytes: number): Buffer {
  const spaces = Buffer.alloc(1024 * 1024, 0x20);
  return deflateRawSync(Buffer.concat([Buffer.from('['), ...Array.from({ length: megabytes }, () => spaces), Buffer.from(']')]), { level: 9 });
}

/** The pages stored in a partition's shard (read while the worker may be writing: WAL readers do not block it). */
function pagesInShard(h: Harness, partition: number): string[] {
  const path = join(h.dir, 'shards', shardFileName(partition));
  if (!existsSync(path)) return [];
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

/** Partitions that none of the web's hosts falls in: damaging their keys holds up no page of the web. */
function partitionsWithoutHosts(web: ManyHostWeb): number[] {
  const used = new Set(web.origins.map((origin) => partitionOf(origin)));
  return Array.from({ length: PARTITIONS }, (_, p) => p).filter((p) => !used.has(p));
}

/** How many of the worker's lines name `key`. */
function linesNaming(output: string, key: string): number {
  return output.split('\n').filter((line) => line.includes(`Redis key ${key} is damaged`)).length;
}

describe('a worker against a Redis a hostile neighbour wrote to', { skip, timeout: 120_000 }, () => {
  let h: Harness;

  describe('a deflate bomb', () => {
    before(async () => {
      h = await setUp('bomb', 3);
    });
    after(async () => tearDown(h));

    test('a stream entry that inflates to 200 MB is dropped and logged, the worker stays under 400 MB and admits the links sent after it', async () => {
      const seedHost = h.web.origins[0] as string;
      // Another partition than the seed's (the web's ports are the system's choice).
      const target = h.web.origins.find((origin) => partitionOf(origin) !== partitionOf(seedHost)) as string;
      const partition = partitionOf(target);
      await createCluster(h, [`${seedHost}/`]);
      await h.redis.xadd(h.keys.links(partition), '*', 'n', '200', 'd', deflateBomb(200));
      // Good links after the bomb, as another worker sends them.
      await new LinkStreams(h.redis, h.keys).send([{ url: `${target}/`, depth: 0, anchor: '', context: '', isSeed: true }]);
      const worker = startWorker(h);
      await waitUntil('pages of the partition behind the bomb', () => pagesInShard(h, partition).length > 0, worker);
      assert.equal((await runCli(['cluster', 'stop', '--redis', h.server.url, '--name', h.name])).code, 0);
      const result = await worker.done;
      assert.equal(result.code, 0, result.stderr);
      const { peakRssBytes } = JSON.parse(result.stdout) as { peakRssBytes: number };
      assert.ok(peakRssBytes < 400 * 1024 * 1024, `the worker's peak RSS was ${Math.round(peakRssBytes / 1024 / 1024)} MB`);
      assert.match(result.stderr, new RegExp(`partition ${partition}: dropped 1 link\\(s\\) read from \\S+ \\(entry \\S+: an entry that inflates past \\d+ bytes`));
      assert.equal(await h.redis.xlen(h.keys.links(partition)), 0, 'the bomb was not acknowledged and deleted');
      process.stdout.write(`# worker peak RSS with a 200 MB bomb: ${Math.round(peakRssBytes / 1024 / 1024)} MB\n`);
    });
  });

  describe('keys of the wrong type', () => {
    before(async () => {
      // Slow pages: the worker has read the seed, and has links yet to read, when a stream is damaged mid-crawl.
      h = await setUp('types', 6, 200);
    });
    after(async () => tearDown(h));

    test('a damaged stream, lease, labels or state key is named with its repair once, reported to the cluster, and the other partitions are crawled', async () => {
      await createCluster(h, h.web.seeds);
      const [streamPartition, laterStreamPartition, leasePartition] = partitionsWithoutHosts(h.web) as [number, number, number];
      const [streamKey, laterStreamKey] = [h.keys.links(streamPartition), h.keys.links(laterStreamPartition)];
      const leaseKey = h.keys.lease(leasePartition);
      const replaceWithList = async (key: string): Promise<void> => {
        await h.redis.del(key);
        await h.redis.lpush(key, 'not what Forager keeps here');
      };
      await replaceWithList(streamKey);
      await replaceWithList(leaseKey);
      await h.redis.set(h.keys.labels, 'not a hash');
      await h.redis.set(h.keys.labelsVersion, '1');
      const worker = startWorker(h);
      // Another partition's stream damaged once the worker owns it: the others' links must still be read.
      await waitUntil('the worker to take the partitions', () => /took \d+ partition/.test(worker.stderr()), worker);
      await replaceWithList(laterStreamKey);
      const stored = async (): Promise<number> => Number(await h.redis.get(h.keys.pagesStored));
      const everyPage = h.web.pageUrls().length;
      await waitUntil('every page of the web stored', async () => (await stored()) >= everyPage, worker);

      // The state key damaged mid-crawl: the worker goes on as it was, and says so.
      await h.redis.del(h.keys.state);
      await h.redis.lpush(h.keys.state, 'running');
      await waitUntil('the damaged state said', () => linesNaming(worker.stderr(), h.keys.state) > 0, worker, 10_000);
      // A few more control turns (two a second) with every key still damaged.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal(worker.child.exitCode, null, 'the worker stopped');
      await h.redis.del(h.keys.state);
      await h.redis.set(h.keys.state, 'stopped');
      const result = await worker.done;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /the crawl was stopped/);

      for (const key of [streamKey, laterStreamKey, leaseKey, h.keys.labels, h.keys.state]) {
        assert.equal(linesNaming(result.stderr, key), 1, `lines naming ${key}:\n${result.stderr}`);
      }
      const said = result.stderr.split('\n').find((line) => line.includes(`Redis key ${streamKey} is damaged`)) ?? '';
      assert.match(said, /it should hold a stream of links .* but Redis says: WRONGTYPE/);
      assert.match(said, new RegExp(`redis-cli DEL ${streamKey.replace(/[{}]/g, '\\$&')}.*forager cluster delete --name types`));
      const errors = await h.redis.lrange(h.keys.errors, 0, -1);
      for (const key of [streamKey, laterStreamKey, leaseKey, h.keys.labels, h.keys.state]) {
        assert.ok(errors.some((e) => e.includes(`Redis key ${key} is damaged`)), `the cluster's errors do not name ${key}: ${errors.join('\n')}`);
      }
      assert.ok(result.stderr.split('\n').length < 40, `the worker said too much:\n${result.stderr}`);
    });
  });
});
