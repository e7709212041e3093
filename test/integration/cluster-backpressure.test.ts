/*
 * Backpressure per destination, end to end: a real redis-server, real `forager worker`
 * processes, a loopback web of 200 hosts. One partition's home is down (no worker of its
 * home is running, so nobody leases it) and its stream is full. The links for it must wait
 * in the senders' outboxes while every other partition is crawled; once its stream drains,
 * the held links are delivered, and when its home comes back the crawl ends whole.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../crawler/cluster/cluster-keys.ts';
import { decodeLinks, encodeLinks } from '../../crawler/cluster/link-streams.ts';
import { MAX_STREAM_BACKLOG } from '../../crawler/cluster/link-traffic.ts';
import { partitionOf } from '../../crawler/cluster/partition.ts';
import { runCli, spawnCli, type RunningCli } from '../support/cli.ts';
import { startManyHostWeb, type ManyHostWeb, type PageRef } from '../support/many-host-web.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const HOSTS = 200;
const PAGES_PER_HOST = 3;
const LEASE_MS = 3000;
/** The home of the partition whose machine is down. */
const AWAY_HOME = 'machine-down:/data';

interface StatusJson {
  state: string;
  heldBack?: { partition: number; links: number }[];
  workers: { id: string; outbox: number; heldBack?: { partition: number; links: number }[] }[];
}

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

/** "hostIndex path" of a page, as the web's log and the merged collection name it. */
function pageKey(ref: PageRef): string {
  return `${ref.host} ${ref.page === 0 ? '/' : `/p/${ref.page}`}`;
}

/** The pages reachable from the seeds without passing through a host of `away`, and the pages of `away` they link to. */
function reachableAvoiding(web: ManyHostWeb, away: ReadonlySet<number>): { crawlable: Set<string>; linkedAway: Set<string> } {
  const crawlable = new Set<string>();
  const linkedAway = new Set<string>();
  const queue: PageRef[] = web.plan.seedHosts.filter((host) => !away.has(host)).map((host) => ({ host, page: 0 }));
  for (const ref of queue) crawlable.add(pageKey(ref));
  while (queue.length > 0) {
    const ref = queue.shift() as PageRef;
    for (const target of web.plan.linksOf(ref.host, ref.page)) {
      const key = pageKey(target);
      if (away.has(target.host)) linkedAway.add(key);
      else if (!crawlable.has(key)) {
        crawlable.add(key);
        queue.push(target);
      }
    }
  }
  return { crawlable, linkedAway };
}

function keyOfUrl(web: ManyHostWeb, url: string): string {
  const parsed = new URL(url);
  return `${web.hostIndex(parsed.origin)} ${parsed.pathname}`;
}

async function waitUntil(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('backpressure per destination', { skip, timeout: 600_000 }, () => {
  let web: ManyHostWeb;
  let server: RedisServer;
  let redis: Redis;
  let dir: string;
  const workers: RunningCli[] = [];
  before(async () => {
    web = await startManyHostWeb({ hosts: HOSTS, pagesPerHost: PAGES_PER_HOST, seed: 11 });
    server = await startRedisServer();
    redis = server.client();
    dir = mkdtempSync(join(tmpdir(), 'forager-backpressure-'));
  });
  after(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.done));
    redis.disconnect();
    await web.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Defines the cluster, makes `away`'s home a machine that is down and fills its stream past the bound; returns the filler's entry ids. */
  async function createWithFullPartition(name: string, away: number, fillerUrl: string, maxPages: number): Promise<string[]> {
    const keys = new ClusterKeys(name);
    const created = await runCli(['cluster', 'create', '--redis', server.url, '--name', name, '--lease-ms', String(LEASE_MS),
      '--query', 'test pages', ...web.seeds.flatMap((seed) => ['--seed', seed]),
      '--allow-private', '--scope', 'any', '--max-pages', String(maxPages), '--delay-ms', '20', '--delay-factor', '0']);
    assert.equal(created.code, 0, created.stderr);
    await redis.set(keys.home(away), AWAY_HOME);
    const filler = encodeLinks([{ url: fillerUrl, depth: 1, anchor: '', context: '', isSeed: false }]);
    const fill = redis.pipeline();
    for (let i = 0; i <= MAX_STREAM_BACKLOG; i++) fill.xadd(keys.links(away), '*', 'n', '1', 'd', filler);
    return ((await fill.exec()) ?? []).map(([err, id]) => {
      assert.equal(err, null);
      return id as string;
    });
  }

  function startWorker(name: string, shards: string, home?: string): RunningCli {
    const worker = spawnCli(['worker', '--redis', server.url, '--name', name, '--dir', shards, '--parse-workers', '0', ...(home === undefined ? [] : ['--home', home])], { timeoutMs: 300_000 });
    workers.push(worker);
    return worker;
  }

  /** The hosts of each partition that holds no seed. */
  function hostsByPartition(): Map<number, number[]> {
    const seeded = new Set(web.plan.seedHosts.map((host) => partitionOf(`${web.origins[host]}/`)));
    const hostsOf = new Map<number, number[]>();
    for (const [host, origin] of web.origins.entries()) {
      const p = partitionOf(`${origin}/`);
      if (!seeded.has(p)) hostsOf.set(p, [...(hostsOf.get(p) ?? []), host]);
    }
    return hostsOf;
  }

  /** The partition with the most hosts among those holding no seed: many pages link to it. */
  function busiestUnseededPartition(): number {
    return ([...hostsByPartition()].sort(([a, x], [b, y]) => y.length - x.length || a - b)[0] as [number, number[]])[0];
  }

  test('a partition whose stream is full holds only its own links: the others are crawled, its links survive kill -9 and are delivered once it drains, and the crawl ends whole', async () => {
    const name = 'held';
    const keys = new ClusterKeys(name);
    const away = busiestUnseededPartition();
    const awayHosts = hostsByPartition().get(away) as number[];
    const { crawlable, linkedAway } = reachableAvoiding(web, new Set(awayHosts));
    assert.ok(linkedAway.size > 0, 'no page links to the partition held back: the test proves nothing');

    // Its shard lives on a machine that is down (no worker of that home runs), and its stream is past the bound.
    const fillerIds = await createWithFullPartition(name, away, `${web.origins[awayHosts[0] as number]}/`, 5000);

    const shardsA = join(dir, 'machine-a');
    const first = startWorker(name, shardsA);
    const requested = (): Set<string> => new Set(web.log.filter((e) => e.kind === 'page' && e.status === 200).map((e) => keyOfUrl(web, `${e.origin}${e.path}`)));
    const status = async (): Promise<StatusJson> => {
      const result = await runCli(['cluster', 'status', '--redis', server.url, '--name', name, '--json']);
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout) as StatusJson;
    };

    // Every page that does not need the held partition is crawled meanwhile.
    await waitUntil('the pages outside the held partition to be crawled', () => [...crawlable].every((page) => requested().has(page)));
    assert.ok(web.log.every((e) => !awayHosts.includes(web.hostIndex(e.origin))), 'a host of the partition nobody leases was asked');
    // Its links wait in the outbox, said in the status: the worker measured the streams before its first send, so the full one took none.
    const stream = keys.links(away);
    assert.equal(await redis.xlen(stream), fillerIds.length, 'links were sent to the full stream');
    const heldNow = async (): Promise<number> => (await status()).heldBack?.find((h) => h.partition === away)?.links ?? 0;
    await waitUntil('the held links in the status', async () => (await heldNow()) > 0, 15_000);
    const heldAtKill = await heldNow();
    const text = await runCli(['cluster', 'status', '--redis', server.url, '--name', name]);
    assert.match(text.stdout, new RegExp(`\\d+ links held for partition ${away} \\(its stream is full\\)`));

    // kill -9 while links are held: the worker started again on the same disk holds them again, and sends none to the full stream.
    first.child.kill('SIGKILL');
    await first.done;
    const again = startWorker(name, shardsA);
    let againId = '';
    await waitUntil('the restarted worker to join', () => {
      againId = /worker (\S+) joined/.exec(again.stderr())?.[1] ?? '';
      return againId !== '';
    }, 30_000);
    const statusOfAgain = async (): Promise<StatusJson['workers'][number] | undefined> => (await status()).workers.find((w) => w.id === againId);
    // It opens its shards a few a tick: the links held show as they do.
    let heldAgain = 0;
    await waitUntil(`the restarted worker to hold the ${heldAtKill} links the killed one held`, async () => {
      heldAgain = (await statusOfAgain())?.heldBack?.find((h) => h.partition === away)?.links ?? 0;
      return heldAgain >= heldAtKill;
    }, 60_000);
    assert.equal(heldAgain, heldAtKill);
    assert.equal(await redis.xlen(stream), fillerIds.length, 'links were sent to the full stream after the restart');

    // The stream drains (its filler read by nobody, deleted): the held links are delivered within a few seconds.
    await redis.xdel(stream, ...fillerIds);
    const delivered = new Set<string>();
    await waitUntil('the held links to be sent', async () => {
      for (const [, fields] of await redis.xrangeBuffer(stream, '-', '+')) {
        for (const link of decodeLinks(fields[3] as Buffer) ?? []) delivered.add(keyOfUrl(web, link.url));
      }
      const worker = await statusOfAgain();
      return worker !== undefined && worker.outbox === 0 && (worker.heldBack ?? []).length === 0 && [...linkedAway].every((page) => delivered.has(page));
    }, 30_000);
    assert.deepEqual([...delivered].sort(), [...linkedAway].sort());

    // Its home comes back: the crawl ends, and the shards of both homes hold every page once.
    const shardsB = join(dir, 'machine-b');
    const second = startWorker(name, shardsB, AWAY_HOME);
    for (const worker of [again, second]) {
      const result = await worker.done;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /the crawl is finished/);
    }
    const gathered = join(dir, 'shards');
    mkdirSync(gathered);
    for (const from of [shardsA, shardsB]) for (const file of readdirSync(from).filter((f) => f.endsWith('.forager'))) copyFileSync(join(from, file), join(gathered, file));
    const merged = join(dir, 'merged.forager');
    const merge = await runCli(['merge', '--dir', gathered, '--db', merged], { timeoutMs: 60_000 });
    assert.equal(merge.code, 0, merge.stderr);
    const db = new Database(merged, { readonly: true });
    try {
      const pages = (db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[]).map((url) => keyOfUrl(web, url)).filter((p) => !p.endsWith('/sitemap.xml'));
      assert.equal(new Set(pages).size, pages.length, 'a page is stored twice');
      assert.deepEqual(pages.sort(), web.pageUrls().map((url) => keyOfUrl(web, url)).sort());
    } finally {
      db.close();
    }
  });

  test('a crawl whose budget is spent finishes though links wait for a partition whose stream is full, and sends them as it ends', async () => {
    const name = 'budget';
    const away = busiestUnseededPartition();
    const fillerIds = await createWithFullPartition(name, away, `${web.origins[(hostsByPartition().get(away) as number[])[0] as number]}/`, 200);
    const worker = startWorker(name, join(dir, 'budget'));
    await waitUntil('the worker to end the crawl', () => worker.child.exitCode !== null || worker.child.signalCode !== null, 90_000);
    const result = await worker.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /the crawl is finished/);
    assert.match(result.stderr, new RegExp(`partition ${away}: its stream holds \\d+ batches, over ${MAX_STREAM_BACKLOG}; links for it wait`));
    // Links were held when the crawl finished (the stream was full from the start, so nothing else sent it any): the worker sent them as it closed its shards.
    const sent = (await redis.xlen(new ClusterKeys(name).links(away))) - fillerIds.length;
    assert.ok(sent >= 1, 'no link was held when the crawl finished: the test proves nothing');
  });
});
