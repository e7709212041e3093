/*
 * Exact duplicates are stored once, near-duplicates are marked (their links still followed),
 * and a host's soft 404s (a 200 that says "not found", recognised by probing one path that
 * cannot exist) are marked and never hot.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { countSelected } from '../../crawler/library/export-selection.ts';
import { PageLookup } from '../../crawler/library/page-lookup.ts';
import { pageTable } from '../../crawler/library/page-table.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { crawlOnce, tempDir, testSettings, urlRecord, type CrawlRun } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';
import { pseudoWords } from '../support/random.ts';

const words = (seed: number, count: number): string => pseudoWords(seed, count, 'checkpoint', 3000);

const ARTICLE = words(7, 500);
const NOT_FOUND = `<h1>Sorry</h1><p>We looked everywhere for this write-ahead log checkpoint page but it is not here. ${words(99, 60)}</p>`;

describe('duplicates and soft 404s', () => {
  let site: TestSite;
  let run: CrawlRun;
  const dir = tempDir('forager-dups-');
  const url = (path: string): string => `${site.origin}${path}`;

  before(async () => {
    site = await startTestSite(
      {
        '/': html('<a href="/article">a</a> <a href="/article-copy">b</a> <a href="/article-edited">c</a> <a href="/gone">d</a> <a href="/other">e</a>', 'Home'),
        '/article': html(`<p>${ARTICLE}</p>`, 'Article'),
        '/article-copy': html(`<p>${ARTICLE}</p>`, 'Article'),
        '/article-edited': html(`<p>${ARTICLE.replace(/checkpoint\d+/, 'edited')} <a href="/only-from-edited">more</a></p>`, 'Article'),
        '/only-from-edited': html(`<p>${words(11, 200)}</p>`, 'Reached'),
        '/other': html(`<p>${words(3, 500)}</p>`, 'Other'),
      },
      // Every other path, the probe's included: a 200 that says "not found".
      html(NOT_FOUND, 'Not found'),
    );
    run = await crawlOnce(dir.dir, testSettings([url('/')], { allowPrivate: true, probeSoft404: true, query: 'write-ahead log checkpoint', hotThreshold: 0.0001 }));
  });

  after(async () => {
    run.db.close();
    await site.close();
    dir.cleanup();
  });

  const row = (path: string) =>
    run.db.prepare('SELECT p.seq, p.body IS NOT NULL AS hasBody, p.duplicate_of AS duplicateOf, p.duplicate_kind AS kind, p.soft404, p.hot FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').get(url(path)) as
      | { seq: number; hasBody: number; duplicateOf: number | null; kind: string | null; soft404: number; hot: number }
      | undefined;

  test('the same body is stored once; reading the copy gives the bytes', () => {
    const original = row('/article');
    const copy = row('/article-copy');
    assert.ok(original !== undefined && copy !== undefined);
    assert.deepEqual([original.hasBody, original.duplicateOf], [1, null]);
    assert.deepEqual([copy.hasBody, copy.duplicateOf, copy.kind], [0, original.seq, 'exact']);
    const stored = new PageLookup(run.db).page(copy.seq);
    assert.ok(stored?.body != null);
    assert.match(gunzipSync(stored.body).toString('utf8'), /<title>Article<\/title>/);
  });

  test('nearly the same text is a near-duplicate of the first, and its links are still followed', () => {
    const edited = row('/article-edited');
    assert.deepEqual([edited?.hasBody, edited?.duplicateOf, edited?.kind], [1, row('/article')?.seq, 'near']);
    assert.equal(urlRecord(run.db, url('/only-from-edited'))?.state, UrlState.fetched);
    assert.equal(row('/other')?.duplicateOf, null);
  });

  test("a 200 that matches the host's answer for a page that cannot exist is a soft 404, never hot", () => {
    assert.ok(site.requests.some((path) => path.startsWith('/forager-probe-')), 'the host was probed once');
    assert.equal(site.requests.filter((path) => path.startsWith('/forager-probe-')).length, 1);
    const gone = row('/gone');
    assert.deepEqual([gone?.soft404, gone?.hot], [1, 0]);
    assert.equal(row('/article')?.soft404, 0);
  });

  test('the page list shows them, and an export can leave them out', () => {
    const pages = pageTable(run.db, { sort: 'url', limit: 100 }).pages;
    const byPath = new Map(pages.map((p) => [new URL(p.url).pathname, p]));
    assert.deepEqual(byPath.get('/article-copy')?.duplicate, { kind: 'exact', of: url('/article') });
    assert.deepEqual(byPath.get('/article-edited')?.duplicate, { kind: 'near', of: url('/article') });
    assert.equal(byPath.get('/gone')?.soft404, true);
    const all = countSelected(run.db, {});
    assert.equal(countSelected(run.db, { skipDuplicates: true }), all - 3);
  });
});
