/*
 * The proxy from the command line (the built CLI, run as a user runs it): the environment's
 * variables as curl reads them without --proxy, ignored with --proxy none; a dead proxy
 * pauses the crawl with a message naming it (password masked) and a non-zero exit, and
 * `resume` finishes the crawl once the proxy is back; the password never appears in the
 * output, the stats or an export.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startAddressLoggingSite, type AddressLoggingSite } from '../support/address-logging-site.ts';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { start as startHostile, selfSignedCertificate, type HostileServer } from '../support/hostile-server.ts';
import { freePort, PROXY_SOURCE_ADDRESS, proxiesMissing, startMicrosocks, startTinyproxy, type RunningProxy } from '../support/proxy-servers.ts';

const missing = proxiesMissing();
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY', 'no_proxy', 'NO_PROXY'];

/** The test's own environment without any proxy variable, plus `variables`. */
function environment(variables: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of PROXY_VARIABLES) delete env[name];
  return { ...env, ...variables };
}

describe('the proxy from the command line', { skip: missing ?? false }, () => {
  const dir = tempDir('forager-proxy-cli-');
  let site: AddressLoggingSite;
  let tinyproxy: RunningProxy;
  let microsocks: RunningProxy;
  let crawls = 0;

  /** `forager crawl` of the site into a fresh collection; returns the result and the site's requests during it. */
  async function crawl(args: string[], variables: Record<string, string> = {}, seed = `${site.origin}/`): Promise<{ code: number | null; stdout: string; stderr: string; db: string; from: Set<string> }> {
    const db = join(dir.dir, `crawl-${++crawls}.db`);
    const before = site.requests.length;
    const result = await runCli(['crawl', '--db', db, '--query', 'proxy test', '--seed', seed, '--render', 'never', '--requisites', 'none', '--delay-ms', '0', '--json', ...args], { env: environment(variables), timeoutMs: 30_000 });
    return { ...result, db, from: new Set(site.requests.slice(before).map((r) => r.from)) };
  }

  before(async () => {
    site = await startAddressLoggingSite('127.0.0.1', {
      '/robots.txt': ['text/plain', 'User-agent: *\nAllow: /\n'],
      '/': ['text/html', '<!doctype html><title>Home</title><body><p>Home.</p><a href="/a">a</a></body>'],
      '/a': ['text/html', '<!doctype html><title>A</title><body><p>Page a.</p></body>'],
    });
    tinyproxy = await startTinyproxy({ dir: dir.dir });
    microsocks = await startMicrosocks();
  });

  after(async () => {
    await Promise.all([site?.close(), tinyproxy?.stop(), microsocks?.stop()]);
    dir.cleanup();
  });

  it('HTTP_PROXY carries an http:// crawl without --proxy', async () => {
    const result = await crawl([], { HTTP_PROXY: `http://${tinyproxy.address}` });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual([...result.from], [PROXY_SOURCE_ADDRESS]);
    assert.ok(tinyproxy.log().includes(`GET ${site.origin}/a HTTP/1.1`));
  });

  it('ALL_PROXY carries it when no variable names its scheme', async () => {
    const result = await crawl([], { ALL_PROXY: `socks5h://${microsocks.address}`, HTTPS_PROXY: 'http://127.0.0.1:9' });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual([...result.from], [PROXY_SOURCE_ADDRESS]);
    assert.equal(result.stderr, '', 'no warning (undici experimental SOCKS agent) on stderr');
  });

  it('HTTPS_PROXY tunnels an https:// crawl with CONNECT', async (t) => {
    const certificate = selfSignedCertificate();
    if (certificate === undefined) {
      t.skip('no openssl to make a certificate');
      return;
    }
    const secure: HostileServer = await startHostile({ tls: certificate });
    try {
      const port = new URL(secure.origin).port;
      await crawl(['--robots-retry-ms', '10'], { HTTPS_PROXY: `http://${tinyproxy.address}`, HTTP_PROXY: 'http://127.0.0.1:9' }, `${secure.origin}/`);
      assert.match(tinyproxy.log(), new RegExp(`CONNECT 127\\.0\\.0\\.1:${port} HTTP/1\\.1`));
    } finally {
      await secure.close();
    }
  });

  it('NO_PROXY sends its hosts direct', async () => {
    const result = await crawl([], { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: 'localhost,127.0.0.0/8' });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual([...result.from], ['127.0.0.1']);
  });

  it('--proxy none ignores the environment', async () => {
    const result = await crawl(['--proxy', 'none'], { HTTP_PROXY: 'http://127.0.0.1:9', ALL_PROXY: 'http://127.0.0.1:9' });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual([...result.from], ['127.0.0.1']);
  });

  it('an unusable --proxy is a one-line error before anything starts', async () => {
    const result = await crawl(['--proxy', 'ftp://crawler:hunter2@127.0.0.1:21']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^forager: --proxy: the proxy "ftp:\/\/crawler:\*\*\*@127\.0\.0\.1.*" has scheme ftp:/);
    assert.doesNotMatch(result.stderr, /hunter2/);
    assert.equal(existsSync(result.db), false, 'no collection was made');
  });

  it('a dead proxy pauses the crawl, naming it without its password; resume finishes once it is back', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const proxy = `http://crawler:hunter2@127.0.0.1:${port}`;
    const paused = await crawl(['--proxy', proxy]);
    assert.equal(paused.code, 4, paused.stderr);
    assert.match(paused.stderr, new RegExp(`^forager: crawl paused: the proxy http://crawler:\\*\\*\\*@127\\.0\\.0\\.1:${port} failed \\d+ requests in a row .*proxy:refused`, 'm'));
    assert.match(paused.stderr, new RegExp(`run: forager resume --db ${paused.db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.equal(JSON.parse(paused.stdout).outcome, 'proxy-unreachable');
    assert.equal(JSON.parse(paused.stdout).failed, 0);
    assert.equal(paused.from.size, 0);

    const revived = await startTinyproxy({ dir: dir.dir, port, basicAuth: { user: 'crawler', password: 'hunter2' } });
    try {
      const before = site.requests.length;
      const resumed = await runCli(['resume', '--db', paused.db, '--json'], { env: environment(), timeoutMs: 30_000 });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(JSON.parse(resumed.stdout).outcome, 'exhausted');
      assert.ok(JSON.parse(resumed.stdout).fetched >= 2);
      assert.deepEqual([...new Set(site.requests.slice(before).map((r) => r.from))], [PROXY_SOURCE_ADDRESS]);
      const stats = await runCli(['stats', '--db', paused.db, '--json'], { env: environment() });
      const archive = join(dir.dir, 'proxied.warc.gz');
      const exported = await runCli(['export', '--db', paused.db, '--format', 'warc', '--out', archive], { env: environment() });
      assert.equal(exported.code, 0, exported.stderr);
      // The archive's warcinfo carries the settings, the proxy among them, masked.
      const records = gunzipSync(readFileSync(archive)).toString('latin1');
      assert.match(records, new RegExp(`"proxy":"http://crawler:\\*\\*\\*@127\\.0\\.0\\.1:${port}`));
      for (const output of [paused.stdout, paused.stderr, resumed.stdout, resumed.stderr, stats.stdout, stats.stderr, records]) {
        assert.doesNotMatch(output, /hunter2/);
      }
    } finally {
      await revived.stop();
    }
  });
});
