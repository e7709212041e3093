import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrawlEngine, type RevisitEvent } from '../../crawler/engine/engine.ts';
import { RefreshPolicy } from '../../crawler/engine/run-policy.ts';
import { finishRefresh, startRefresh } from '../../crawler/engine/refresh-run.ts';
import { findBrowser } from '../../crawler/render/find-browser.ts';
import { storedRevisitCounts } from '../../crawler/library/stats.ts';
import type { Db } from '../../crawler/store/database.ts';
import { refreshInProgress } from '../../crawler/store/settings-store.ts';
import { RevisitStore } from '../../crawler/store/revisit-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { startChangingSite, type ChangingSite } from '../support/changing-site.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { isSoft404Probe } from '../support/test-site.ts';

const LAST_MODIFIED = 'Tue, 01 Sep 2026 10:00:00 GMT';

interface PageFacts {
  seq: number;
  version: number;
  goneAt: number | null;
  title: string | null;
  text: string | null;
  status: number;
  revisitCount: number;
  changeCount: number;
}

function pageOf(db: Db, url: string): PageFacts | undefined {
  return db
    .prepare(
      `SELECT p.seq, p.version, p.gone_at AS goneAt, p.title, p.text, p.status, p.revisit_count AS revisitCount, p.change_count AS changeCount
       FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`,
    )
    .get(url) as PageFacts | undefined;
}

function outcomesOf(db: Db, seq: number): string[] {
  return db.prepare('SELECT outcome FROM revisits WHERE page_seq = ? ORDER BY id').pluck().all(seq) as string[];
}

/** Every page of the site: each kind of page a refresh must tell apart. */
function fillSite(site: ChangingSite): void {
  const links = ['/etag', '/dated', '/plain', '/changes', '/goes-404', '/goes-410', '/stubborn', '/later-disallowed', '/wiki/Write-ahead_log', '/wiki/Checkpoint', '/wiki/Log_sequence_number']
    .map((path) => `<a href="${path}">${path}</a>`)
    .join(' ');
  site.pages.set('/', { body: `<p>Index of write-ahead logging notes.</p>${links}` });
  site.pages.set('/etag', { body: '<p>Checkpoints flush dirty pages.</p>', etag: '"etag-1"' });
  site.pages.set('/dated', { body: '<p>Log sequence numbers order records.</p>', lastModified: LAST_MODIFIED });
  site.pages.set('/plain', { body: '<p>No validators on this page about logging.</p>' });
  site.pages.set('/changes', { body: '<p>The old text about checkpoints and logs.</p>', etag: '"changes-1"' });
  site.pages.set('/goes-404', { body: '<p>Soon gone with a 404.</p>', lastModified: LAST_MODIFIED });
  site.pages.set('/goes-410', { body: '<p>Soon gone with a 410.</p>' });
  site.pages.set('/stubborn', { body: '<p>This server ignores conditional requests.</p>', etag: '"stubborn-1"' });
  site.ignoresConditionals.add('/stubborn');
  site.pages.set('/later-disallowed', { body: '<p>robots.txt will forbid this page.</p>', etag: '"robots-1"' });
  site.pages.set('/wiki/Write-ahead_log', { body: '<h1>Write-ahead log</h1><p>A write-ahead log records changes before they reach the data files, so recovery can replay them.</p>' });
  // A folder of several articles: one probe there is worth its request.
  site.pages.set('/wiki/Checkpoint', { body: '<h1>Checkpoint</h1><p>A checkpoint writes every dirty page to the data files, bounding the log a recovery must replay.</p>' });
  site.pages.set('/wiki/Log_sequence_number', { body: '<h1>Log sequence number</h1><p>Each record of the write-ahead log has a log sequence number giving its place in the log.</p>' });
  site.softNotFoundFolders.add('/wiki/');
}

describe('forager refresh: revisits with conditional requests', () => {
  const dir = tempDir();
  let site: ChangingSite;
  let db: Db;
  let settings: ReturnType<typeof testSettings>;
  const revisitEvents: RevisitEvent[] = [];

  before(async () => {
    site = await startChangingSite();
    fillSite(site);
    settings = testSettings([`${site.origin}/`], { probeSoft404: true, query: 'write-ahead logging checkpoints' });
    const crawl = await crawlOnce(dir.dir, settings);
    assert.equal(crawl.outcome, 'exhausted');
    db = crawl.db;
    // Between the runs: one page changes and links a new one, two go, a folder's page becomes its "no such article", robots.txt forbids one.
    site.pages.set('/changes', { body: '<p>The new text about checkpoints, logs and <a href="/new-page">a new page</a>.</p>', etag: '"changes-2"' });
    site.pages.set('/new-page', { body: '<p>A page that did not exist at the first crawl, about checkpoints.</p>' });
    site.pages.set('/goes-404', { body: '', status: 404 });
    site.pages.set('/goes-410', { body: '', status: 410 });
    site.pages.delete('/wiki/Write-ahead_log');
    site.robots = 'User-agent: *\nDisallow: /later-disallowed\n';
    site.log.length = 0;
    const refresh = startRefresh(db, {});
    const engine = new CrawlEngine(db, settings, { policy: new RefreshPolicy(refresh) });
    engine.on('revisit', (event) => revisitEvents.push(event));
    const outcome = await engine.run();
    finishRefresh(db, outcome);
    assert.equal(outcome, 'exhausted');
  });

  after(async () => {
    db?.close();
    await site?.close();
    dir.cleanup();
  });

  const requestOf = (path: string) => {
    const requests = site.log.filter((entry) => entry.path === path);
    assert.equal(requests.length, 1, `${path} asked once in the refresh, got ${requests.length}`);
    return requests[0] as (typeof requests)[0];
  };

  it('reads robots.txt afresh and obeys it: a page it now forbids is not asked for, and is kept', () => {
    assert.ok(site.log.some((entry) => entry.path === '/robots.txt'), 'robots.txt fetched again');
    assert.equal(site.log.filter((entry) => entry.path === '/later-disallowed').length, 0);
    const page = pageOf(db, `${site.origin}/later-disallowed`);
    assert.ok(page !== undefined && page.text?.includes('robots.txt will forbid'), 'the stored page is kept');
    const state = db.prepare('SELECT state FROM urls WHERE url = ?').pluck().get(`${site.origin}/later-disallowed`);
    assert.equal(state, UrlState.robotsBlocked);
  });

  it('sends If-None-Match from a stored ETag and records a 304 as a revisit without a body', () => {
    const request = requestOf('/etag');
    assert.equal(request.ifNoneMatch, '"etag-1"');
    assert.equal(request.ifModifiedSince, undefined);
    assert.equal(request.status, 304);
    const page = pageOf(db, `${site.origin}/etag`) as PageFacts;
    assert.equal(page.version, 1);
    assert.deepEqual(outcomesOf(db, page.seq), ['not-modified']);
    assert.equal(page.revisitCount, 1);
    assert.ok(page.text?.includes('Checkpoints flush dirty pages'), 'the stored version stays');
  });

  it('sends If-Modified-Since from a stored Last-Modified', () => {
    const request = requestOf('/dated');
    assert.equal(request.ifModifiedSince, LAST_MODIFIED);
    assert.equal(request.ifNoneMatch, undefined);
    assert.equal(request.status, 304);
    assert.deepEqual(outcomesOf(db, (pageOf(db, `${site.origin}/dated`) as PageFacts).seq), ['not-modified']);
  });

  it('sends no conditional header for a page stored without validators, and finds it identical by its payload', () => {
    const request = requestOf('/plain');
    assert.equal(request.ifNoneMatch, undefined);
    assert.equal(request.ifModifiedSince, undefined);
    assert.equal(request.status, 200);
    const page = pageOf(db, `${site.origin}/plain`) as PageFacts;
    assert.deepEqual(outcomesOf(db, page.seq), ['identical']);
    assert.equal(page.version, 1);
  });

  it('finds a server that ignores conditional requests unchanged by the payload digest', () => {
    const request = requestOf('/stubborn');
    assert.equal(request.ifNoneMatch, '"stubborn-1"');
    assert.equal(request.status, 200);
    const page = pageOf(db, `${site.origin}/stubborn`) as PageFacts;
    assert.deepEqual(outcomesOf(db, page.seq), ['identical']);
    assert.equal(page.version, 1);
  });

  it('stores a changed page as a new version under the same identity and keeps the old one', () => {
    const request = requestOf('/changes');
    assert.equal(request.ifNoneMatch, '"changes-1"');
    assert.equal(request.status, 200);
    const page = pageOf(db, `${site.origin}/changes`) as PageFacts;
    assert.equal(page.version, 2);
    assert.ok(page.text?.includes('The new text'), page.text ?? '');
    assert.deepEqual(outcomesOf(db, page.seq), ['changed']);
    const old = db.prepare('SELECT version, text, body IS NOT NULL AS hasBody FROM page_versions WHERE page_seq = ?').all(page.seq) as { version: number; text: string; hasBody: number }[];
    assert.equal(old.length, 1);
    assert.equal(old[0]?.version, 1);
    assert.ok(old[0]?.text.includes('The old text'));
    assert.equal(old[0]?.hasBody, 1, 'the old body moved to the version');
    // The full-text index finds the latest version under the page, the old one in the versions' index.
    const latestHits = db.prepare("SELECT rowid FROM pages_fts WHERE pages_fts MATCH 'new'").pluck().all() as number[];
    assert.ok(latestHits.includes(page.seq));
    const oldHits = db.prepare("SELECT rowid FROM pages_fts WHERE pages_fts MATCH 'old'").pluck().all() as number[];
    assert.ok(!oldHits.includes(page.seq), 'the old text is no longer indexed as the latest');
    assert.equal(db.prepare("SELECT count(*) FROM versions_fts WHERE versions_fts MATCH 'old'").pluck().get(), 1);
  });

  it('fetches the new page a changed version links to, ordered like any new URL', () => {
    const page = pageOf(db, `${site.origin}/new-page`);
    assert.ok(page !== undefined, 'the new page was fetched');
    assert.equal(page.version, 1);
    assert.equal(site.log.filter((entry) => entry.path === '/new-page').length, 1);
  });

  it('marks pages answering 404 and 410 gone and keeps them', () => {
    for (const path of ['/goes-404', '/goes-410']) {
      const page = pageOf(db, `${site.origin}${path}`) as PageFacts;
      assert.ok(page.goneAt !== null, `${path} is gone`);
      assert.equal(page.status, 200, 'the last good version stays');
      assert.ok(page.text?.includes('Soon gone'));
      assert.deepEqual(outcomesOf(db, page.seq), ['gone']);
    }
  });

  it('learns a folder that answers 200 for any name, and marks its page that now says "not found" gone', () => {
    const probes = site.requests.filter(isSoft404Probe);
    assert.ok(probes.some((path) => path.startsWith('/wiki/forager-probe-')), `a probe of /wiki/: ${probes.join(', ')}`);
    const folder = db.prepare("SELECT simhash IS NOT NULL AS soft FROM soft404_folders WHERE folder = '/wiki/'").get() as { soft: number } | undefined;
    assert.equal(folder?.soft, 1, 'the folder answers 200 for any name');
    const page = pageOf(db, `${site.origin}/wiki/Write-ahead_log`) as PageFacts;
    assert.ok(page.goneAt !== null, 'the soft 404 marks it gone');
    assert.ok(page.text?.includes('recovery can replay'), 'the article as it was is kept');
    assert.deepEqual(outcomesOf(db, page.seq), ['gone']);
  });

  it('reports each revisit, and ends the refresh so that the next one starts afresh', () => {
    const outcomes = new Map<string, string>(revisitEvents.map((event) => [new URL(event.url).pathname, event.outcome]));
    assert.equal(outcomes.get('/etag'), 'not-modified');
    assert.equal(outcomes.get('/changes'), 'changed');
    assert.equal(outcomes.get('/goes-410'), 'gone');
    assert.equal(refreshInProgress(db), undefined);
    // The figures at rest count every revisit by outcome, as the run did.
    const atRest = storedRevisitCounts(db);
    const counted = { notModified: 0, identical: 0, changed: 0, gone: 0 };
    for (const event of revisitEvents) counted[event.outcome === 'not-modified' ? 'notModified' : event.outcome]++;
    assert.deepEqual(atRest, { ...counted, queued: 0 });
    const waiting = db.prepare(`SELECT count(*) FROM urls WHERE state = ${UrlState.queued} AND id IN (SELECT url_id FROM pages)`).pluck().get();
    assert.equal(waiting, 0, 'no revisit left waiting');
  });

  it('a second refresh sends the changed page the new ETag and finds everything as it was', async () => {
    site.log.length = 0;
    const refresh = startRefresh(db, {});
    const outcome = await new CrawlEngine(db, settings, { policy: new RefreshPolicy(refresh) }).run();
    finishRefresh(db, outcome);
    assert.equal(requestOf('/changes').ifNoneMatch, '"changes-2"');
    assert.equal(requestOf('/changes').status, 304);
    const page = pageOf(db, `${site.origin}/changes`) as PageFacts;
    assert.equal(page.version, 2);
    assert.deepEqual(outcomesOf(db, page.seq), ['changed', 'not-modified']);
    assert.equal(page.revisitCount, 2);
    assert.equal(page.changeCount, 1);
    // The pooled rate's totals add up what the pages count.
    const sums = db.prepare('SELECT sum(revisit_count) AS checks, sum(change_count) AS changes FROM pages WHERE revisit_count > 0').get() as { checks: number; changes: number };
    const totals = new RevisitStore(db).totals();
    assert.deepEqual({ checks: totals.checks, changes: totals.changes }, sums);
    assert.ok(totals.spanMs > 0, 'the revisits span some time');
  });
});

describe('forager refresh: budget and hosts', () => {
  it('spends --max-pages on the pages most likely changed that matter most, and a host filter keeps to its host', async () => {
    const dir = tempDir();
    const site = await startChangingSite();
    try {
      const paths = Array.from({ length: 12 }, (_, i) => `/p${i}`);
      site.pages.set('/', { body: paths.map((path) => `<a href="${path}">${path}</a>`).join(' ') });
      for (const path of paths) site.pages.set(path, { body: `<p>${path === '/p3' ? 'checkpoints and write-ahead logging' : 'nothing much'} on ${path}</p>` });
      const settings = testSettings([`${site.origin}/`], { query: 'write-ahead logging checkpoints' });
      const crawl = await crawlOnce(dir.dir, settings);
      site.log.length = 0;
      const refresh = startRefresh(crawl.db, { maxFetches: 3, hosts: [new URL(site.origin).host] });
      assert.equal(refresh.maxFetches, 3);
      const outcome = await new CrawlEngine(crawl.db, settings, { policy: new RefreshPolicy(refresh) }).run();
      finishRefresh(crawl.db, outcome);
      assert.equal(outcome, 'budget');
      const asked = site.log.filter((entry) => entry.path !== '/robots.txt').map((entry) => entry.path);
      assert.equal(asked.length, 3, asked.join(', '));
      // The sitemap (a site resource) goes first, then the hot page.
      assert.ok(asked.includes('/p3'), `the on-topic page is among the first revisits: ${asked.join(', ')}`);
      assert.throws(() => startRefresh(crawl.db, { hosts: ['elsewhere.example'] }), /no pages from host "elsewhere.example"/);
      assert.equal(refreshInProgress(crawl.db), undefined, 'a refused refresh is not left in progress');
      crawl.db.close();
    } finally {
      await site.close();
      dir.cleanup();
    }
  });
});

describe('forager crawl --revisit-after', () => {
  it('keeps crawling after the frontier is empty and revisits pages come due', async () => {
    const dir = tempDir();
    const site = await startChangingSite();
    try {
      site.pages.set('/', { body: '<a href="/a">a</a>' });
      site.pages.set('/a', { body: '<p>first text</p>', etag: '"a-1"' });
      const settings = testSettings([`${site.origin}/`], { revisitAfter: '1s' });
      const crawl = await crawlOnce(dir.dir, { ...settings, revisitAfter: '' });
      crawl.db.close();
      const { openCollection } = await import('../../crawler/store/database.ts');
      const db = openCollection(crawl.dbPath, { create: false });
      site.pages.set('/a', { body: '<p>second text <a href="/b">b</a></p>', etag: '"a-2"' });
      site.pages.set('/b', { body: '<p>new page b</p>' });
      site.log.length = 0;
      const engine = new CrawlEngine(db, settings);
      const seen: RevisitEvent[] = [];
      engine.on('revisit', (event) => {
        seen.push(event);
        if (seen.some((e) => e.outcome === 'changed')) setTimeout(() => engine.stop(), 300);
      });
      const stopper = setTimeout(() => engine.stop(), 15_000);
      const outcome = await engine.run();
      clearTimeout(stopper);
      assert.equal(outcome, 'stopped', 'a crawl that revisits runs until stopped');
      const a = site.log.find((entry) => entry.path === '/a');
      assert.equal(a?.ifNoneMatch, '"a-1"');
      assert.equal(pageOf(db, `${site.origin}/a`)?.version, 2);
      assert.ok(pageOf(db, `${site.origin}/b`) !== undefined, 'the new page linked from the changed one was crawled');
      assert.equal(engine.stats().revisits?.changed, 1);
      db.close();
    } finally {
      await site.close();
      dir.cleanup();
    }
  });
});

describe("forager refresh: a sitemap's lastmod", () => {
  it('revisits the sitemap first, then the pages it says changed since the last check', async () => {
    const dir = tempDir();
    const site = await startChangingSite();
    try {
      const paths = Array.from({ length: 10 }, (_, i) => `/doc${i}`);
      const sitemap = (lastmods: (path: string) => string): string =>
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((path) => `<url><loc>${site.origin}${path}</loc><lastmod>${lastmods(path)}</lastmod></url>`).join('')}</urlset>`;
      site.pages.set('/', { body: paths.map((path) => `<a href="${path}">${path}</a>`).join(' ') });
      for (const path of paths) site.pages.set(path, { body: `<p>Notes on checkpoints, ${path}.</p>` });
      site.pages.set('/sitemap.xml', { body: sitemap(() => '2026-01-01'), contentType: 'application/xml' });
      // A polite wait, as any real crawl has: the sitemap's answer is read before the host's next turn.
      const settings = testSettings([`${site.origin}/`], { query: 'checkpoints', delayMs: 300 });
      const crawl = await crawlOnce(dir.dir, settings);
      // Two pages change, and the sitemap says so.
      for (const path of ['/doc4', '/doc8']) site.pages.set(path, { body: `<p>Notes on checkpoints, ${path}, revised.</p>` });
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      site.pages.set('/sitemap.xml', { body: sitemap((path) => (path === '/doc4' || path === '/doc8' ? tomorrow : '2026-01-01')), contentType: 'application/xml' });
      site.log.length = 0;
      const arrivalsBefore = site.arrivals.length;
      const refresh = startRefresh(crawl.db, { maxFetches: 3 });
      const outcome = await new CrawlEngine(crawl.db, settings, { policy: new RefreshPolicy(refresh) }).run();
      finishRefresh(crawl.db, outcome);
      const asked = site.log.filter((entry) => entry.path !== '/robots.txt').map((entry) => entry.path);
      assert.deepEqual(asked[0], '/sitemap.xml', asked.join(', '));
      assert.deepEqual(new Set(asked.slice(1)), new Set(['/doc4', '/doc8']), asked.join(', '));
      for (const path of ['/doc4', '/doc8']) assert.equal(pageOf(crawl.db, `${site.origin}${path}`)?.version, 2);
      // Politeness holds as in a crawl: one host, the delay between its requests (robots.txt's included).
      const arrivals = site.arrivals.slice(arrivalsBefore);
      for (let i = 1; i < arrivals.length; i++) assert.ok((arrivals[i] as number) - (arrivals[i - 1] as number) >= 290, `request ${i} came ${((arrivals[i] as number) - (arrivals[i - 1] as number)).toFixed(0)} ms after the one before`);
      crawl.db.close();
    } finally {
      await site.close();
      dir.cleanup();
    }
  });
});

describe('forager refresh: a page the crawl rendered', { skip: findBrowser('').kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  it('renders its changed version as the crawl did', async () => {
    const dir = tempDir();
    const site = await startChangingSite();
    try {
      const app = (words: string): string => `<div id="root"></div><script>document.getElementById('root').innerHTML = '<p>${words}</p>';</script>`;
      site.pages.set('/', { body: app('the first rendering, about checkpoints') });
      const settings = testSettings([`${site.origin}/`], { query: 'checkpoints', render: 'always' });
      const crawl = await crawlOnce(dir.dir, settings);
      assert.match(pageOf(crawl.db, `${site.origin}/`)?.text ?? '', /first rendering/);
      site.pages.set('/', { body: app('the second rendering, about checkpoints') });
      const refresh = startRefresh(crawl.db, {});
      const engine = new CrawlEngine(crawl.db, settings, { policy: new RefreshPolicy(refresh) });
      finishRefresh(crawl.db, await engine.run());
      const page = pageOf(crawl.db, `${site.origin}/`) as PageFacts;
      assert.equal(page.version, 2);
      assert.match(page.text ?? '', /second rendering/, 'the new version is judged by its rendered text');
      assert.equal(crawl.db.prepare('SELECT count(*) FROM renders WHERE page_seq = ?').pluck().get(page.seq), 1, 'its render is stored');
      assert.equal(engine.stats().rendered, 2, 'the render of the crawl and the render of the refresh');
      crawl.db.close();
    } finally {
      await site.close();
      dir.cleanup();
    }
  });
});
