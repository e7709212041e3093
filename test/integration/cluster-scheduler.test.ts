/*
 * A cluster worker schedules as one crawl: its shards share the worker's request slots
 * (cluster/worker-requests.ts), so --concurrency bounds the worker's requests, not each
 * shard's. The web's own log is the witness.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, spawnCli } from '../support/cli.ts';
import { peakInFlight, startManyHostWeb, type ManyHostWeb } from '../support/many-host-web.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const CONCURRENCY = 3;


const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

describe('a cluster worker\'s request slots', { skip, timeout: 300_000 }, () => {
  let web: ManyHostWeb;
  let redis: RedisServer;
  let dir: string;

  before(async () => {
    // Slow responses, many hosts, no delay: each shard alone would keep CONCURRENCY requests going.
    web = await startManyHostWeb({ hosts: 120, pagesPerHost: 4, seed: 11, latencyMs: 40 });
    redis = await startRedisServer({ appendonly: false });
    dir = mkdtempSync(join(tmpdir(), 'forager-cluster-slots-'));
  });
  after(async () => {
    await web.close();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('one worker never has more requests in flight than --concurrency, however many shards it runs', async () => {
    const created = await runCli([
      'cluster', 'create', '--redis', redis.url, '--name', 'slots', '--query', 'test pages', ...web.seeds.flatMap((seed) => ['--seed', seed]),
      '--allow-private', '--scope', 'any', '--max-pages', '5000', '--delay-ms', '0', '--delay-factor', '0', '--concurrency', String(CONCURRENCY),
    ]);
    assert.equal(created.code, 0, created.stderr);
    const worker = spawnCli(['worker', '--redis', redis.url, '--name', 'slots', '--dir', join(dir, 'shards'), '--parse-workers', '0'], { timeoutMs: 240_000 });
    const result = await worker.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /the crawl is finished/);
    const pages = web.log.filter((e) => e.kind === 'page').length;
    assert.ok(pages >= web.pageUrls().length, `the whole web is crawled (${pages} page requests)`);
    assert.ok(peakInFlight(web.log) <= CONCURRENCY, `the web served ${peakInFlight(web.log)} requests at once`);
  });
});
