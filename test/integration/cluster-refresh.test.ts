/*
 * `forager refresh --cluster`: real redis-server, real `forager worker` processes, a loopback
 * web of many hosts whose request log is the witness. A cluster that finished its crawl is
 * asked for a refresh: its workers, started again, revisit the pages of every shard, and a
 * refresh with a small budget stops at it across the workers.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { runCli, spawnCli, type RunningCli } from '../support/cli.ts';
import { startManyHostWeb, type ManyHostWeb } from '../support/many-host-web.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const HOSTS = 12;
const PAGES_PER_HOST = 3;

interface StatusJson {
  state: string;
  pagesStored: number;
  partitions: number;
  refresh?: { id: string; maxFetches: number; fetches: number; partitionsDone: number };
}

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

describe('a cluster refresh', { skip, timeout: 400_000 }, () => {
  let web: ManyHostWeb;
  let redis: RedisServer;
  let dir: string;
  const name = 'fresh';
  const running = new Set<RunningCli>();

  before(async () => {
    web = await startManyHostWeb({ hosts: HOSTS, pagesPerHost: PAGES_PER_HOST, seed: 11 });
    redis = await startRedisServer();
    dir = mkdtempSync(join(tmpdir(), 'forager-cluster-refresh-'));
  });
  after(async () => {
    for (const worker of running) worker.child.kill('SIGKILL');
    await web.close();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function startWorker(): RunningCli {
    const worker = spawnCli(['worker', '--redis', redis.url, '--name', name, '--dir', join(dir, 'shards'), '--parse-workers', '0'], { timeoutMs: 170_000 });
    running.add(worker);
    void worker.done.then(() => running.delete(worker));
    return worker;
  }

  /** Two workers, run until the crawl is finished (they exit then). */
  async function runToTheEnd(): Promise<void> {
    const workers = [startWorker(), startWorker()];
    for (const worker of workers) {
      const result = await worker.done;
      assert.equal(result.code, 0, `worker exited ${result.code} (${result.signal ?? ''}): ${result.stderr}`);
      assert.match(result.stderr, /the crawl is finished/);
    }
  }

  async function status(): Promise<StatusJson> {
    const result = await runCli(['cluster', 'status', '--redis', redis.url, '--name', name, '--json']);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as StatusJson;
  }

  /** The pages of the web (200 answers) requested at or after `since`, as "origin path", each once. */
  function pagesAskedSince(since: number): string[] {
    return web.log.filter((r) => r.kind === 'page' && r.start >= since).map((r) => `${r.origin} ${r.path}`);
  }

  /** Every stored page of every shard, with how many revisits it had. */
  function storedRevisits(): { url: string; revisits: number }[] {
    const shards = join(dir, 'shards');
    const pages: { url: string; revisits: number }[] = [];
    for (const file of readdirSync(shards).filter((f) => f.endsWith('.forager'))) {
      const db = new Database(join(shards, file), { readonly: true, fileMustExist: true });
      try {
        pages.push(...(db.prepare("SELECT u.url, p.revisit_count AS revisits FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.status = 200").all() as { url: string; revisits: number }[]));
      } finally {
        db.close();
      }
    }
    return pages;
  }

  test('the workers revisit the pages of every shard, and the cluster finishes again once every partition has done it', async () => {
    const created = await runCli([
      'cluster', 'create', '--redis', redis.url, '--name', name, '--lease-ms', '3000', '--query', 'test pages',
      ...web.seeds.flatMap((seed) => ['--seed', seed]), '--allow-private', '--scope', 'any', '--max-pages', '5000', '--delay-ms', '50', '--delay-factor', '0',
    ]);
    assert.equal(created.code, 0, created.stderr);
    await runToTheEnd();
    const crawled = storedRevisits();
    assert.equal(crawled.length, HOSTS * PAGES_PER_HOST);

    const since = performance.timeOrigin + performance.now();
    const asked = await runCli(['refresh', '--cluster', name, '--redis', redis.url, '--json']);
    assert.equal(asked.code, 0, asked.stderr);
    const refresh = JSON.parse(asked.stdout) as { id: string; maxFetches: number };
    assert.ok(refresh.maxFetches >= crawled.length, `default budget ${refresh.maxFetches}`);
    assert.equal((await status()).state, 'running', 'a finished crawl is set running again for its refresh');
    await runToTheEnd();

    const final = await status();
    assert.equal(final.refresh?.id, refresh.id);
    assert.equal(final.refresh?.partitionsDone, final.partitions);
    // Every page of every shard was asked again, once, and its revisit recorded in its shard.
    const again = pagesAskedSince(since);
    assert.equal(new Set(again).size, again.length, 'a page was revisited twice by one refresh');
    assert.equal(again.length, HOSTS * PAGES_PER_HOST);
    assert.deepEqual(storedRevisits().filter((p) => p.revisits < 1), []);
    const text = await runCli(['cluster', 'status', '--redis', redis.url, '--name', name]);
    assert.match(text.stdout, new RegExp(`refresh ${refresh.id} \\(pages checked before [^)]+\\): done, 256/256 partitions done`));
  });

  test('a refresh with a budget of 10 fetches stops at it, across the shards and workers', async (t) => {
    const since = performance.timeOrigin + performance.now();
    const asked = await runCli(['refresh', '--cluster', name, '--redis', redis.url, '--max-pages', '10']);
    assert.equal(asked.code, 0, asked.stderr);
    assert.match(asked.stdout, /at most 10 fetches in all/);
    await runToTheEnd();
    const final = await status();
    assert.equal(final.refresh?.partitionsDone, final.partitions);
    assert.ok((final.refresh?.fetches ?? 0) <= 10, `fetches counted ${final.refresh?.fetches}`);
    const again = pagesAskedSince(since);
    t.diagnostic(`fetches counted ${final.refresh?.fetches}, pages asked ${again.length} from ${new Set(again.map((p) => p.split(' ')[0])).size} hosts`);
    assert.ok(again.length > 0 && again.length <= 10, `${again.length} pages asked for by a refresh of 10 fetches`);
    // The pages it reached came from more than one shard (hosts fall in different partitions).
    assert.ok(new Set(again.map((p) => p.split(' ')[0])).size > 1, 'one host only');
  });
});
