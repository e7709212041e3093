/*
 * A cluster crawl with a logged-in session: `cluster create --cookies` carries the jar into
 * every shard a worker opens, and the merged collection keeps the session (the cookie a
 * members' page set included), so a refresh of it goes on logged in.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, spawnCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { cookiesFile, type LoopbackSite, membersSite, REFRESHED, SESSION, startSite, storedStatuses } from '../support/members-site.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

describe('a cluster crawl with --cookies', { skip, timeout: 180_000 }, () => {
  const dir = tempDir('forager-cookies-cluster-');
  let site: LoopbackSite;
  let redis: RedisServer;

  before(async () => {
    site = await startSite('127.0.0.1', (req, res) => membersSite(req, res, 'http://127.0.0.2:9'));
    redis = await startRedisServer();
  });

  after(async () => {
    await site.close();
    await redis.close();
    dir.cleanup();
  });

  it('sends the session from every shard, and the merged collection holds the jar', async () => {
    const file = cookiesFile(dir.dir, [`127.0.0.1\tFALSE\t/members\tFALSE\t0\tsid\t${SESSION}`]);
    const created = await runCli(['cluster', 'create', '--redis', redis.url, '--name', 'members', '--query', 'library members', '--seed', `${site.origin}/`, '--allow-private', '--delay-ms', '0', '--max-pages', '20', '--cookies', file]);
    assert.equal(created.code, 0, created.stderr);
    assert.ok(!created.stdout.includes(SESSION) && !created.stderr.includes(SESSION));
    const worker = await spawnCli(['worker', '--redis', redis.url, '--name', 'members', '--dir', join(dir.dir, 'shards'), '--parse-workers', '0'], { timeoutMs: 120_000 }).done;
    assert.equal(worker.code, 0, worker.stderr);
    assert.ok(!worker.stderr.includes(SESSION));
    assert.equal(site.seen.find((r) => r.path === '/members/')?.status, 200);
    assert.equal(site.seen.find((r) => r.path === '/members/a')?.status, 200, 'the cookie /members/ set was kept by its shard');

    const merged = join(dir.dir, 'merged.forager');
    const merge = await runCli(['merge', '--dir', join(dir.dir, 'shards'), '--db', merged]);
    assert.equal(merge.code, 0, merge.stderr);
    assert.equal(storedStatuses(merged).get('/members/b'), 200);
    const listed = await runCli(['cookies', '--db', merged, '--json']);
    const names = (JSON.parse(listed.stdout) as { list: { name: string }[] }).list.map((c) => c.name).sort();
    assert.deepEqual(names, ['refresh', 'sid']);
    assert.ok(!listed.stdout.includes(REFRESHED));

    // A refresh of the merged collection goes on with the merged session.
    site.seen.length = 0;
    const refresh = await runCli(['refresh', '--db', merged, '--allow-private', '--json'], { timeoutMs: 60_000 });
    assert.equal(refresh.code, 0, refresh.stderr);
    const members = site.seen.filter((r) => ['/members/', '/members/a', '/members/b'].includes(r.path));
    assert.ok(members.length >= 3 && members.every((r) => r.status === 200), JSON.stringify(site.seen));
  });
});
