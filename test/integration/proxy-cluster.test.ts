/*
 * A cluster crawl through a proxy: `cluster create --proxy URL` keeps the proxy in the
 * cluster's definition, and each worker's shards fetch through it; without --proxy, each
 * worker reads its own environment. The site's log (remote addresses) shows no request
 * bypassed the proxy, and the proxy's password is in no output.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startAddressLoggingSite, type AddressLoggingSite } from '../support/address-logging-site.ts';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { PROXY_SOURCE_ADDRESS, proxiesMissing, startTinyproxy, type RunningProxy } from '../support/proxy-servers.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const noRedis = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : undefined;
const skip = proxiesMissing() ?? noRedis ?? false;
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY', 'no_proxy', 'NO_PROXY'];

function environment(variables: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of PROXY_VARIABLES) delete env[name];
  return { ...env, ...variables };
}

describe('a cluster crawl through a proxy', { skip, timeout: 180_000 }, () => {
  const dir = tempDir('forager-proxy-cluster-');
  let site: AddressLoggingSite;
  let redis: RedisServer;
  let tinyproxy: RunningProxy;

  before(async () => {
    site = await startAddressLoggingSite('127.0.0.1', {
      '/robots.txt': ['text/plain', 'User-agent: *\nAllow: /\n'],
      '/': ['text/html', '<!doctype html><title>Home</title><body><p>Home.</p><a href="/a">a</a> <a href="/b">b</a></body>'],
      '/a': ['text/html', '<!doctype html><title>A</title><body><p>Page a.</p></body>'],
      '/b': ['text/html', '<!doctype html><title>B</title><body><p>Page b.</p></body>'],
    });
    redis = await startRedisServer();
    tinyproxy = await startTinyproxy({ dir: dir.dir, basicAuth: { user: 'crawler', password: 'hunter2' } });
  });

  after(async () => {
    await Promise.all([site?.close(), redis?.close(), tinyproxy?.stop()]);
    dir.cleanup();
  });

  /** Creates cluster `name` with `args`, runs one worker to its end with `variables`; the site's requests during it. */
  async function clusterCrawl(name: string, args: string[], variables: Record<string, string>): Promise<{ from: Set<string>; paths: Set<string>; outputs: string[] }> {
    const before = site.requests.length;
    const created = await runCli(['cluster', 'create', '--redis', redis.url, '--name', name, '--query', 'proxy test', '--seed', `${site.origin}/`, '--delay-ms', '0', '--max-pages', '10', '--render', 'never', ...args], { env: environment() });
    assert.equal(created.code, 0, created.stderr);
    const worker = await runCli(['worker', '--redis', redis.url, '--name', name, '--dir', join(dir.dir, name), '--parse-workers', '0'], { env: environment(variables), timeoutMs: 120_000 });
    assert.equal(worker.code, 0, worker.stderr);
    const status = await runCli(['cluster', 'status', '--redis', redis.url, '--name', name, '--json'], { env: environment() });
    const requests = site.requests.slice(before);
    return { from: new Set(requests.map((r) => r.from)), paths: new Set(requests.map((r) => r.path)), outputs: [created.stdout, created.stderr, worker.stdout, worker.stderr, status.stdout, status.stderr] };
  }

  it('the definition carries --proxy to the workers, and its password to no output', async () => {
    const crawl = await clusterCrawl('defined', ['--proxy', `http://crawler:hunter2@${tinyproxy.address}`], { HTTP_PROXY: 'http://127.0.0.1:9' });
    assert.deepEqual([...crawl.from], [PROXY_SOURCE_ADDRESS]);
    for (const path of ['/robots.txt', '/', '/a', '/b']) assert.ok(crawl.paths.has(path), path);
    for (const output of crawl.outputs) assert.doesNotMatch(output, /hunter2/);
  });

  it("without --proxy, each worker goes through its own environment's proxy", async () => {
    const crawl = await clusterCrawl('environment', [], { HTTP_PROXY: `http://crawler:hunter2@${tinyproxy.address}` });
    assert.deepEqual([...crawl.from], [PROXY_SOURCE_ADDRESS]);
    assert.ok(crawl.paths.has('/a'));
  });
});
