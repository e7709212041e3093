/**
 * Site resources end to end: robots.txt's Sitemap line, a sitemap index, a sitemap listing a
 * page no page links to, and a Sphinx-like site whose search index names its pages; the
 * events a strategy sees live, on resume (history replay) and in the lab.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { loadLabGraph } from '../../crawler/lab/load.ts';
import { virtualCrawl } from '../../crawler/lab/virtual-crawl.ts';
import { termsOfWords } from '../../crawler/relevance/text.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { openCollection, type Db } from '../../crawler/store/database.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { tempDir, testSettings, urlRecord } from '../support/crawl-harness.ts';
import { RecordingStrategy, type RecordedEvent } from '../support/recording-strategy.ts';
import { html, startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

const text = (type: string, body: string): Handler => (_req, res) => void res.writeHead(200, { 'content-type': type }).end(body);

function docsSite(origin: () => string, otherOrigin: string): Record<string, Handler> {
  return {
    '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private/\nSitemap: ${origin()}/sitemap-index.xml\n`),
    '/sitemap-index.xml': (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin()}/sitemap-pages.xml</loc></sitemap></sitemapindex>`),
    '/sitemap-pages.xml': (_req, res) =>
      void res.writeHead(200, { 'content-type': 'text/xml' }).end(
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
           <url><loc>${origin()}/docs/unlinked.html</loc><lastmod>2024-05-01</lastmod></url>
           <url><loc>${origin()}/docs/index.html</loc></url>
         </urlset>`,
      ),
    '/docs/index.html': html(
      `<script src="_static/documentation_options.js?v=1"></script><p>The manual.</p><a href="guide/wal.html">WAL guide</a> <a href="${otherOrigin}/elsewhere">elsewhere</a>`,
      'Docs home',
    ),
    '/docs/searchindex.js': text(
      'application/javascript',
      `Search.setIndex(${JSON.stringify({
        docnames: ['index', 'guide/wal', 'guide/hidden'],
        titles: ['Docs home', 'Write-ahead logging', 'Hidden treasure'],
        terms: { manual: 0, checkpoints: [1, 2], treasure: 2 },
        titleterms: { docs: 0, logging: 1, treasure: 2 },
      })})`,
    ),
    '/docs/guide/wal.html': html('<p>Checkpoints.</p>', 'WAL'),
    '/docs/guide/hidden.html': html('<p>Found only through the search index.</p>', 'Hidden'),
    '/docs/unlinked.html': html('<p>Found only through the sitemap.</p>', 'Unlinked'),
  };
}

const byJson = (a: unknown, b: unknown): number => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

/** The distinct linked() events that name a site resource, in a fixed order. */
function resourceLinks(events: readonly RecordedEvent[]): RecordedEvent[] {
  const distinct = new Map(events.filter((e) => e.type === 'linked' && e.kind !== 'page').map((e) => [JSON.stringify(e), e]));
  return [...distinct.values()].sort(byJson);
}

/** The events of each fetched resource: its links, then its hints right before its fetched(). */
function assertResourceOrder(events: readonly RecordedEvent[], resource: string): void {
  const fetchedAt = events.findIndex((e) => e.type === 'fetched' && e.url === resource);
  assert.ok(fetchedAt >= 0, `${resource} fetched`);
  let firstHint = fetchedAt;
  while (firstHint > 0 && events[firstHint - 1]?.type === 'hinted') firstHint--;
  assert.ok(firstHint < fetchedAt, `${resource} gave hints right before its fetched()`);
  const lastLink = events.findLastIndex((e) => e.type === 'linked' && e.src === resource);
  assert.ok(lastLink >= 0 && lastLink < firstHint, `${resource}: every linked() before its hinted()`);
  const hinted = events.slice(firstHint, fetchedAt).map((e) => (e as { url: string }).url);
  const linked = new Set(events.filter((e) => e.type === 'linked' && e.src === resource).map((e) => (e as { url: string }).url));
  for (const url of hinted) assert.ok(linked.has(url), `${url} was linked by ${resource} before it was hinted`);
}

describe('sitemaps and search indexes', () => {
  const tmp = tempDir('forager-resources-');
  let docs: TestSite;
  let other: TestSite;
  let plain: TestSite;
  let settings: CrawlSettings;
  let db: Db;
  const live = new RecordingStrategy();
  const at = (path: string): string => `${docs.origin}${path}`;

  before(async () => {
    other = await startTestSite({ '/robots.txt': (_q, r) => void r.writeHead(404).end(), '/elsewhere': html('<p>Another host.</p>', 'Elsewhere') });
    docs = await startTestSite(docsSite(() => docs.origin, other.origin));
    plain = await startTestSite({ '/robots.txt': text('text/plain', 'User-agent: *\nAllow: /\n'), '/': html('<p>No sitemap here.</p>', 'Plain') });
    settings = testSettings([at('/docs/index.html'), `${plain.origin}/`], { scope: 'any', allowPrivate: true, maxPages: 100 });
    db = openCollection(`${tmp.dir}/crawl.db`, { create: true });
    saveSettings(db, settings);
    assert.equal(await new CrawlEngine(db, settings, { strategy: live, parseWorkers: 1 }).run(), 'exhausted');
  });

  after(async () => {
    db?.close();
    await Promise.all([docs?.close(), other?.close(), plain?.close()]);
    tmp.cleanup();
  });

  it('fetches the sitemaps robots.txt names, and the page only a sitemap lists', () => {
    for (const path of ['/sitemap-index.xml', '/sitemap-pages.xml', '/docs/unlinked.html']) assert.equal(docs.count(path), 1, path);
    assert.equal(urlRecord(db, at('/docs/unlinked.html'))?.state, UrlState.fetched);
    const rows = db.prepare('SELECT u.url, u.kind, p.status, p.note, p.title, p.text, p.relevance, p.hot FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.kind <> 0 AND u.url LIKE ? ORDER BY u.url').all(`${docs.origin}/%`);
    assert.deepEqual(rows, [
      { url: at('/docs/searchindex.js'), kind: 2, status: 200, note: 'resource:search-index', title: null, text: null, relevance: null, hot: 0 },
      { url: at('/sitemap-index.xml'), kind: 1, status: 200, note: 'resource:sitemap', title: null, text: null, relevance: null, hot: 0 },
      { url: at('/sitemap-pages.xml'), kind: 1, status: 200, note: 'resource:sitemap', title: null, text: null, relevance: null, hot: 0 },
    ]);
    assert.deepEqual(db.prepare('SELECT p.status, p.note FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').get(`${plain.origin}/sitemap.xml`), {
      status: 404,
      note: 'resource:sitemap',
    });
    const indexed = db.prepare("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH 'docnames OR titleterms OR urlset OR sitemapindex'").pluck().get();
    assert.equal(indexed, 0, 'resources are not in the full-text index');
  });

  it("asks a seed host without a Sitemap line for /sitemap.xml once, and other hosts never", () => {
    assert.equal(plain.count('/sitemap.xml'), 1);
    assert.equal(docs.count('/sitemap.xml'), 0, 'robots.txt named its sitemap');
    assert.equal(other.count('/elsewhere'), 1, 'the other host was crawled');
    assert.equal(other.count('/sitemap.xml'), 0);
    assert.equal(docs.count('/docs/_static/documentation_options.js'), 0, 'scripts are never fetched');
  });

  it("stores the search index's pages as its links, titles as anchors", () => {
    const links = db
      .prepare(
        `SELECT d.url, l.anchor, l.context_before || l.context_after AS context FROM links l JOIN pages p ON p.seq = l.src_seq
         JOIN urls s ON s.id = p.url_id JOIN urls d ON d.id = l.dst_id WHERE s.url = ? ORDER BY d.url`,
      )
      .all(at('/docs/searchindex.js'));
    assert.deepEqual(links, [
      { url: at('/docs/guide/hidden.html'), anchor: 'Hidden treasure', context: '' },
      { url: at('/docs/guide/wal.html'), anchor: 'Write-ahead logging', context: '' },
      { url: at('/docs/index.html'), anchor: 'Docs home', context: '' },
    ]);
    assert.equal(docs.count('/docs/guide/hidden.html'), 1);
  });

  it('tells the strategy: linked() with kinds, then hinted() per listed page, then fetched()', () => {
    const events = live.events;
    assert.deepEqual(resourceLinks(events), [
      { type: 'linked', src: null, url: at('/sitemap-index.xml'), kind: 'sitemap', anchor: '' },
      { type: 'linked', src: null, url: `${plain.origin}/sitemap.xml`, kind: 'sitemap', anchor: '' },
      { type: 'linked', src: at('/docs/index.html'), url: at('/docs/searchindex.js'), kind: 'search-index', anchor: '' },
      { type: 'linked', src: at('/sitemap-index.xml'), url: at('/sitemap-pages.xml'), kind: 'sitemap', anchor: '' },
    ].sort(byJson));
    const stems = (...words: string[]): string[] => termsOfWords(words);
    assert.deepEqual(live.hintsByResource(), new Map([
      [at('/sitemap-pages.xml'), [{ type: 'hinted', url: at('/docs/unlinked.html'), hint: { source: 'sitemap', lastModified: Date.UTC(2024, 4, 1) } }]],
      [
        at('/docs/searchindex.js'),
        [
          { type: 'hinted', url: at('/docs/index.html'), hint: { source: 'search-index', terms: stems('manual'), titleTerms: stems('docs') } },
          { type: 'hinted', url: at('/docs/guide/wal.html'), hint: { source: 'search-index', terms: stems('checkpoints'), titleTerms: stems('logging') } },
          { type: 'hinted', url: at('/docs/guide/hidden.html'), hint: { source: 'search-index', terms: stems('checkpoints', 'treasure'), titleTerms: stems('treasure') } },
        ],
      ],
    ]));
    for (const resource of [at('/sitemap-pages.xml'), at('/docs/searchindex.js')]) assertResourceOrder(events, resource);
    const sitemapIndexAt = events.findIndex((e) => e.type === 'linked' && e.url === at('/sitemap-index.xml'));
    const firstDocsPage = events.findIndex((e) => e.type === 'fetched' && e.url.startsWith(docs.origin));
    assert.ok(sitemapIndexAt < firstDocsPage, 'robots.txt is read, and its sitemap admitted, before the host gives a page');
  });

  it('replays the same hints on resume, after the same links', async () => {
    const replayed = new RecordingStrategy();
    const resumed = new CrawlEngine(db, { ...settings, maxPages: 200 }, { strategy: replayed, parseWorkers: 0 });
    assert.equal(await resumed.run(), 'exhausted');
    assert.deepEqual(replayed.hintsByResource(), live.hintsByResource());
    const hinted = (events: readonly RecordedEvent[]): RecordedEvent[] => events.filter((e) => e.type === 'hinted');
    assert.deepEqual(hinted(replayed.events), hinted(live.events), 'in the same order');
    for (const resource of [at('/sitemap-pages.xml'), at('/docs/searchindex.js')]) assertResourceOrder(replayed.events, resource);
    assert.deepEqual(resourceLinks(replayed.events), resourceLinks(live.events));
  });

  it('replays the same hints in the lab', () => {
    const graph = loadLabGraph(db);
    const lab = new RecordingStrategy();
    virtualCrawl(graph, lab, graph.pageCount);
    assert.deepEqual(lab.hintsByResource(), live.hintsByResource());
    for (const resource of [at('/sitemap-pages.xml'), at('/docs/searchindex.js')]) assertResourceOrder(lab.events, resource);
    const roots = lab.events.filter((e) => e.type === 'linked' && e.src === null).map((e) => (e as { url: string }).url);
    assert.deepEqual(roots.slice(0, 2), [at('/docs/index.html'), `${plain.origin}/`], 'the seeds first');
    assert.deepEqual(roots.slice(2).sort(), [at('/sitemap-index.xml'), `${plain.origin}/sitemap.xml`].sort(), 'then the sitemaps robots.txt led to');
  });
});
