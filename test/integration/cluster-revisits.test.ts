/*
 * Revisits in a crawl cluster: real redis-server, real `forager worker` processes, a loopback
 * site whose pages the tests change. A cluster made with --revisit-after revisits its shards'
 * pages as they come due (a dormant shard is opened again for them) and runs until stopped.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { startChangingSite, type ChangingSite } from '../support/changing-site.ts';
import { runCli, spawnCli, type RunningCli } from '../support/cli.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

interface Harness {
  site: ChangingSite;
  redis: RedisServer;
  dir: string;
  name: string;
}

async function setUp(name: string): Promise<Harness> {
  const site = await startChangingSite();
  site.pages.set('/', { body: '<p>revisit tests home</p><a href="/a">a</a> <a href="/b">b</a>', etag: '"home1"' });
  site.pages.set('/a', { body: '<p>revisit tests alpha, first version</p>', etag: '"a1"' });
  site.pages.set('/b', { body: '<p>revisit tests beta</p>', etag: '"b1"' });
  const redis = await startRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'forager-cluster-revisits-'));
  return { site, redis, dir, name };
}

async function tearDown(h: Harness): Promise<void> {
  for (const worker of running) worker.child.kill('SIGKILL');
  await h.site.close();
  await h.redis.close();
  rmSync(h.dir, { recursive: true, force: true });
}

async function createCluster(h: Harness, revisitAfter: string): Promise<string> {
  const created = await runCli([
    'cluster', 'create', '--redis', h.redis.url, '--name', h.name, '--lease-ms', '3000',
    '--query', 'revisit tests', '--seed', `${h.site.origin}/`, '--allow-private', '--scope', 'any',
    '--max-pages', '20', '--delay-ms', '50', '--delay-factor', '0', '--revisit-after', revisitAfter,
  ]);
  assert.equal(created.code, 0, created.stderr);
  return created.stdout;
}

/** Workers still running when a test ends (it failed): killed, so that they do not outlive it. */
const running = new Set<RunningCli>();

function startWorker(h: Harness, extra: readonly string[] = []): RunningCli {
  const worker = spawnCli(['worker', '--redis', h.redis.url, '--name', h.name, '--dir', join(h.dir, 'shards'), '--parse-workers', '0', ...extra], { timeoutMs: 170_000 });
  running.add(worker);
  void worker.done.then(() => running.delete(worker));
  return worker;
}

interface StatusJson {
  state: string;
  pagesStored: number;
  revisitAfter: string;
  workers: { shards: number }[];
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

/** Earlier versions of the page at `url` kept in the shards (page_versions rows): one per change a revisit found. */
function versionsOf(h: Harness, url: string): number {
  const shards = join(h.dir, 'shards');
  if (!existsSync(shards)) return 0;
  let versions = 0;
  for (const file of readdirSync(shards).filter((f) => f.endsWith('.forager'))) {
    const db = new Database(join(shards, file), { readonly: true, fileMustExist: true });
    try {
      versions += db
        .prepare('SELECT count(*) FROM page_versions v JOIN pages p ON p.seq = v.page_seq JOIN urls u ON u.id = p.url_id WHERE u.url = ?')
        .pluck()
        .get(url) as number;
    } finally {
      db.close();
    }
  }
  return versions;
}

async function stopCluster(h: Harness, worker: RunningCli): Promise<string> {
  assert.equal((await runCli(['cluster', 'stop', '--redis', h.redis.url, '--name', h.name])).code, 0);
  const result = await worker.done;
  assert.equal(result.code, 0, `worker exited ${result.code} (${result.signal ?? ''}): ${result.stderr}`);
  assert.match(result.stderr, /the crawl was stopped/);
  return result.stdout;
}

// CI installs redis-server (.ci/run); elsewhere the suite says why it did not run.
const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

describe('revisits in a crawl cluster', { skip, timeout: 300_000 }, () => {
  let h: Harness;

  describe('--revisit-after 1s', () => {
    before(async () => {
      h = await setUp('revisits');
    });
    after(async () => tearDown(h));

    test('the shard revisits its stored pages, stores the changed one as a new version, and the cluster runs until stopped', async () => {
      const created = await createCluster(h, '1s');
      assert.match(created, /revisited 1s after its last check/);
      const worker = startWorker(h);
      await waitUntil('the three pages stored', async () => (await status(h)).pagesStored >= 3);
      h.site.pages.set('/a', { body: '<p>revisit tests alpha, second version</p>', etag: '"a2"' });
      await waitUntil('a new version of /a in its shard', () => versionsOf(h, `${h.site.origin}/a`) >= 1, 60_000);
      // Revisits are conditional requests from what the shard stored.
      await waitUntil('a conditional revisit of /b', () => h.site.log.some((r) => r.path === '/b' && r.ifNoneMatch === '"b1"' && r.status === 304), 30_000);

      // The crawl has nothing new to fetch, yet it goes on (it would have finished within seconds).
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const text = await runCli(['cluster', 'status', '--redis', h.redis.url, '--name', h.name]);
      assert.match(text.stdout, /: running\n/);
      assert.match(text.stdout, /revisits each page 1s after its last check: runs until stopped/);
      assert.equal((await status(h)).revisitAfter, '1s');
      const revisitsOfB = h.site.log.filter((r) => r.path === '/b').length;
      assert.ok(revisitsOfB >= 3, `/b was asked ${revisitsOfB} time(s): not revisited as it came due`);
      await stopCluster(h, worker);
    });
  });

  describe('a dormant shard', () => {
    before(async () => {
      h = await setUp('dormant');
    });
    after(async () => tearDown(h));

    test('a shard closed for idleness is opened again when its pages come due, and stores what changed', async () => {
      await createCluster(h, '6s');
      const worker = startWorker(h, ['--dormant-after', '1s', '--json']);
      await waitUntil('the three pages stored', async () => (await status(h)).pagesStored >= 3);
      await waitUntil('the shard closed for idleness', async () => (await status(h)).workers.every((w) => w.shards === 0), 30_000);
      const asked = h.site.log.length;
      h.site.pages.set('/a', { body: '<p>revisit tests alpha, second version</p>', etag: '"a2"' });
      await waitUntil('a new version of /a in its shard', () => versionsOf(h, `${h.site.origin}/a`) >= 1, 60_000);
      // /b comes due with /a, and goes after it (one request to the host at a time), maybe after /a's version is stored.
      await waitUntil('the reopened shard revisits /b', () => h.site.log.slice(asked).some((r) => r.path === '/b' && r.ifNoneMatch === '"b1"'), 30_000);
      const summary = JSON.parse(await stopCluster(h, worker)) as { shardsOpened: number };
      assert.ok(summary.shardsOpened >= 2, `the shard was opened ${summary.shardsOpened} time(s)`);
    });
  });
});
