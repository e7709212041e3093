import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { analyseResponse, type ResponseInput } from '../../../../crawler/parse/analyse-response.ts';
import { MAX_RESOURCE_ENTRIES } from '../../../../crawler/parse/resource-entries.ts';
import { MAX_TERMS_PER_DOC, readSearchIndex } from '../../../../crawler/parse/search-index.ts';
import { analyseSiteResource } from '../../../../crawler/parse/site-resources.ts';
import { parseW3cDatetime, readSitemap } from '../../../../crawler/parse/sitemap.ts';
import { termsOfWords } from '../../../../crawler/relevance/text.ts';

const LIMITS = { maxDecodedBytes: 1024 * 1024 };
const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

const URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc> https://docs.example/a?x=1&amp;y=2 </loc><lastmod>2024-05-01</lastmod></url>
  <url>
    <loc>https://docs.example/b</loc>
    <lastmod>2024-05-01T10:20:30+02:00</lastmod>
    <image:image><image:loc>https://cdn.example/picture.png</image:loc></image:image>
  </url>
  <url><loc><![CDATA[https://docs.example/c]]></loc><changefreq>daily</changefreq></url>
  <url><loc>https://docs.example/d</loc><lastmod>yesterday</lastmod></url>
  <url><lastmod>2024-01-01</lastmod></url>
</urlset>`;

describe('sitemaps', () => {
  it('lists the pages of a <urlset>, with lastmod as epoch ms when it is a W3C datetime', () => {
    assert.deepEqual(readSitemap(URLSET), {
      note: null,
      entries: [
        { href: 'https://docs.example/a?x=1&y=2', anchor: '', hint: { source: 'sitemap', lastModified: Date.UTC(2024, 4, 1) } },
        { href: 'https://docs.example/b', anchor: '', hint: { source: 'sitemap', lastModified: Date.UTC(2024, 4, 1, 8, 20, 30) } },
        { href: 'https://docs.example/c', anchor: '' },
        { href: 'https://docs.example/d', anchor: '' },
      ],
    });
  });

  it('lists the sitemaps of a <sitemapindex> as sitemaps', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>https://docs.example/sitemap-1.xml.gz</loc><lastmod>2024-05-01</lastmod></sitemap>
      <sitemap><loc>/sitemap-2.xml</loc></sitemap>
    </sitemapindex>`;
    assert.deepEqual(readSitemap(xml), {
      note: null,
      entries: [
        { href: 'https://docs.example/sitemap-1.xml.gz', anchor: '', kind: 'sitemap' },
        { href: '/sitemap-2.xml', anchor: '', kind: 'sitemap' },
      ],
    });
  });

  it('reads W3C datetimes only', () => {
    assert.equal(parseW3cDatetime('2024'), Date.UTC(2024, 0, 1));
    assert.equal(parseW3cDatetime('2024-02'), Date.UTC(2024, 1, 1));
    assert.equal(parseW3cDatetime('2024-02-03T04:05Z'), Date.UTC(2024, 1, 3, 4, 5));
    assert.equal(parseW3cDatetime('2024-02-03T04:05:06.789123-01:00'), Date.UTC(2024, 1, 3, 5, 5, 6, 789));
    assert.equal(parseW3cDatetime('2024-02-03T04:05:06'), Date.UTC(2024, 1, 3, 4, 5, 6), 'a time without a zone is UTC');
    for (const bad of ['', 'yesterday', 'May 1 2024', '2024-13-45', '24-01-01', '2024-01-01 10:00']) assert.equal(parseW3cDatetime(bad), undefined, bad);
  });

  it('inflates a gzipped sitemap (a .xml.gz served as it is), within the decoded-size limit', () => {
    const plain = analyseSiteResource('sitemap', utf8(URLSET), 'https://docs.example/sitemap.xml', LIMITS);
    const gzipped = analyseSiteResource('sitemap', gzipSync(utf8(URLSET)), 'https://docs.example/sitemap.xml.gz', LIMITS);
    assert.equal(gzipped.entries.length, 4);
    assert.deepEqual(gzipped, plain);
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20));
    assert.deepEqual(analyseSiteResource('sitemap', bomb, 'https://docs.example/s.xml.gz', LIMITS), { kind: 'sitemap', note: 'gzip:too-large', entries: [] });
    const corrupt = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]);
    assert.equal(analyseSiteResource('sitemap', corrupt, 'https://docs.example/s.xml.gz', LIMITS).note, 'gzip:corrupt');
  });

  it('gives what a broken or cut-off file holds, with a note, and never throws', () => {
    const cut = URLSET.slice(0, URLSET.indexOf('docs.example/c'));
    assert.deepEqual(readSitemap(cut).entries.map((e) => e.href), ['https://docs.example/a?x=1&y=2', 'https://docs.example/b']);
    assert.equal(readSitemap(cut).note, 'sitemap:malformed');
    const gzippedCut = gzipSync(utf8(URLSET)).subarray(0, 200);
    const fromCutGzip = analyseSiteResource('sitemap', gzippedCut, 'https://docs.example/s.xml.gz', LIMITS);
    assert.ok(fromCutGzip.entries.length >= 1 && fromCutGzip.note === 'sitemap:malformed', JSON.stringify(fromCutGzip));
    assert.deepEqual(readSitemap('<html><body><a href="/x">x</a></body></html>'), { note: 'sitemap:not-a-sitemap', entries: [] });
    assert.deepEqual(readSitemap(''), { note: 'sitemap:not-a-sitemap', entries: [] });
    const noise = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256));
    assert.doesNotThrow(() => analyseSiteResource('sitemap', noise, 'https://docs.example/s.xml', LIMITS));
    assert.deepEqual(readSitemap('<urlset><url><loc>https://docs.example/x</loc></url></wrong></urlset><url><loc>https://docs.example/late</loc></url>').entries, [
      { href: 'https://docs.example/x', anchor: '' },
    ]);
  });

  it(`keeps the first ${MAX_RESOURCE_ENTRIES} entries of a file and counts the rest`, () => {
    const urls = Array.from({ length: MAX_RESOURCE_ENTRIES + 3 }, (_, i) => `<url><loc>https://docs.example/p${i}</loc></url>`).join('');
    const read = readSitemap(`<urlset>${urls}</urlset>`);
    assert.equal(read.entries.length, MAX_RESOURCE_ENTRIES);
    assert.equal(read.entries.at(-1)?.href, `https://docs.example/p${MAX_RESOURCE_ENTRIES - 1}`);
    assert.equal(read.note, 'entries-dropped:3');
  });
});

const stems = (...words: string[]): string[] => termsOfWords(words);

const SPHINX = `Search.setIndex(${JSON.stringify({
  docnames: ['index', 'guide/wal', '//evil.example/x'],
  filenames: ['index.rst', 'guide/wal.rst', 'x.rst'],
  titles: ['Home', 'Write-ahead   logging', 'Elsewhere'],
  terms: { checkpoints: 1, logging: [0, 1], the: [0, 1], bogus: [7, -1, 'x', 1.5], odd: 'not a posting' },
  titleterms: { wal: 1, home: 0, logging: 1 },
  envversion: { sphinx: 61 },
})});\n`;

describe('Sphinx searchindex.js', () => {
  it('lists every document as its .html page beside the index, with its title and our stems of its terms', () => {
    const read = readSearchIndex(SPHINX, 'https://docs.example/en/searchindex.js');
    assert.equal(read.note, null);
    assert.deepEqual(read.entries, [
      { href: 'https://docs.example/en/index.html', anchor: 'Home', hint: { source: 'search-index', terms: stems('logging'), titleTerms: stems('home') } },
      {
        href: 'https://docs.example/en/guide/wal.html',
        anchor: 'Write-ahead logging',
        hint: { source: 'search-index', terms: stems('checkpoints', 'logging'), titleTerms: stems('wal', 'logging') },
      },
      // A docname cannot leave the site: it is a path below the index's folder.
      { href: 'https://docs.example/en///evil.example/x.html', anchor: 'Elsewhere', hint: { source: 'search-index', terms: [], titleTerms: [] } },
    ]);
    assert.deepEqual(stems('checkpoints', 'logging'), ['checkpoint', 'log']);
  });

  it(`keeps a document's ${MAX_TERMS_PER_DOC} rarest terms`, () => {
    const terms: Record<string, number | number[]> = {};
    for (let i = 0; i < MAX_TERMS_PER_DOC + 100; i++) terms[`common${String.fromCharCode(97 + (i % 26))}${i}x`] = [0, 1];
    terms.rareword = 0;
    const read = readSearchIndex(`Search.setIndex(${JSON.stringify({ docnames: ['a', 'b'], titles: ['A', 'B'], terms, titleterms: {} })})`, 'https://d.example/searchindex.js');
    const first = read.entries[0]?.hint?.terms ?? [];
    assert.equal(first.length, MAX_TERMS_PER_DOC);
    assert.equal(first[0], stems('rareword')[0], 'the rarest term first');
  });

  it('refuses what it cannot read, with a note, and never throws', () => {
    const url = 'https://d.example/searchindex.js';
    const cases: [string, string][] = [
      ['Search.setIndex({docnames:["a"],titles:["A"]})', 'search-index:not-json'],
      ['Search.setIndex({"docnames": ["a"]', 'search-index:not-json'],
      ['Search.setIndex([1, 2])', 'search-index:bad-shape'],
      ['Search.setIndex({"docnames": "a"})', 'search-index:bad-shape'],
      ['Search.setIndex(null)', 'search-index:bad-shape'],
      ['var x = 1;', 'search-index:unknown-format'],
      ['', 'search-index:unknown-format'],
    ];
    for (const [text, note] of cases) assert.deepEqual(readSearchIndex(text, url), { note, entries: [] }, text);
    const odd = readSearchIndex('Search.setIndex({"docnames": ["a", 5, "", null], "titles": [7], "terms": [], "titleterms": "x"})', url);
    assert.equal(odd.note, 'search-index:bad-docs:3');
    assert.deepEqual(odd.entries, [{ href: 'https://d.example/a.html', anchor: '', hint: { source: 'search-index', terms: [], titleTerms: [] } }]);
  });

  it('refuses an index larger than the decoded-size limit before parsing it', () => {
    const big = utf8(`Search.setIndex({"docnames": ["a"], "pad": "${'x'.repeat(2048)}"})`);
    assert.deepEqual(analyseSiteResource('search-index', big, 'https://d.example/searchindex.js', { maxDecodedBytes: 1024 }), {
      kind: 'search-index',
      note: 'search-index:too-large',
      entries: [],
    });
    assert.equal(analyseSiteResource('search-index', big, 'https://d.example/searchindex.js', LIMITS).entries.length, 1);
  });

  it('reads the real indexes Debian ships, when they are installed', (t) => {
    for (const path of ['/usr/share/doc/python3.11/html/searchindex.js', '/usr/share/doc/python-django-doc/html/searchindex.js']) {
      if (!existsSync(path)) {
        t.diagnostic(`${path} is not installed`);
        continue;
      }
      const body = readFileSync(path);
      const read = analyseSiteResource('search-index', body, 'https://docs.example/searchindex.js', { maxDecodedBytes: 32 * 1024 * 1024 });
      assert.equal(read.note, null, path);
      assert.ok(read.entries.length > 100, path);
      assert.ok(read.entries.every((e) => e.href.startsWith('https://docs.example/') && e.href.endsWith('.html') && (e.hint?.terms?.length ?? 0) <= MAX_TERMS_PER_DOC));
      assert.ok(read.entries.filter((e) => e.anchor !== '').length > read.entries.length / 2, `${path}: titles`);
    }
  });
});

describe('MkDocs search_index.json', () => {
  const url = 'https://site.example/docs/search/search_index.json';

  it('lists each page once (sections merged into it), relative to the folder above search/', () => {
    const index = {
      config: { lang: ['en'] },
      docs: [
        { location: '', title: 'Home', text: 'Welcome to the manual.' },
        { location: 'wal/', title: 'WAL', text: '<p>Checkpoints move logs; checkpoints again.</p>' },
        { location: 'wal/#checkpoints', title: 'Checkpoints', text: 'Checkpoints' },
        { location: 'sections-only/#a', title: 'Part A', text: 'alpha' },
        { location: 'sections-only/#b', title: 'Part B', text: 'beta' },
        { location: 5, title: 'broken' },
      ],
    };
    const read = readSearchIndex(JSON.stringify(index), url);
    assert.equal(read.note, 'search-index:bad-docs:1');
    assert.deepEqual(read.entries, [
      { href: 'https://site.example/docs/', anchor: 'Home', hint: { source: 'search-index', terms: stems('manual', 'welcome'), titleTerms: stems('home') } },
      { href: 'https://site.example/docs/wal/', anchor: 'WAL', hint: { source: 'search-index', terms: stems('checkpoints', 'logs', 'move'), titleTerms: stems('wal') } },
      {
        href: 'https://site.example/docs/sections-only/',
        anchor: 'Part A',
        hint: { source: 'search-index', terms: stems('part', 'alpha', 'beta'), titleTerms: stems('part') },
      },
    ]);
  });

  it('refuses what it cannot read', () => {
    assert.deepEqual(readSearchIndex('{"docs": 5}', url), { note: 'search-index:bad-shape', entries: [] });
    assert.deepEqual(readSearchIndex('{"docs": [', url), { note: 'search-index:not-json', entries: [] });
    assert.deepEqual(readSearchIndex('{"docs": []}', url), { note: null, entries: [] });
  });
});

describe('a resource response', () => {
  const input = (over: Partial<ResponseInput>): ResponseInput => ({
    url: 'https://docs.example/sitemap.xml',
    status: 200,
    contentType: 'application/octet-stream',
    xRobotsTag: undefined,
    body: utf8(URLSET),
    agentToken: 'forager',
    maxLinks: 100,
    kind: 'sitemap',
    maxDecodedBytes: LIMITS.maxDecodedBytes,
    documents: [],
    ...over,
  });

  it('is read as its kind whatever its Content-Type, stored gzipped, and never as a page', () => {
    const analysis = analyseResponse(input({}));
    assert.equal(analysis.note, 'resource:sitemap');
    assert.equal(analysis.page, null);
    assert.deepEqual(analysis.terms, []);
    assert.equal(analysis.resource?.entries.length, 4);
    assert.ok(analysis.storedBody !== null && analysis.storedBody[0] === 0x1f);
    assert.equal(analyseResponse(input({ body: utf8('<html>') })).note, 'resource:sitemap sitemap:not-a-sitemap');
    assert.equal(analyseResponse(input({ kind: 'page', contentType: 'application/xml' })).note, 'not-html:application/xml');
  });

  it('without a 2xx body has no entries', () => {
    assert.deepEqual([analyseResponse(input({ status: 404 })).note, analyseResponse(input({ status: 404 })).resource], ['resource:sitemap', null]);
    assert.equal(analyseResponse(input({ body: undefined })).note, 'resource:sitemap no-body');
  });
});
