/*
 * One browser for several crawls in one process (a cluster worker's shards): two engines
 * render the script-built pages of two sites through one SharedRendering. From each site's
 * request log and each collection's stored subresources: every page's scripts and API calls
 * went through its own engine's fetcher; from /proc: one render process served both. And a
 * crawl aborted with a render under way cancels it, its page left queued, while the browser
 * goes on rendering for the other crawl.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CrawlEngine, type RunOutcome } from '../../crawler/engine/engine.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { findBrowser } from '../../crawler/render/find-browser.ts';
import { SharedRendering } from '../../crawler/render/shared-rendering.ts';
import { openCollection, type Db } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';
import { renderHostPids, scriptSite } from '../support/script-site.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';

const browser = findBrowser('');

/** Every render process seen while `work` runs, sampled every 50 ms. */
async function renderHostsDuring<T>(work: Promise<T>): Promise<{ result: T; pids: Set<number>; most: number }> {
  const pids = new Set<number>();
  let most = 0;
  const look = (): void => {
    const now = renderHostPids();
    most = Math.max(most, now.length);
    for (const pid of now) pids.add(pid);
  };
  const timer = setInterval(look, 50);
  try {
    const result = await work;
    look();
    return { result, pids, most };
  } finally {
    clearInterval(timer);
  }
}

interface Crawl {
  db: Db;
  engine: CrawlEngine;
}

function engineFor(dir: string, name: string, settings: CrawlSettings, rendering: SharedRendering): Crawl {
  const db = openCollection(join(dir, `${name}.forager`), { create: true });
  saveSettings(db, settings);
  return { db, engine: new CrawlEngine(db, settings, { rendering, parseWorkers: 0 }) };
}

/** The subresources a collection stored (what its fetcher fetched), as paths of `origin`; anything else as its full URL. */
function storedSubresources(db: Db, origin: string): string[] {
  return (db.prepare('SELECT url FROM subresources').pluck().all() as string[]).map((url) => (url.startsWith(origin) ? url.slice(origin.length) : url)).sort();
}

const skip = browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false;

describe('two crawls rendering in one shared browser', { skip }, () => {
  const dir = tempDir('forager-shared-render-');
  let north: TestSite;
  let south: TestSite;
  let crawls: Crawl[] = [];
  let outcomes: RunOutcome[];
  let pids: Set<number>;
  let most: number;
  const shared = new SharedRendering({ browserPath: '', renderTimeoutMs: 10_000 });

  before(async () => {
    // The API answers late, so that both crawls have pages in the browser at once.
    north = await startTestSite(scriptSite('North', 200));
    south = await startTestSite(scriptSite('South', 200));
    crawls = [north, south].map((site, i) => engineFor(dir.dir, `crawl-${i}`, testSettings([`${site.origin}/`], { query: 'checkpoint journal', render: 'always', maxPages: 20, renderTimeoutMs: 10_000 }), shared));
    const watched = await renderHostsDuring(Promise.all(crawls.map((c) => c.engine.run())));
    outcomes = watched.result;
    pids = watched.pids;
    most = watched.most;
  });

  after(async () => {
    await shared.close();
    for (const crawl of crawls) crawl.db.close();
    await north?.close();
    await south?.close();
    dir.cleanup();
  });

  it('renders every page of both sites', () => {
    assert.deepEqual(outcomes, ['exhausted', 'exhausted']);
    for (const [i, name] of ['North', 'South'].entries()) {
      const db = (crawls[i] as Crawl).db;
      assert.equal(db.prepare('SELECT count(*) FROM renders').pluck().get(), 3, `${name}: the three shells were rendered`);
      const texts = db.prepare('SELECT p.text FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE ?').pluck().all('%/p/%') as string[];
      assert.equal(texts.length, 2, `${name}: the pages only the script links to were crawled`);
      for (const text of texts) assert.match(text, new RegExp(`${name} checkpoint journal page`));
    }
  });

  it("fetches each page's subresources through its own crawl's fetcher", () => {
    for (const site of [north, south]) {
      assert.equal(site.count('/app.js'), 1, 'each site\'s script once: its crawl\'s own cache');
      for (const api of ['/api/home', '/api/1', '/api/2']) assert.equal(site.count(api), 1, `${api} once`);
    }
    // What a fetcher fetches goes to its own crawl's collection: each holds its site's and nothing else.
    assert.deepEqual(storedSubresources((crawls[0] as Crawl).db, north.origin), ['/api/1', '/api/2', '/api/home', '/app.js']);
    assert.deepEqual(storedSubresources((crawls[1] as Crawl).db, south.origin), ['/api/1', '/api/2', '/api/home', '/app.js']);
  });

  it('runs one render process for both crawls, and leaves it to its owner when they end', () => {
    assert.equal(pids.size, 1, `render processes seen: ${[...pids].join(', ')}`);
    assert.equal(most, 1);
    assert.ok(shared.started);
    assert.deepEqual(renderHostPids(), [...pids], 'the crawls ended, the shared browser did not');
  });
});

describe('a crawl aborted while the shared browser renders one of its pages', { skip }, () => {
  const dir = tempDir('forager-shared-render-abort-');
  const shared = new SharedRendering({ browserPath: '', renderTimeoutMs: 20_000 });
  let stuck: TestSite;
  let other: TestSite;
  const crawls: Crawl[] = [];

  before(async () => {
    // The stuck site's API never answers: its home page stays in the browser until its render is cancelled.
    const routes = scriptSite('Stuck');
    routes['/api/home'] = () => undefined;
    stuck = await startTestSite(routes);
    other = await startTestSite(scriptSite('Other'));
  });

  after(async () => {
    await shared.close();
    for (const crawl of crawls) crawl.db.close();
    await stuck?.close();
    await other?.close();
    dir.cleanup();
  });

  it('cancels the render at once, leaves the page queued, and the browser renders on for the other crawl', async () => {
    const settings = (site: TestSite): CrawlSettings => testSettings([`${site.origin}/`], { query: 'checkpoint journal', render: 'always', maxPages: 20, renderTimeoutMs: 20_000 });
    const aborted = engineFor(dir.dir, 'aborted', settings(stuck), shared);
    crawls.push(aborted);
    const run = aborted.engine.run();
    const started = Date.now();
    while (stuck.count('/api/home') === 0) {
      assert.ok(Date.now() - started < 15_000, 'the stuck page reached the browser');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [browserPid] = renderHostPids();
    const abortedAt = performance.now();
    aborted.engine.abort();
    assert.equal(await run, 'stopped');
    const tookMs = performance.now() - abortedAt;
    assert.ok(tookMs < 5000, `the run ended ${tookMs.toFixed(0)} ms after the abort, not at the render's time limit`);
    assert.equal(aborted.db.prepare('SELECT count(*) FROM renders').pluck().get(), 0, 'nothing of the cancelled render was stored');
    assert.equal(aborted.db.prepare('SELECT count(*) FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(`${stuck.origin}/`), 0);
    assert.equal(aborted.db.prepare('SELECT state FROM urls WHERE url = ?').pluck().get(`${stuck.origin}/`), UrlState.queued, 'the page waits for the next run');

    const next = engineFor(dir.dir, 'next', settings(other), shared);
    crawls.push(next);
    assert.equal(await next.engine.run(), 'exhausted');
    assert.equal(next.db.prepare('SELECT count(*) FROM renders').pluck().get(), 3, 'the other crawl rendered its three pages');
    assert.deepEqual(renderHostPids(), [browserPid], 'in the same render process');
  });
});
