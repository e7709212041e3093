/*
 * The crawl cluster end to end: real redis-server, real `forager worker` processes, a
 * loopback web of 200 hosts whose request log is the witness. Each test defines its own
 * cluster on its own Redis and web, so nothing carries over.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ClusterKeys } from '../../crawler/cluster/cluster-keys.ts';
import { runCli, spawnCli, type RunningCli } from '../support/cli.ts';
import { describeViolations, pagesRequestedTwice, politenessViolations, startManyHostWeb, type ManyHostWeb } from '../support/many-host-web.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { stoppedLockHolder } from '../support/stopped-lock-holder.ts';

const HOSTS = 200;
const PAGES_PER_HOST = 3;
const DELAY_MS = 100;
const LEASE_MS = 3000;
/** Slack for the witness's clock: the web's log runs in the test process, which shares two cores with the crawlers. */
const LOG_LAG_MS = 10;

interface Harness {
  web: ManyHostWeb;
  redis: RedisServer;
  dir: string;
  name: string;
}

async function setUp(name: string, options: { appendonly?: boolean; latencyMs?: number; pagesPerHost?: number } = {}): Promise<Harness> {
  const web = await startManyHostWeb({ hosts: HOSTS, pagesPerHost: options.pagesPerHost ?? PAGES_PER_HOST, seed: 7, latencyMs: options.latencyMs ?? 0 });
  const redis = await startRedisServer({ appendonly: options.appendonly ?? false, ...(options.appendonly === true ? { appendfsync: 'always' as const } : {}) });
  const dir = mkdtempSync(join(tmpdir(), 'forager-cluster-'));
  return { web, redis, dir, name };
}

async function tearDown(h: Harness): Promise<void> {
  await h.web.close();
  await h.redis.close();
  rmSync(h.dir, { recursive: true, force: true });
}

function crawlFlags(h: Harness): string[] {
  return [
    '--query', 'test pages', ...h.web.seeds.flatMap((seed) => ['--seed', seed]),
    '--allow-private', '--scope', 'any', '--max-pages', '5000', '--delay-ms', String(DELAY_MS), '--delay-factor', '0',
  ];
}

async function createCluster(h: Harness): Promise<void> {
  const created = await runCli(['cluster', 'create', '--redis', h.redis.url, '--name', h.name, '--lease-ms', String(LEASE_MS), ...crawlFlags(h)]);
  assert.equal(created.code, 0, created.stderr);
}

function startWorker(h: Harness, dir = join(h.dir, 'shards')): RunningCli {
  return spawnCli(['worker', '--redis', h.redis.url, '--name', h.name, '--dir', dir, '--parse-workers', '0'], { timeoutMs: 170_000 });
}

interface StatusJson {
  state: string;
  pagesStored: number;
  leased: number;
  workers: { id: string; partitions: number; pagesStored: number; paused: boolean; inProgress: number }[];
}

async function status(h: Harness): Promise<StatusJson> {
  const result = await runCli(['cluster', 'status', '--redis', h.redis.url, '--name', h.name, '--json']);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as StatusJson;
}

async function waitUntil(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 90_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Merges the shards and returns the merged collection's fetched pages as "hostIndex path", and the merge's output. */
async function mergedPages(h: Harness, web: ManyHostWeb = h.web): Promise<{ pages: string[]; output: string; path: string }> {
  const out = join(h.dir, `merged-${Date.now()}.forager`);
  const merged = await runCli(['merge', '--dir', join(h.dir, 'shards'), '--db', out], { timeoutMs: 60_000 });
  assert.equal(merged.code, 0, merged.stderr);
  return { pages: pagesOf(out, web), output: merged.stdout, path: out };
}

function pagesOf(dbPath: string, web: ManyHostWeb): string[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    const urls = db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[];
    return urls.map((url) => `${web.hostIndex(new URL(url).origin)} ${new URL(url).pathname}`).sort();
  } finally {
    db.close();
  }
}

/** Every page of the web, as "hostIndex path": what a crawl to the end must hold (404 probes aside). */
function everyPage(web: ManyHostWeb): string[] {
  return web.pageUrls().map((url) => `${web.hostIndex(new URL(url).origin)} ${new URL(url).pathname}`).sort();
}

function htmlPages(pages: readonly string[]): string[] {
  return pages.filter((p) => !p.endsWith('/sitemap.xml'));
}

async function finished(workers: readonly RunningCli[]): Promise<void> {
  for (const worker of workers) {
    const result = await worker.done;
    assert.equal(result.code, 0, `worker exited ${result.code} (${result.signal ?? ''}): ${result.stderr}`);
    assert.match(result.stderr, /the crawl is finished/);
  }
}

// CI installs redis-server (.ci/run); elsewhere the suite says why it did not run.
const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

describe('crawl cluster on Redis', { skip, timeout: 600_000 }, () => {
  let h: Harness;

  describe('three workers to the end', () => {
    before(async () => {
      h = await setUp('three');
    });
    after(async () => tearDown(h));

    test('the merged shards hold exactly the pages a single-process crawl of the same web holds, each once, politely', async () => {
      await createCluster(h);
      const workers = [startWorker(h), startWorker(h), startWorker(h)];
      await finished(workers);
      const { pages, output } = await mergedPages(h);
      assert.match(output, / 0 conflicts/);
      assert.equal(new Set(pages).size, pages.length, 'a page is stored twice');
      assert.deepEqual(htmlPages(pages), everyPage(h.web));

      // The same web crawled by one ordinary process (its own servers, the same plan): the same pages.
      const single = await startManyHostWeb({ hosts: HOSTS, pagesPerHost: PAGES_PER_HOST, seed: 7 });
      try {
        const dbPath = join(h.dir, 'single.forager');
        const flags = crawlFlags({ ...h, web: single });
        const crawled = await runCli(['crawl', '--db', dbPath, ...flags], { timeoutMs: 120_000 });
        assert.equal(crawled.code, 0, crawled.stderr);
        assert.deepEqual(pages, pagesOf(dbPath, single));
      } finally {
        await single.close();
      }

      // The witness: one request per host at a time, and the delay between them, across all workers.
      // The log's end of a response is when this busy test process saw it written, a few ms after the crawler had it.
      const violations = politenessViolations(h.web.log, { minGapMs: DELAY_MS, toleranceMs: LOG_LAG_MS });
      assert.equal(violations.length, 0, describeViolations(violations));
      assert.deepEqual(pagesRequestedTwice(h.web.log), []);
      const final = await status(h);
      assert.equal(final.state, 'finished');
    });
  });

  describe('a worker killed and a worker joining', () => {
    before(async () => {
      h = await setUp('churn', { latencyMs: 20 });
    });
    after(async () => tearDown(h));

    test('kill -9 mid-crawl moves its partitions within the lease time, a joiner takes some and contributes, nothing committed is lost or stored twice', async () => {
      await createCluster(h);
      const first = startWorker(h);
      const victim = startWorker(h);
      await waitUntil('both workers holding partitions and pages stored', async () => {
        const s = await status(h);
        return s.workers.length === 2 && s.workers.every((w) => w.partitions > 0) && s.pagesStored >= 80;
      });
      victim.child.kill('SIGKILL');
      const killedAt = Date.now();
      // Paused right after, so that the survivor does not finish the crawl alone before the joiner comes.
      assert.equal((await runCli(['cluster', 'pause', '--redis', h.redis.url, '--name', h.name])).code, 0);
      await victim.done;
      await waitUntil('the dead worker\'s partitions to move', async () => {
        const s = await status(h);
        return s.workers.length === 1 && s.leased === 256;
      }, LEASE_MS * 6);
      const movedAfterMs = Date.now() - killedAt;
      assert.ok(movedAfterMs < LEASE_MS * 4, `partitions moved after ${movedAfterMs} ms`);

      const joiner = startWorker(h);
      await waitUntil('the joiner to hold its share', async () => {
        const s = await status(h);
        return s.workers.length === 2 && s.workers.every((w) => w.partitions === 128);
      });
      assert.equal((await runCli(['cluster', 'resume', '--redis', h.redis.url, '--name', h.name])).code, 0);
      let joinerPages = 0;
      await waitUntil('the crawl to end', async () => {
        const s = await status(h);
        for (const w of s.workers) if (w.id !== undefined && joiner.stderr().includes(w.id)) joinerPages = Math.max(joinerPages, w.pagesStored);
        return s.state === 'finished';
      });
      await finished([first, joiner]);
      assert.ok(joinerPages > 0, 'the joiner stored no page');

      const { pages, output } = await mergedPages(h);
      assert.match(output, / 0 conflicts/);
      assert.equal(new Set(pages).size, pages.length, 'a page is stored twice');
      assert.deepEqual(htmlPages(pages), everyPage(h.web));
    });
  });

  describe('Redis restarted mid-crawl', () => {
    before(async () => {
      h = await setUp('restart', { appendonly: true, latencyMs: 20 });
    });
    after(async () => tearDown(h));

    test('the workers wait, reconnect and finish the crawl', async () => {
      await createCluster(h);
      const workers = [startWorker(h), startWorker(h)];
      await waitUntil('pages stored', async () => (await status(h)).pagesStored >= 100);
      await h.redis.restart();
      await finished(workers);
      for (const worker of workers) assert.match(worker.stderr(), /answers again/);
      const { pages } = await mergedPages(h);
      assert.equal(new Set(pages).size, pages.length, 'a page is stored twice');
      assert.deepEqual(htmlPages(pages), everyPage(h.web));
    });
  });

  describe('the epoch fence', () => {
    before(async () => {
      h = await setUp('fence', { latencyMs: 30 });
    });
    after(async () => tearDown(h));

    test('a worker paused past its lease stops writing to the shards another worker took over', async () => {
      await createCluster(h);
      const sleeper = startWorker(h);
      await waitUntil('pages stored', async () => (await status(h)).pagesStored >= 60);
      sleeper.child.kill('SIGSTOP');
      // A stop lands inside one of the sleeper's write transactions about a third of the time: one
      // of its shards is always held so here, by a stopped process, and must not freeze the taker.
      const shards = join(h.dir, 'shards');
      const lockHolder = await stoppedLockHolder(readdirSync(shards).filter((f) => f.endsWith('.forager')).map((f) => join(shards, f)));
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));
      const taker = startWorker(h);
      await waitUntil('the new worker to hold every partition', async () => {
        const s = await status(h);
        return s.leased === 256 && s.workers.some((w) => w.partitions === 256);
      });
      try {
        await waitUntil('the new worker to store pages', async () => (await status(h)).workers.some((w) => w.partitions === 256 && w.pagesStored > 0));
      } finally {
        lockHolder.kill('SIGKILL');
      }
      sleeper.child.kill('SIGCONT');
      await waitUntil('the woken worker to notice', () => /lost the lease|epoch fence/.test(sleeper.stderr()), 30_000);
      await finished([taker]);
      sleeper.child.kill('SIGTERM');
      await sleeper.done;
      const { pages, output } = await mergedPages(h);
      assert.match(output, / 0 conflicts/);
      assert.equal(new Set(pages).size, pages.length, 'a page is stored twice');
      assert.deepEqual(htmlPages(pages), everyPage(h.web));
    });
  });

  describe('pause, resume and stop', () => {
    before(async () => {
      h = await setUp('control', { latencyMs: 150, pagesPerHost: 10 });
    });
    after(async () => tearDown(h));

    test('reach every worker', async () => {
      await createCluster(h);
      const workers = [startWorker(h), startWorker(h)];
      await waitUntil('pages stored', async () => (await status(h)).pagesStored >= 40);
      assert.equal((await runCli(['cluster', 'pause', '--redis', h.redis.url, '--name', h.name])).code, 0);
      // Every worker says it is paused, with no page in progress (a busy machine may take it a few seconds to read the state)...
      await waitUntil('every worker paused', async () => {
        const s = await status(h);
        return s.workers.length === 2 && s.workers.every((w) => w.paused && w.inProgress === 0);
      }, 20_000);
      // ...and from then on asks no host anything.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const requestsAtPause = h.web.log.length;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(h.web.log.length, requestsAtPause, `requests were made while the cluster was paused: ${JSON.stringify(h.web.log.slice(requestsAtPause))}`);

      assert.equal((await runCli(['cluster', 'resume', '--redis', h.redis.url, '--name', h.name])).code, 0);
      await waitUntil('requests again', () => h.web.log.length > requestsAtPause, 10_000);

      // Stopped while paused, so that the crawl cannot have ended by itself meanwhile (paused through Redis
      // itself, at once: the command's start-up is a second of crawling).
      const redis = h.redis.client();
      await redis.set(new ClusterKeys(h.name).state, 'paused');
      redis.disconnect();
      // A label reaches the worker that owns the page, paused or not.
      const labelled = await runCli(['cluster', 'label', '--redis', h.redis.url, '--name', h.name, '--url', h.web.seeds[0] as string, '--irrelevant']);
      assert.equal(labelled.code, 0, labelled.stderr);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal((await runCli(['cluster', 'stop', '--redis', h.redis.url, '--name', h.name])).code, 0);
      for (const worker of workers) {
        const result = await worker.done;
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stderr, /the crawl was stopped/);
      }
      assert.equal((await status(h)).state, 'stopped');
      const { pages, path } = await mergedPages(h);
      assert.equal(new Set(pages).size, pages.length);
      assert.ok(pages.length < everyPage(h.web).length, 'the stop came after the crawl ended: the test proves nothing');
      const merged = new Database(path, { readonly: true });
      try {
        const row = merged.prepare('SELECT l.relevant, p.hot FROM labels l JOIN urls u ON u.id = l.url_id JOIN pages p ON p.url_id = u.id WHERE u.url = ?').get(h.web.seeds[0]) as { relevant: number; hot: number } | undefined;
        assert.deepEqual(row, { relevant: 0, hot: 0 });
      } finally {
        merged.close();
      }
    });
  });

  describe('workers with disks of their own', () => {
    before(async () => {
      h = await setUp('homes');
    });
    after(async () => tearDown(h));

    test('a partition\'s shard is made at one home only, and the shards of both homes make the whole crawl', async () => {
      await createCluster(h);
      const dirs = [join(h.dir, 'machine-a'), join(h.dir, 'machine-b')];
      await finished(dirs.map((dir) => startWorker(h, dir)));
      const shardsOf = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.forager'));
      const [a, b] = dirs.map(shardsOf) as [string[], string[]];
      assert.ok(a.length > 0 && b.length > 0, `shards: ${a.length} and ${b.length}`);
      assert.deepEqual(a.filter((f) => b.includes(f)), [], 'a partition has shards at two homes');
      // The user gathers both machines' shards in one folder, then merges.
      const gathered = join(h.dir, 'shards');
      mkdirSync(gathered);
      for (const dir of dirs) for (const file of shardsOf(dir)) copyFileSync(join(dir, file), join(gathered, file));
      const { pages } = await mergedPages(h);
      assert.equal(new Set(pages).size, pages.length);
      assert.deepEqual(htmlPages(pages), everyPage(h.web));
    });
  });

  test('a Redis that is not there is a clear error for a command', async () => {
    const result = await runCli(['cluster', 'status', '--redis', 'redis://127.0.0.1:1', '--name', 'none']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /cannot reach Redis at 127\.0\.0\.1:1/);
  });
});
