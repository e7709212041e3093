/*
 * Pages built by JavaScript: a single-page-app shell whose script fetches /api/… and builds
 * the page, crawled with rendering on. From the server's own request log: links only the
 * script creates are found and crawled; nothing robots.txt disallows, nothing blocked by type
 * (images, websockets) and nothing from a third-party host is requested; the bundle is
 * fetched once for every page; the host spacing holds for subresources too.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { chmodSync, createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WARCParser } from 'warcio';
import { exportWacz } from '../../crawler/export/wacz/export.ts';
import { verifyWacz } from '../../crawler/export/wacz/verify.ts';
import { exportWarc } from '../../crawler/export/warc/export.ts';
import { findBrowser } from '../../crawler/render/find-browser.ts';
import { collectionStats } from '../../crawler/library/stats.ts';
import { CrawlSession } from '../../crawler/service/crawl-session.ts';
import { WriterLock } from '../../crawler/store/writer-lock.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { crawlOnce, tempDir, testSettings, type CrawlRun } from '../support/crawl-harness.ts';
import { respond, startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

const browser = findBrowser('');
const DELAY_MS = 150;


/** The shell every page of the app serves: no text, no links, a script that builds both. */
function shell(thirdParty: string): string {
  return `<!doctype html><html><head><title>App</title><link rel="stylesheet" href="/app.css"></head><body>
<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>
<img src="/logo.png" alt=""><script src="${thirdParty}/tracker.js"></script><script src="/app.js"></script></body></html>`;
}

const APP_JS = `
fetch('/api/private/secret').catch(() => {});
try { new WebSocket('ws://' + location.host + '/live'); } catch (e) {}
navigator.sendBeacon && navigator.sendBeacon('/beacon', 'x');
fetch('/api/pages' + (location.pathname === '/' ? '/home' : location.pathname)).then((r) => r.json()).then((d) => {
  document.getElementById('root').innerHTML = '<h1>' + d.title + '</h1><p>' + d.text + '</p>' + d.links.map((l) => '<a href="' + l + '">' + l + '</a>').join(' ');
});`;

const PAGES: Record<string, { title: string; text: string; links: string[] }> = {
  home: { title: 'Write-ahead logging', text: 'Checkpoints and the write-ahead log keep a database whole after a crash.', links: ['/wal/one', '/wal/two'] },
  'wal/one': { title: 'Checkpoint modes', text: 'A passive checkpoint copies frames back without blocking writers.', links: [] },
  'wal/two': { title: 'Recovery', text: 'On recovery the log is replayed from the last checkpoint.', links: [] },
};

describe('rendering pages built by JavaScript', { skip: browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  let site: TestSite;
  let thirdParty: TestSite;
  let run: CrawlRun;
  const dir = tempDir('forager-render-');

  before(async () => {
    thirdParty = await startTestSite({ '/tracker.js': respond('text/javascript', 'window.tracked = true;') });
    const thirdOrigin = thirdParty.origin.replace('127.0.0.1', 'localhost');
    const routes: Record<string, Handler> = {
      '/robots.txt': respond('text/plain', 'User-agent: *\nDisallow: /api/private\n'),
      '/app.js': respond('text/javascript', APP_JS),
      '/app.css': respond('text/css', 'h1 { color: teal }'),
      '/logo.png': respond('image/png', 'png'),
    };
    for (const [key, page] of Object.entries(PAGES)) {
      routes[key === 'home' ? '/' : `/${key}`] = respond('text/html', shell(thirdOrigin));
      routes[`/api/pages/${key}`] = respond('application/json', JSON.stringify(page));
    }
    site = await startTestSite(routes);
    run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: 'write-ahead logging checkpoints', render: 'auto', delayMs: DELAY_MS, maxPages: 20 }));
  });

  after(async () => {
    run?.db.close();
    await site?.close();
    await thirdParty?.close();
    dir.cleanup();
  });

  it('finds and crawls the links only the script creates', () => {
    assert.equal(run.outcome, 'exhausted');
    for (const path of ['/wal/one', '/wal/two']) assert.equal(site.count(path), 1, `${path} was crawled`);
    const text = run.db.prepare('SELECT p.text FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(`${site.origin}/wal/one`);
    assert.match(String(text), /Checkpoint modes\s+A passive checkpoint copies frames/, 'the page is stored with its rendered text');
  });

  it('keeps the rendered DOM beside the raw response', () => {
    const renders = run.db.prepare('SELECT dom, links_added, requests FROM renders').all() as { dom: Buffer; links_added: number; requests: string }[];
    assert.equal(renders.length, 3, 'the three shells were rendered');
    assert.equal(run.engine.stats().rendered, 3, 'the live figures count them');
    assert.equal(collectionStats(run.db).rendered, 3, 'and so do the figures at rest');
    assert.equal(run.engine.stats().renderNotice, undefined);
    const doms = renders.map((r) => gunzipSync(r.dom).toString('utf8'));
    assert.ok(doms.some((dom) => dom.includes('<h1>Write-ahead logging</h1>')));
    assert.ok(renders.some((r) => r.links_added >= 2));
    const outcomes = renders.flatMap((r) => JSON.parse(r.requests) as [string, string, string][]);
    assert.ok(outcomes.some(([url, , outcome]) => url.endsWith('/logo.png') && outcome === 'blocked:type:image'));
    assert.ok(outcomes.some(([url, , outcome]) => url.includes('tracker.js') && outcome === 'blocked:third-party'));
    assert.ok(outcomes.some(([url, , outcome]) => url.endsWith('/api/private/secret') && outcome === 'blocked:robots:disallowed'));
  });

  it('requests nothing disallowed, blocked or third-party, and each script once', () => {
    for (const path of ['/api/private/secret', '/logo.png', '/live', '/beacon']) assert.equal(site.count(path), 0, `${path} was never requested`);
    assert.equal(thirdParty.requests.length, 0, 'the third-party host heard nothing');
    assert.equal(site.count('/app.js'), 1, 'the bundle is fetched once for three pages');
    assert.equal(site.count('/app.css'), 1);
    for (const key of Object.keys(PAGES)) assert.equal(site.count(`/api/pages/${key}`), 1);
  });

  it('keeps the host spacing for subresources as for pages', () => {
    const gaps = site.arrivals.slice(1).map((t, i) => t - (site.arrivals[i] as number));
    assert.ok(site.arrivals.length >= 10, `${site.arrivals.length} requests`);
    assert.ok(Math.min(...gaps) >= DELAY_MS - 15, `the closest two requests were ${Math.min(...gaps).toFixed(0)} ms apart`);
  });

  it('exports the subresources as responses and the DOM as a resource, in a WACZ that verifies', async () => {
    const warcPath = join(dir.dir, 'render.warc.gz');
    await exportWarc(run.db, {}, warcPath);
    const records: { type: string; url: string }[] = [];
    for await (const record of new WARCParser(createReadStream(warcPath), { parseHttp: false })) {
      records.push({ type: record.warcType ?? '', url: record.warcTargetURI ?? '' });
    }
    assert.deepEqual(records.filter((r) => r.type === 'resource').map((r) => r.url).sort(), ['/', '/wal/one', '/wal/two'].map((p) => `urn:dom:${site.origin}${p}`).sort());
    const responses = records.filter((r) => r.type === 'response').map((r) => r.url);
    for (const path of ['/app.js', '/app.css', '/api/pages/home']) assert.equal(responses.filter((u) => u === `${site.origin}${path}`).length, 1, `${path} once`);
    const waczPath = join(dir.dir, 'render.wacz');
    await exportWacz(run.db, {}, waczPath);
    const check = await verifyWacz(waczPath);
    assert.equal(check.ok, true, check.errors.join('; '));
  });
});

describe('the last pages of a budget', { skip: browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  it("are rendered whole: their scripts' requests still get the host's turns once no page fetch may start", async () => {
    const routes: Record<string, Handler> = { '/': respond('text/html', appShell(['/page/1', '/page/2'])) };
    for (const n of [1, 2]) {
      routes[`/page/${n}`] = respond('text/html', '<!doctype html><div id="root"></div><script src="/build.js"></script>');
      routes[`/api/${n}`] = respond('application/json', JSON.stringify({ text: `Checkpoint ${n} of the write-ahead log` }));
    }
    routes['/build.js'] = respond('text/javascript', "fetch('/api' + location.pathname.slice(5)).then((r) => r.json()).then((d) => { document.getElementById('root').textContent = d.text; });");
    const site = await startTestSite(routes);
    const dir = tempDir('forager-render-budget-');
    // The budget is the three pages and the seed host's /sitemap.xml: once the last is fetched, the crawl loop starts no page fetch.
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { render: 'always', maxPages: 4, renderTimeoutMs: 20_000 }));
    try {
      assert.equal(run.outcome, 'budget');
      const renders = run.db.prepare('SELECT timed_out FROM renders').pluck().all() as number[];
      assert.equal(renders.length, 3);
      assert.deepEqual(renders, [0, 0, 0], 'no render waited out its time limit for a turn');
      for (const n of [1, 2]) assert.equal(site.count(`/api/${n}`), 1);
      const text = run.db.prepare("SELECT p.text FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE '%/page/2'").pluck().get();
      assert.match(String(text), /Checkpoint 2 of the write-ahead log/);
    } finally {
      run.db.close();
      await site.close();
      dir.cleanup();
    }
  });
});

describe('a crawl that renders, without a browser that works', () => {
  /** Six shells, linked from a home page that is itself one: every page asks for a browser. */
  const routes: Record<string, Handler> = { '/': respond('text/html', appShell([1, 2, 3, 4, 5, 6].map((n) => `/page/${n}`))) };
  for (let n = 1; n <= 6; n++) routes[`/page/${n}`] = respond('text/html', appShell([]));
  const PATHS = ['/', ...[1, 2, 3, 4, 5, 6].map((n) => `/page/${n}`)];
  let site: TestSite;
  const dir = tempDir('forager-no-browser-');
  const storedPaths = (run: CrawlRun): string[] =>
    (run.db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.status = 200').pluck().all() as string[]).map((url) => new URL(url).pathname).filter((path) => path !== '/robots.txt').sort();

  before(async () => {
    site = await startTestSite(routes);
  });

  after(async () => {
    await site?.close();
    dir.cleanup();
  });

  it('with no browser at the configured path, crawls every page as its HTML gives it and says why', async () => {
    const missing = join(dir.dir, 'no-such-browser');
    const run = await crawlOnce(mkdirSync(join(dir.dir, 'missing'), { recursive: true }) ?? '', testSettings([`${site.origin}/`], { render: 'always', browserPath: missing, maxPages: 20 }));
    try {
      assert.equal(run.outcome, 'exhausted');
      assert.deepEqual(storedPaths(run), PATHS, 'every page was stored');
      assert.equal(run.engine.stats().rendered, 0);
      assert.match(run.engine.renderNotice ?? '', /no-such-browser.*not an executable file/);
      assert.equal(run.engine.stats().renderNotice, run.engine.renderNotice, 'the figures carry the notice to the UI');
    } finally {
      run.db.close();
    }
  });

  it("keeps the notice in the dashboard's status after the run ends", async () => {
    const settings = testSettings([`${site.origin}/`], { render: 'auto', browserPath: join(dir.dir, 'no-such-browser'), maxPages: 20 });
    const db = openCollection(join(dir.dir, 'session.forager'), { create: true });
    saveSettings(db, settings);
    const session = new CrawlSession('session', db);
    try {
      await new Promise<void>((resolve) => session.start(settings, resolve, WriterLock.acquire(db.name, 'the test')));
      const status = session.status(settings.maxPages);
      assert.equal(status.lastOutcome, 'exhausted');
      assert.match(status.figures.renderNotice ?? '', /no-such-browser/);
    } finally {
      db.close();
    }
  });

  it('gives up on a browser that will not start after a few launches, and goes on without it', async () => {
    const launches = join(dir.dir, 'launches.log');
    const broken = join(dir.dir, 'broken-browser');
    writeFileSync(broken, `#!/bin/sh\necho launched >> '${launches}'\nexit 1\n`);
    chmodSync(broken, 0o755);
    const run = await crawlOnce(mkdirSync(join(dir.dir, 'broken'), { recursive: true }) ?? '', testSettings([`${site.origin}/`], { render: 'always', browserPath: broken, maxPages: 20 }));
    try {
      assert.equal(run.outcome, 'exhausted');
      assert.deepEqual(storedPaths(run), PATHS, 'every page was stored');
      assert.equal(run.db.prepare('SELECT count(*) FROM renders').pluck().get(), 0);
      const tries = readFileSync(launches, 'utf8').trim().split('\n').length;
      assert.equal(tries, 3, `the browser was launched ${tries} times for 7 pages`);
      assert.match(run.engine.stats().renderNotice ?? '', /could not be started/);
    } finally {
      run.db.close();
    }
  });
});

/** An app shell with the given links in its HTML, and nothing else to read. */
function appShell(links: string[]): string {
  return `<!doctype html><html><head><title>App</title></head><body><div id="root"></div>${links.map((href) => `<a href="${href}"></a>`).join('')}<script src="/app.js"></script></body></html>`;
}

describe('rendering a site whose scripts change nothing', { skip: browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  const dir = tempDir('forager-render-static-');
  let site: TestSite;
  const PAGE_COUNT = 24;

  before(async () => {
    // Manual pages at the top of the site, each with a small script and at most two links: every one is
    // flagged ("scripts and few links"), and rendering shows the same text and links as the HTML.
    const routes: Record<string, Handler> = { '/toc.js': respond('text/javascript', 'window.tocReady = true;') };
    for (let n = 0; n < PAGE_COUNT; n++) {
      const next = [2 * n + 1, 2 * n + 2].filter((k) => k < PAGE_COUNT).map((k) => `<a href="/cmd-${k}.html">command ${k}</a>`).join(' ');
      routes[n === 0 ? '/' : `/cmd-${n}.html`] = respond('text/html', `<!doctype html><title>Command ${n}</title><script src="/toc.js"></script><p>Command ${n} writes the log. ${next}</p>`);
    }
    site = await startTestSite(routes);
  });

  after(async () => {
    await site?.close();
    dir.cleanup();
  });

  it('renders a few of its pages to learn that, and crawls the rest as their HTML gives them', async () => {
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { render: 'auto', concurrency: 4, delayMs: 20, maxPages: 100 }));
    try {
      assert.equal(run.outcome, 'exhausted');
      assert.equal(run.db.prepare('SELECT count(*) FROM pages WHERE status = 200').pluck().get(), PAGE_COUNT);
      const renders = run.db.prepare('SELECT count(*) FROM renders').pluck().get() as number;
      // Three to learn, then the tenth flagged page after them and the twentieth after that: at most five of 24.
      assert.ok(renders >= 3 && renders <= 5, `${renders} of ${PAGE_COUNT} pages rendered`);
    } finally {
      run.db.close();
    }
  });
});
