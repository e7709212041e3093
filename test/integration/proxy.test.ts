/*
 * Crawls through real proxies (tinyproxy for HTTP, microsocks for SOCKS5) whose outgoing
 * connections come from 127.0.0.3: the site's own log, which records each request's remote
 * address, shows that every request of the crawl (robots.txt, pages, requisites, a rendered
 * page's script and API call) came through the proxy and none bypassed it. Links to private
 * hosts that are not seeds are refused through each kind of proxy. A dead proxy pauses the
 * crawl with its URLs still queued, and the crawl finishes once the proxy is back; a proxy
 * that wants credentials records proxy:auth until they are given.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { FetchError } from '../../crawler/errors.ts';
import { PROXY_UNREACHABLE_OUTCOME } from '../../crawler/protocol/api.ts';
import { CrawlSession } from '../../crawler/service/crawl-session.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { WriterLock } from '../../crawler/store/writer-lock.ts';
import { createDispatcher } from '../../crawler/net/dispatcher.ts';
import { fetchPage } from '../../crawler/net/fetch-page.ts';
import { proxyRoutes } from '../../crawler/net/proxy-config.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { findBrowser } from '../../crawler/render/find-browser.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import type { Db } from '../../crawler/store/database.ts';
import { crawlOnce, tempDir, testSettings, urlRecord, type CrawlRun } from '../support/crawl-harness.ts';
import { startAddressLoggingSite, type AddressLoggingSite as LoggingSite } from '../support/address-logging-site.ts';
import { freePort, PROXY_SOURCE_ADDRESS, proxiesMissing, startMicrosocks, startTinyproxy, type RunningProxy } from '../support/proxy-servers.ts';

const missing = proxiesMissing();
const browser = findBrowser('');
const renders = browser.kind !== 'missing';

const APP_JS = `fetch('/api/data').then((r) => r.json()).then((d) => { document.getElementById('root').innerHTML = '<p>' + d.text + '</p><a href="/from-script">more</a>'; });`;

/** The test site: robots.txt, pages, requisites, and a page built by its script; `privateLinks` from its home page. */
function startSite(host: string, privateLinks: string[]): Promise<LoggingSite> {
  return startAddressLoggingSite(host, {
    '/robots.txt': ['text/plain', 'User-agent: *\nAllow: /\n'],
    '/': ['text/html', `<!doctype html><title>Home</title><link rel="stylesheet" href="/style.css"><body><p>Proxy test home page.</p><img src="/logo.png" alt=""><a href="/a">a</a> <a href="/app">app</a> ${privateLinks.map((link) => `<a href="${link}">private</a>`).join(' ')}</body>`],
    '/a': ['text/html', '<!doctype html><title>A</title><body><p>Page a.</p></body>'],
    '/app': ['text/html', '<!doctype html><title>App</title><body><div id="root"></div><script src="/app.js"></script></body>'],
    '/from-script': ['text/html', '<!doctype html><title>Script</title><body><p>Found by the script.</p></body>'],
    '/app.js': ['text/javascript', APP_JS],
    '/api/data': ['application/json', JSON.stringify({ text: 'Built by a script.' })],
    '/style.css': ['text/css', 'p { color: teal }'],
    '/logo.png': ['image/png', 'png'],
  });
}

function statesOf(db: Db): number[] {
  return (db.prepare('SELECT state FROM urls ORDER BY id').all() as { state: number }[]).map((row) => row.state);
}

function settingsThrough(site: LoggingSite, proxy: string, overrides: Partial<CrawlSettings> = {}): CrawlSettings {
  return testSettings([`${site.origin}/`], { proxy, scope: 'any', requisites: 'same-host', render: renders ? 'always' : 'never', maxPages: 20, ...overrides });
}

describe('crawling through a proxy', { skip: missing ?? false }, () => {
  const dir = tempDir('forager-proxy-');
  const runDirs: { cleanup: () => void }[] = [];
  const runDir = (): string => {
    const made = tempDir('forager-proxy-run-');
    runDirs.push(made);
    return made.dir;
  };
  let site: LoggingSite;
  let hidden: LoggingSite;
  let tinyproxy: RunningProxy;
  let microsocks: RunningProxy;

  before(async () => {
    // A private host that is no seed: the guard must keep the crawl away from it whatever the proxy.
    hidden = await startSite('127.0.0.2', []);
    site = await startSite('127.0.0.1', [`${hidden.origin}/secret`, `http://localhost:${hidden.port}/named`]);
    tinyproxy = await startTinyproxy({ dir: dir.dir });
    microsocks = await startMicrosocks();
  });

  after(async () => {
    await Promise.all([site?.close(), hidden?.close(), tinyproxy?.stop(), microsocks?.stop()]);
    for (const made of runDirs) made.cleanup();
    dir.cleanup();
  });

  const kinds = [
    { name: 'an HTTP proxy', url: () => `http://${tinyproxy.address}` },
    { name: 'a SOCKS5 proxy (names resolved here)', url: () => `socks5://${microsocks.address}` },
    { name: 'a SOCKS5 proxy (names resolved by the proxy)', url: () => `socks5h://${microsocks.address}` },
  ];
  for (const kind of kinds) {
    describe(kind.name, () => {
      let run: CrawlRun;
      let sinceRequest: number;
      let hiddenBefore: number;
      let logBefore: number;
      before(async () => {
        sinceRequest = site.requests.length;
        hiddenBefore = hidden.requests.length;
        const proxy = kind.url().startsWith('http') ? tinyproxy : microsocks;
        logBefore = proxy.log().length;
        run = await crawlOnce(runDir(), settingsThrough(site, kind.url()));
      });
      after(() => run?.db.close());

      it('fetches the site, and every request reached it from the proxy', () => {
        assert.equal(run.outcome, 'exhausted');
        const requests = site.requests.slice(sinceRequest);
        const paths = new Set(requests.map((r) => r.path));
        const expected = ['/robots.txt', '/', '/a', '/app', '/style.css', '/logo.png', ...(renders ? ['/app.js', '/api/data', '/from-script'] : [])];
        for (const path of expected) assert.ok(paths.has(path), `${path} requested (${[...paths].join(', ')})`);
        assert.deepEqual(requests.filter((r) => r.from !== PROXY_SOURCE_ADDRESS), [], 'no request bypassed the proxy');
      });

      it("the proxy's own log holds the crawl's requests", () => {
        const log = (kind.url().startsWith('http') ? tinyproxy : microsocks).log().slice(logBefore);
        if (kind.url().startsWith('http')) {
          for (const path of ['/robots.txt', '/', '/a', '/style.css', ...(renders ? ['/api/data'] : [])]) {
            assert.ok(log.includes(`GET ${site.origin}${path} HTTP/1.1`), `${path} in tinyproxy's log`);
          }
        } else {
          // A SOCKS proxy sees connections, not requests: the site's log (above) shows each one came through it.
          assert.match(log, new RegExp(`connected to 127\\.0\\.0\\.1:${site.port}`));
        }
      });

      it('refuses a private host that is not a seed, and never reaches it', () => {
        // An address, and a name that resolves here to one (what the proxy would reach).
        for (const url of [`${hidden.origin}/secret`, `http://localhost:${hidden.port}/named`]) {
          const refused = urlRecord(run.db, url);
          assert.equal(refused?.state, UrlState.failed, url);
          assert.equal(refused?.reason, 'ssrf:blocked', url);
        }
        assert.equal(hidden.requests.length, hiddenBefore);
      });
    });
  }

  it("records each proxy failure by its own reason", async () => {
    const closedPort = await freePort();
    const deadPort = await freePort();
    const guarded = await startTinyproxy({ dir: dir.dir, basicAuth: { user: 'crawler', password: 'hunter2' } });
    const socksGuarded = await startMicrosocks({ auth: { user: 'crawler', password: 'hunter2' } });
    const policy = { allowPrivate: false, allowedHosts: new Set(['127.0.0.1']) };
    const reasonOf = async (proxy: string, url: string): Promise<string> => {
      const dispatcher = createDispatcher({ policy, proxy: proxyRoutes(proxy), connectTimeoutMs: 2000 });
      try {
        await fetchPage(url, { dispatcher, userAgent: 'Forager-test/1', totalTimeoutMs: 5000 });
        return 'answered';
      } catch (err) {
        return err instanceof FetchError ? err.reason : String(err);
      } finally {
        await dispatcher.close();
      }
    };
    try {
      const cases: [string, string, string][] = [
        [`http://127.0.0.1:${deadPort}`, `${site.origin}/a`, 'proxy:refused'],
        [`socks5://127.0.0.1:${deadPort}`, `${site.origin}/a`, 'proxy:refused'],
        [`http://${guarded.address}`, `${site.origin}/a`, 'proxy:auth'],
        [`http://${guarded.address}`, `https://127.0.0.1:${closedPort}/`, 'proxy:auth'],
        [`socks5://crawler:wrong@${socksGuarded.address}`, `${site.origin}/a`, 'proxy:auth'],
        [`http://${tinyproxy.address}`, `https://127.0.0.1:${closedPort}/`, 'proxy:bad-gateway'],
        [`socks5://${microsocks.address}`, `http://127.0.0.1:${closedPort}/`, 'proxy:bad-gateway'],
        [`socks5h://${microsocks.address}`, 'http://no-such-host.invalid/', 'proxy:bad-gateway'],
        // socks5 resolves names here, as curl does: an unknown name is a DNS failure, not the proxy's.
        [`socks5://${microsocks.address}`, 'http://no-such-host.invalid/', 'dns'],
        [`socks5://crawler:hunter2@${socksGuarded.address}`, `${site.origin}/a`, 'answered'],
      ];
      for (const [proxy, url, reason] of cases) assert.equal(await reasonOf(proxy, url), reason, `${proxy} ${url}`);
    } finally {
      await Promise.all([guarded.stop(), socksGuarded.stop()]);
    }
  });

  it("a response head up to the crawl's limit (64 KiB) comes through an HTTP proxy as it comes direct", async () => {
    const server = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/plain', 'x-large': 'y'.repeat(30_000) }).end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dispatcher = createDispatcher({ policy: { allowPrivate: true, allowedHosts: new Set() }, proxy: proxyRoutes(`http://${tinyproxy.address}`) });
    try {
      const result = await fetchPage(`http://127.0.0.1:${(server.address() as { port: number }).port}/`, { dispatcher, userAgent: 'Forager-test/1' });
      assert.equal(result.headers['x-large']?.length, 30_000);
    } finally {
      await dispatcher.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('a dead proxy pauses the crawl with its URLs queued, and the crawl finishes once the proxy is back', { timeout: 30_000 }, async () => {
    const port = await freePort();
    const deadDir = tempDir('forager-proxy-dead-');
    const settings = settingsThrough(site, `http://crawler:hunter2@127.0.0.1:${port}`, { render: 'never' });
    const first = await crawlOnce(deadDir.dir, settings);
    try {
      assert.equal(first.outcome, 'proxy-unreachable');
      const message = first.engine.proxyError?.message ?? '';
      assert.match(message, new RegExp(`the proxy http://crawler:\\*\\*\\*@127\\.0\\.0\\.1:${port} failed \\d+ requests in a row`));
      assert.match(message, /proxy:refused/);
      assert.doesNotMatch(message, /hunter2/);
      assert.deepEqual(statesOf(first.db), [UrlState.queued], 'the seed is still queued');
      assert.equal(first.engine.stats().failed, 0);
    } finally {
      first.db.close();
    }
    const revived = await startTinyproxy({ dir: deadDir.dir, port, basicAuth: { user: 'crawler', password: 'hunter2' } });
    try {
      const db = openCollection(first.dbPath, { create: false });
      try {
        const outcome = await new CrawlEngine(db, settings).run();
        assert.equal(outcome, 'exhausted');
        assert.equal(urlRecord(db, `${site.origin}/a`)?.state, UrlState.fetched, urlRecord(db, `${site.origin}/a`)?.reason ?? "");
      } finally {
        db.close();
      }
    } finally {
      await revived.stop();
      deadDir.cleanup();
    }
  });

  it("the app's status of a collection paused by its proxy names the proxy, not its password", { timeout: 30_000 }, async () => {
    const port = await freePort();
    const settings = settingsThrough(site, `socks5h://crawler:hunter2@127.0.0.1:${port}`, { render: 'never' });
    const db = openCollection(join(runDir(), 'session.forager'), { create: true });
    try {
      saveSettings(db, settings);
      const session = new CrawlSession('session', db);
      await new Promise<void>((resolve) => session.start(settings, resolve, WriterLock.acquire(db.name, 'the test')));
      const outcome = session.status(settings.maxPages).lastOutcome ?? '';
      assert.ok(outcome.startsWith(PROXY_UNREACHABLE_OUTCOME), outcome);
      assert.match(outcome, new RegExp(`the proxy socks5h://crawler:\\*\\*\\*@127\\.0\\.0\\.1:${port} failed`));
      assert.doesNotMatch(outcome, /hunter2/);
    } finally {
      db.close();
    }
  });

  it('a proxy that wants credentials records proxy:auth and pauses; with them in the URL it serves the crawl', { timeout: 30_000 }, async () => {
    const authDir = tempDir('forager-proxy-auth-');
    const guarded = await startTinyproxy({ dir: authDir.dir, basicAuth: { user: 'crawler', password: 'hunter2' } });
    try {
      const refused = await crawlOnce(runDir(), settingsThrough(site, `http://${guarded.address}`, { render: 'never' }));
      try {
        assert.equal(refused.outcome, 'proxy-unreachable');
        assert.match(refused.engine.proxyError?.message ?? '', /proxy:auth/);
      } finally {
        refused.db.close();
      }
      const before = site.requests.length;
      const served = await crawlOnce(runDir(), settingsThrough(site, `http://crawler:hunter2@${guarded.address}`, { render: 'never' }));
      try {
        assert.equal(served.outcome, 'exhausted');
        const requests = site.requests.slice(before);
        assert.ok(requests.some((r) => r.path === '/a'));
        assert.deepEqual(requests.filter((r) => r.from !== PROXY_SOURCE_ADDRESS), []);
        const heads = served.db.prepare('SELECT request_head AS head FROM pages WHERE request_head IS NOT NULL').all() as { head: string }[];
        assert.ok(heads.length > 0, 'request heads are stored');
        for (const { head } of heads) assert.doesNotMatch(head, /proxy-authorization/i, 'the proxy credentials are not in a stored request');
      } finally {
        served.db.close();
      }
    } finally {
      await guarded.stop();
      authDir.cleanup();
    }
  });
});
