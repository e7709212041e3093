/*
 * `forager serve --shards DIR`: a real cluster's shards (redis-server, two `forager worker`
 * processes, a loopback web of 40 hosts) read in place, checked against `forager merge`'s
 * one collection of the same shards: the top pages by relevance and search hits, a URL's
 * page read from its owner shard, writes refused, a shard that appears later picked up, and
 * a stored page shown over HTTP by the real CLI with its token.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { partitionOf } from '../../crawler/cluster/partition.ts';
import { ForagerError } from '../../crawler/errors.ts';
import { mergeShards } from '../../crawler/merge/merge-shards.ts';
import type { ApiReply } from '../../crawler/protocol/wire.ts';
import type { ForagerApi, PageList, SearchResult } from '../../crawler/protocol/api.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import { findPage } from '../../crawler/service/shard-pages.ts';
import { ShardService } from '../../crawler/service/shard-service.ts';
import { setLabel } from '../../crawler/library/labels.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { PARTITIONS } from '../../crawler/store/shard-names.ts';
import { runCli, spawnCli, type RunningCli } from '../support/cli.ts';
import { startManyHostWeb, type ManyHostWeb } from '../support/many-host-web.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const QUERY = 'database garden';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

/** What two lists must agree on, page for page. */
function listed(list: PageList): string[] {
  return list.pages.map((p) => `${p.url} ${p.relevance} ${p.title}`);
}

/**
 * A relevance-sorted window as the merged file gives it, up to the order of pages of equal
 * relevance from different shards. The merged file orders such ties by its merged fetch order,
 * which keeps each shard's own order where a shard's concurrent fetches completed out of
 * order; the shards, read apart, order them by fetch time. So: the same relevances in the same
 * order, the same pages for every relevance wholly inside the window, and the same number of
 * pages for the first (unless the window starts at the top) and last: a window may cut a run
 * of ties at either end.
 */
function assertSameRelevanceOrder(across: PageList, one: PageList, what: string, fromStart = false): void {
  assert.deepEqual(across.pages.map((p) => p.relevance), one.pages.map((p) => p.relevance), `${what}: the relevance order`);
  const groups = (list: PageList): string[][] => {
    const out: { relevance: number | null; pages: string[] }[] = [];
    for (const p of list.pages) {
      const last = out.at(-1);
      if (last !== undefined && last.relevance === p.relevance) last.pages.push(`${p.url} ${p.title}`);
      else out.push({ relevance: p.relevance, pages: [`${p.url} ${p.title}`] });
    }
    return out.map((g) => g.pages.sort());
  };
  const a = groups(across);
  const b = groups(one);
  for (let i = fromStart ? 0 : 1; i < a.length - 1; i++) assert.deepEqual(a[i], b[i], `${what}: the pages of one relevance, group ${i}`);
}

async function refusesReadOnly(call: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof ForagerError, String(err));
    assert.equal(err.code, 'READ_ONLY');
    assert.match(err.message, pattern);
    return true;
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function raw(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('forager serve --shards: a cluster\'s shards read without a merge', { skip, timeout: 300_000 }, () => {
  let web: ManyHostWeb;
  let redis: RedisServer;
  let dir: string;
  let shardsDir: string;
  let mergedPath: string;
  let shards: ShardService;
  let merged: ForagerService;
  let id: string;

  before(async () => {
    web = await startManyHostWeb({ hosts: 40, pagesPerHost: 4, seed: 11 });
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), 'forager-serve-shards-'));
    shardsDir = join(dir, 'shards');
    const flags = ['--query', QUERY, ...web.seeds.flatMap((seed) => ['--seed', seed]), '--allow-private', '--scope', 'any', '--max-pages', '5000', '--delay-ms', '0', '--delay-factor', '0'];
    const created = await runCli(['cluster', 'create', '--redis', redis.url, '--name', 'shards', ...flags]);
    assert.equal(created.code, 0, created.stderr);
    const workers: RunningCli[] = [0, 1].map(() => spawnCli(['worker', '--redis', redis.url, '--name', 'shards', '--dir', shardsDir, '--parse-workers', '0'], { timeoutMs: 170_000 }));
    for (const worker of workers) {
      const result = await worker.done;
      assert.equal(result.code, 0, `worker exited ${result.code}: ${result.stderr}`);
    }
    mergedPath = join(dir, 'merged.forager');
    const summary = mergeShards(shardsDir, mergedPath);
    assert.equal(summary.conflicts, 0);
    assert.ok(summary.pages >= 150, `the cluster stored ${summary.pages} pages of 160`);
    assert.ok(summary.shards >= 10, `only ${summary.shards} shards`);
    shards = new ShardService(shardsDir, { redis: redis.url, name: 'shards' });
    merged = new ForagerService({ db: mergedPath });
    id = shards.shards.id;
  });

  after(async () => {
    await shards?.close();
    await merged?.close();
    await web?.close();
    await redis?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('the page list across the shards is the merged collection\'s: top 100 by relevance, later pages, every sort', async () => {
    const mergedId = (await merged.listCollections())[0]?.id as string;
    const top = await shards.listPages({ collection: id, sort: 'relevance', limit: 100 });
    const mergedTop = await merged.listPages({ collection: mergedId, sort: 'relevance', limit: 100 });
    assert.equal(top.pages.length, 100);
    assert.equal(top.total, mergedTop.total);
    assertSameRelevanceOrder(top, mergedTop, 'top 100', true);
    assert.ok(new Set(top.pages.map((p) => p.relevance)).size > 10, 'the relevance order is tested on pages that differ');
    for (const query of [
      { sort: 'relevance' as const, offset: 60, limit: 50 },
      { sort: 'url' as const, limit: 100 },
      { sort: 'relevance' as const, filter: '/p/2', limit: 30 },
      { sort: 'relevance' as const, hotOnly: true, limit: 40 },
    ]) {
      const across = await shards.listPages({ collection: id, ...query });
      const one = await merged.listPages({ collection: mergedId, ...query });
      assert.equal(across.total, one.total, JSON.stringify(query));
      if (query.sort === 'relevance') assertSameRelevanceOrder(across, one, JSON.stringify(query));
      else assert.deepEqual(listed(across), listed(one), JSON.stringify(query));
    }
    // Newest first: the same pages; each shard's own in its own order (across shards by fetch time, which
    // a shard's concurrent fetches can leave a little out of the merged file's order).
    const newest = await shards.listPages({ collection: id, sort: 'time', limit: 500 });
    const mergedNewest = await merged.listPages({ collection: mergedId, sort: 'time', limit: 500 });
    assert.deepEqual(listed(newest).sort(), listed(mergedNewest).sort());
    const lastOfShard = new Map<number, number>();
    for (const page of newest.pages) {
      assert.ok(page.seq < (lastOfShard.get(page.seq % PARTITIONS) ?? Number.POSITIVE_INFINITY), 'a shard\'s pages newest first');
      lastOfShard.set(page.seq % PARTITIONS, page.seq);
    }
    const shardCount = readdirSync(shardsDir).filter((n) => n.endsWith('.forager')).length;
    assert.equal((await shards.info()).location, `${shardsDir} (${shardCount} shards, read-only)`);
    assert.equal((await shards.info()).readOnly, true, 'the app is told to offer no crawl');
    assert.equal((await merged.info()).readOnly, false);
    // The Cluster screen: the live status of the cluster that wrote the shards, beside them.
    assert.deepEqual((await shards.info()).cluster, { name: 'shards' });
    const status = await shards.clusterStatus();
    assert.ok(status.configured, 'the cluster is watched');
    assert.equal(status.status.pagesStored, top.total);
    const [info] = await shards.listCollections();
    assert.equal(info?.pages, top.total);
    assert.equal(info?.query, QUERY);
  });

  test('full-text search ranks across the shards as the merged collection does, on the crawl\'s word statistics', async () => {
    const mergedId = (await merged.listCollections())[0]?.id as string;
    for (const text of ['database', 'garden compost', 'telescope', 'host', 'the garden of a database']) {
      const across = await shards.searchPages({ collection: id, text, limit: 100 });
      const one = await merged.searchPages({ collection: mergedId, text, limit: 100 });
      assert.ok(one.length > 0, `no hit for ${text}`);
      const hit = (r: SearchResult): string => `${r.url} ${r.relevance} ${r.title} ${r.snippet} ${r.version}`;
      assert.deepEqual(across.map(hit), one.map(hit), text);
      // With earlier versions, each shard's own scores: the same hits, in an order of their own.
      const withVersions = await shards.searchPages({ collection: id, text, limit: 500, allVersions: true });
      assert.deepEqual(withVersions.map(hit).sort(), (await merged.searchPages({ collection: mergedId, text, limit: 500, allVersions: true })).map(hit).sort());
      for (const r of across) assert.equal(r.seq % PARTITIONS, partitionOf(r.url), 'a hit is numbered by its own shard');
    }
  });

  test('a URL\'s page is read from its owner shard, and its number leads back to it', async () => {
    const db = openCollection(mergedPath, { create: false, readonly: true });
    const urls = db.prepare('SELECT u.url, p.title, p.relevance FROM pages p JOIN urls u ON u.id = p.url_id').all() as { url: string; title: string | null; relevance: number | null }[];
    db.close();
    for (const { url, title, relevance } of urls) {
      const page = findPage(shards.shards, url);
      assert.ok(page !== undefined, `${url} not found in its owner shard`);
      assert.equal(page.url, url);
      assert.equal(page.seq % PARTITIONS, partitionOf(url));
      assert.deepEqual([page.title, page.relevance], [title, relevance]);
      const detail = await shards.getPage({ collection: id, seq: page.seq });
      assert.equal(detail.url, url);
    }
    assert.equal(findPage(shards.shards, 'http://127.0.0.1:9/never-crawled'), undefined);
    await assert.rejects(shards.getPage({ collection: id, seq: 7 * PARTITIONS + 255 }), /no page number/);
  });

  test('every write is refused with a typed read-only error; export and lab ask for a merge', async () => {
    const seq = (await shards.listPages({ collection: id, limit: 1 })).pages[0]?.seq as number;
    const api: ForagerApi = shards;
    await refusesReadOnly(() => api.startCrawl({ collection: id }), /read-only.*forager worker/);
    await refusesReadOnly(() => api.labelPage({ collection: id, seq, label: 'relevant' }), /cannot label a page/);
    await refusesReadOnly(() => api.deleteCollection({ collection: id }), /cannot delete/);
    await refusesReadOnly(() => api.refreshCollection({ collection: id }), /cannot refresh/);
    await assert.rejects(api.exportCollection({ collection: id, format: 'jsonl' }), /merge them first/);
    await assert.rejects(shards.listPages({ collection: 'other', limit: 1 }), (err: unknown) => err instanceof ForagerError && err.code === 'COLLECTION');
  });

  test('a shard written while it is served, and a shard that appears later, are read', async () => {
    const live = join(dir, 'live');
    mkdirSync(live);
    const names = readdirSync(shardsDir).filter((n) => n.endsWith('.forager')).sort();
    const [first, second] = names as [string, string];
    copyFileSync(join(shardsDir, first), join(live, first));
    const service = new ShardService(live);
    try {
      const before = await service.listPages({ collection: service.shards.id, limit: 500 });
      // A worker writes its shard meanwhile: a label, in the WAL of a connection left open.
      const writer = openCollection(join(live, first), { create: false });
      writer.pragma('wal_autocheckpoint = 0');
      const labelled = before.pages[0]?.url as string;
      setLabel(writer, labelled, 'relevant');
      const relabelled = await service.listPages({ collection: service.shards.id, limit: 500 });
      assert.equal(relabelled.pages.find((p) => p.url === labelled)?.label, 'relevant');
      copyFileSync(join(shardsDir, second), join(live, second));
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const after = await service.listPages({ collection: service.shards.id, limit: 500 });
      const secondPages = (await shards.listPages({ collection: id, limit: 500 })).pages.filter((p) => p.seq % PARTITIONS === Number(second.slice(6, 9))).length;
      assert.equal(after.total, before.total + secondPages);
      writer.close();
    } finally {
      await service.close();
    }
  });

  test('forager serve --shards --redis --cluster shows the list, a stored page and the cluster over HTTP, with its token, and refuses a crawl', async () => {
    const serve = spawnCli(['serve', '--shards', shardsDir, '--redis', redis.url, '--cluster', 'shards', '--port', '0'], { timeoutMs: 60_000 });
    try {
      const deadline = Date.now() + 20_000;
      while (!/Open http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.test(serve.stdout()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const match = /Open http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)/.exec(serve.stdout());
      assert.ok(match !== null, `serve printed no address: ${serve.stdout()} ${serve.stderr()}`);
      assert.match(serve.stdout(), /shards read-only|\(\d+ shards, read-only\)/);
      const port = Number(match[1]);
      const start = await raw(port, { path: `/?token=${match[2]}` });
      assert.equal(start.status, 303);
      const appRoot = start.headers.location as string;
      const cookie = String(start.headers['set-cookie']).split(';')[0] as string;
      const call = async (method: string, input: unknown): Promise<ApiReply> =>
        JSON.parse(
          (await raw(port, { method: 'POST', path: `${appRoot}api/${method}`, headers: { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` }, body: JSON.stringify(input) })).body,
        ) as ApiReply;
      const list = await call('listPages', { collection: id, sort: 'relevance', limit: 5 });
      assert.ok(list.ok, JSON.stringify(list));
      const page = (list.value as PageList).pages[0];
      assert.ok(page !== undefined);
      const detail = await call('getPage', { collection: id, seq: page.seq });
      assert.ok(detail.ok, JSON.stringify(detail));
      const viewPath = (detail.value as { viewPath: string | null }).viewPath;
      assert.ok(viewPath !== null);
      const stored = await raw(port, { path: `${appRoot}stored/${viewPath}`, headers: { cookie } });
      assert.equal(stored.status, 200, stored.body);
      assert.ok(stored.body.includes(page.title as string), 'the stored page shows its own title');
      // A host's index links to other hosts' pages, in other partitions: those links lead into the viewer, to pages read from their owner shards.
      const index = findPage(shards.shards, web.seeds[0] as string);
      assert.ok(index !== undefined);
      const indexPage = await raw(port, { path: `${appRoot}stored/${id}/${index.seq}`, headers: { cookie } });
      assert.equal(indexPage.status, 200, indexPage.body);
      const linked = [...indexPage.body.matchAll(new RegExp(`href="[^"]*/stored/k/[^"/]+/${id}/(\\d+)"`, 'g'))].map((m) => Number(m[1]));
      assert.ok(linked.some((seq) => seq % PARTITIONS !== index.seq % PARTITIONS), `no link into another shard among ${linked.length} links`);
      assert.match(serve.stdout(), /Showing crawl cluster "shards"/);
      const cluster = await call('clusterStatus', undefined);
      assert.ok(cluster.ok && (cluster.value as { configured: boolean }).configured, JSON.stringify(cluster));
      const refused = await call('startCrawl', { collection: id });
      assert.deepEqual(refused.ok ? null : refused.error.code, 'READ_ONLY');
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
  });
});

describe('forager serve --shards: what it refuses', () => {
  test('a missing directory, a file, and --shards beside --db are refused in words, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forager-serve-shards-bad-'));
    try {
      const missing = await runCli(['serve', '--shards', join(dir, 'nowhere'), '--port', '0']);
      assert.equal(missing.code, 2, missing.stderr);
      assert.match(missing.stderr, /--shards .*nowhere: no such directory/);
      const file = join(dir, 'shard-001.forager');
      copyFileSync(process.execPath, file);
      const notDir = await runCli(['serve', '--shards', file, '--port', '0']);
      assert.equal(notDir.code, 2, notDir.stderr);
      assert.match(notDir.stderr, /is a file; give the data directory/);
      const both = await runCli(['serve', '--shards', dir, '--db', file, '--port', '0']);
      assert.equal(both.code, 2, both.stderr);
      assert.match(both.stderr, /give one of --dir DIR, --db FILE or --shards DIR, not --db FILE and --shards DIR/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a shard that is no collection is reported beside the readable ones, not in their way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forager-serve-shards-damaged-'));
    const service = new ShardService(dir);
    try {
      assert.deepEqual((await service.listPages({ collection: service.shards.id, limit: 10 })).pages, [], 'no shard yet: an empty collection');
      copyFileSync(process.execPath, join(dir, 'shard-003.forager'));
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const [info] = await service.listCollections();
      assert.match(info?.problem ?? '', /shard-003\.forager: cannot use .*file is not a database/);
      assert.equal(info?.pages, 0);
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
