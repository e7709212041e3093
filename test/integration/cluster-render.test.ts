/*
 * Rendering in a cluster: one `forager worker` whose shards render the script-built pages of
 * sites in different partitions runs one render process (one browser) for all of them, seen
 * in /proc while it crawls; every shard's renders and subresources land in its own shard.
 * Real redis-server, real worker process.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { partitionOf } from '../../crawler/cluster/partition.ts';
import { findBrowser } from '../../crawler/render/find-browser.ts';
import { runCli, spawnCli, type CliResult } from '../support/cli.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { renderHostPids, scriptSite } from '../support/script-site.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';

const SITES = 4;
const browser = findBrowser('');
const skip = browser.kind === 'missing'
  ? 'no Chromium-family browser on this machine'
  : !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

/** Sites whose origins fall in as many different partitions. */
async function sitesInOwnPartitions(count: number): Promise<TestSite[]> {
  const sites: TestSite[] = [];
  const partitions = new Set<number>();
  while (sites.length < count) {
    const site = await startTestSite(scriptSite(`Site${sites.length}`, 150));
    const partition = partitionOf(site.origin);
    if (partitions.has(partition)) {
      await site.close();
      continue;
    }
    partitions.add(partition);
    sites.push(site);
  }
  return sites;
}

interface ShardRenders {
  file: string;
  renders: number;
  subresources: string[];
}

function shardRenders(dir: string): ShardRenders[] {
  return readdirSync(dir).filter((f) => f.endsWith('.forager')).map((file) => {
    const db = new Database(join(dir, file), { readonly: true });
    try {
      return {
        file,
        renders: db.prepare('SELECT count(*) FROM renders').pluck().get() as number,
        subresources: db.prepare('SELECT url FROM subresources').pluck().all() as string[],
      };
    } finally {
      db.close();
    }
  });
}

describe('a cluster worker whose shards render', { skip, timeout: 300_000 }, () => {
  let sites: TestSite[] = [];
  let redis: RedisServer;
  let dir: string;
  let result: CliResult;
  const seen = new Set<number>();
  let most = 0;

  before(async () => {
    sites = await sitesInOwnPartitions(SITES);
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), 'forager-cluster-render-'));
    const created = await runCli([
      'cluster', 'create', '--redis', redis.url, '--name', 'render', '--query', 'checkpoint journal', ...sites.flatMap((s) => ['--seed', `${s.origin}/`]),
      '--allow-private', '--max-pages', '200', '--delay-ms', '0', '--delay-factor', '0', '--render', 'always', '--browser', browser.kind === 'found' ? browser.path : '',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const worker = spawnCli(['worker', '--redis', redis.url, '--name', 'render', '--dir', join(dir, 'shards'), '--parse-workers', '0'], { timeoutMs: 240_000 });
    const timer = setInterval(() => {
      const now = renderHostPids(worker.child.pid as number);
      most = Math.max(most, now.length);
      for (const pid of now) seen.add(pid);
    }, 50);
    try {
      result = await worker.done;
    } finally {
      clearInterval(timer);
    }
  });

  after(async () => {
    for (const site of sites) await site.close();
    await redis?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('renders every site, each in its own shard with its own subresources', () => {
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /the crawl is finished/);
    const shards = shardRenders(join(dir, 'shards')).filter((s) => s.renders > 0);
    assert.equal(shards.length, SITES, `shards that rendered: ${shards.map((s) => `${s.file} ${s.renders}`).join(', ')}`);
    for (const shard of shards) {
      assert.equal(shard.renders, 3, `${shard.file}: its site's three shells`);
      const origins = new Set(shard.subresources.map((url) => new URL(url).origin));
      assert.equal(origins.size, 1, `${shard.file} fetched the subresources of its own site only: ${[...origins].join(', ')}`);
    }
    for (const site of sites) {
      for (const path of ['/app.js', '/api/home', '/api/1', '/api/2']) assert.equal(site.count(path), 1, `${site.origin}${path} once`);
    }
  });

  it('runs one render process for all its shards', () => {
    assert.equal(seen.size, 1, `render processes seen: ${[...seen].join(", ")}; the worker said: ${result.stderr.slice(-3000)}`);
    assert.equal(most, 1);
  });
});
