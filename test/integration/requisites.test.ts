/*
 * Page requisites: the stylesheets, images and fonts stored pages need, fetched with the
 * same rules as pages (robots.txt, politeness, the same-host scope) and once per crawl, and
 * exported as WARC response records.
 */
import assert from 'node:assert/strict';
import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import { exportWarc } from '../../crawler/export/warc/export.ts';
import { exportMirror } from '../../crawler/export/mirror/export.ts';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { crawlOnce, tempDir, testSettings, type CrawlRun } from '../support/crawl-harness.ts';
import { respond, startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

const DELAY_MS = 100;

function page(title: string, links: string[], thirdParty: string): string {
  return `<!doctype html><html><head><title>${title}</title><link rel="stylesheet" href="/css/site.css"><link rel="stylesheet" href="/css/theme.css"><link rel="icon" href="/favicon.ico"></head>
<body><h1>${title}</h1><p>Write-ahead logging and checkpoints.</p><img src="/img/diagram.png" alt="diagram"><img src="${thirdParty}/pixel.png" alt="">
<img src="/private/secret.png" alt="">${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
}

describe('page requisites', () => {
  let site: TestSite;
  let thirdParty: TestSite;
  let run: CrawlRun;
  const dir = tempDir('forager-requisites-');

  before(async () => {
    thirdParty = await startTestSite({ '/pixel.png': respond('image/png', 'png') });
    const elsewhere = thirdParty.origin.replace('127.0.0.1', 'localhost');
    const routes: Record<string, Handler> = {
      '/robots.txt': respond('text/plain', 'User-agent: *\nDisallow: /private\n'),
      '/': respond('text/html', page('Home', ['/a', '/b'], elsewhere)),
      '/a': respond('text/html', page('A', ['/'], elsewhere)),
      '/b': respond('text/html', page('B', ['/'], elsewhere)),
      '/css/site.css': respond('text/css', '@import "theme.css"; @font-face { font-family: x; src: url(../fonts/x.woff2) } body { background: url("/img/bg.png") }'),
      '/css/theme.css': respond('text/css', 'h1 { color: teal }'),
      '/fonts/x.woff2': respond('font/woff2', 'font'),
      '/img/bg.png': respond('image/png', 'bg'),
      '/img/diagram.png': respond('image/png', 'diagram'),
      '/favicon.ico': respond('image/x-icon', 'ico'),
    };
    site = await startTestSite(routes);
    run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: 'write-ahead logging', requisites: 'same-host', delayMs: DELAY_MS }));
  });

  after(async () => {
    run?.db.close();
    await site?.close();
    await thirdParty?.close();
    dir.cleanup();
  });

  it('fetches each requisite of the site once, with what its stylesheets refer to', () => {
    assert.equal(run.outcome, 'exhausted');
    for (const path of ['/css/site.css', '/css/theme.css', '/fonts/x.woff2', '/img/bg.png', '/img/diagram.png', '/favicon.ico']) {
      assert.equal(site.count(path), 1, `${path} fetched once for three pages`);
    }
    const needed = run.db.prepare('SELECT count(*) FROM requisites r JOIN pages p ON p.seq = r.page_seq').pluck().get() as number;
    assert.equal(needed, 3 * 6, 'each page records the six requisites it needs (theme.css once, linked and imported)');
    assert.equal(run.db.prepare('SELECT count(*) FROM subresources').pluck().get(), 6);
    assert.equal(run.db.prepare('SELECT count(*) FROM requisites_pending').pluck().get(), 0, 'no page is left with requisites to fetch');
  });

  it('keeps to robots.txt, the page\'s own host, and the host spacing', () => {
    assert.equal(site.count('/private/secret.png'), 0);
    assert.equal(thirdParty.requests.length, 0, 'same-host requisites leave other hosts alone');
    const gaps = site.arrivals.slice(1).map((t, i) => t - (site.arrivals[i] as number));
    assert.ok(Math.min(...gaps) >= DELAY_MS - 15, `the closest two requests were ${Math.min(...gaps).toFixed(0)} ms apart`);
  });

  it('exports the requisites as response records', async () => {
    const warcPath = join(dir.dir, 'site.warc.gz');
    await exportWarc(run.db, {}, warcPath);
    const responses: string[] = [];
    for await (const record of new WARCParser(createReadStream(warcPath), { parseHttp: false })) {
      if (record.warcType === 'response') responses.push(record.warcTargetURI ?? '');
    }
    for (const path of ['/css/site.css', '/css/theme.css', '/fonts/x.woff2', '/img/bg.png', '/img/diagram.png']) {
      assert.equal(responses.filter((u) => u === `${site.origin}${path}`).length, 1, `${path} once`);
    }
  });

  it('shows the stored stylesheets and images in the offline mirror, inlined', async () => {
    const out = join(dir.dir, 'mirror');
    await exportMirror(run.db, {}, out);
    const files = readdirSync(out, { recursive: true }).map(String).filter((f) => f.endsWith('.html') && f !== 'index.html');
    assert.equal(files.length, 3);
    const home = files.map((f) => readFileSync(join(out, f), 'utf8')).find((html) => html.includes('<h1>Home</h1>')) ?? '';
    assert.match(home, /<style>h1\s*\{\s*color:\s*teal;?\s*\}<\/style>/, 'the stored theme stylesheet, inline');
    assert.match(home, new RegExp(`<img alt="diagram" src="data:image/png;base64,${Buffer.from('diagram').toString('base64')}">`), 'the stored image, inline');
    assert.doesNotMatch(home, /localhost:\d+\/pixel\.png/, 'the image the collection lacks is not linked');
    const base64 = (text: string): string => Buffer.from(text).toString('base64');
    assert.ok(home.includes(`<style>h1{color: teal;}@font-face{font-family: x;src: url("data:font/woff2;base64,${base64('font')}");}body{background: url("data:image/png;base64,${base64('bg')}");}</style>`),
      'site.css with the sheet it imports, its font and its background image, all from the collection');
  });
});

describe('page requisites when the crawl is stopped', () => {
  it('stop() does not wait for requisites that would need more host turns, and a resume fetches the rest', { timeout: 30_000 }, async () => {
    const images = Array.from({ length: 30 }, (_, i) => `<img src="/img/${i}.png" alt="">`).join('');
    const site = await startTestSite({ '/': respond('text/html', `<title>Gallery</title><p>Write-ahead logging.</p>${images}`) }, respond('image/png', 'png'));
    const dir = tempDir('forager-requisites-stop-');
    const db = openCollection(join(dir.dir, 'c.db'), { create: true });
    try {
      const settings = testSettings([`${site.origin}/`], { query: 'write-ahead logging', requisites: 'same-host', delayMs: 300 });
      saveSettings(db, settings);
      const engine = new CrawlEngine(db, settings);
      engine.once('page', () => setTimeout(() => engine.stop(), 400));
      const started = performance.now();
      assert.equal(await engine.run(), 'stopped');
      assert.ok(performance.now() - started < 5000, `the crawl ended ${(performance.now() - started).toFixed(0)} ms after it began, not after 30 polite requests`);
      assert.ok(site.requests.filter((p) => p.startsWith('/img/')).length < 30, 'the requisites still waiting were not fetched');
      assert.equal(db.prepare('SELECT count(*) FROM requisites_pending').pluck().get(), 1, 'the page is noted as having requisites to fetch');

      assert.equal(await new CrawlEngine(db, { ...settings, delayMs: 0 }).run(), 'exhausted');
      const images = site.requests.filter((p) => p.startsWith('/img/'));
      assert.equal(new Set(images).size, 30, 'the resume fetched the images the stop left');
      assert.equal(images.length, 30, 'and none twice');
      assert.equal(db.prepare('SELECT count(*) FROM requisites WHERE url LIKE ?').pluck().get('%/img/%'), 30);
      assert.equal(db.prepare('SELECT count(*) FROM requisites_pending').pluck().get(), 0);
      assert.equal(site.count('/'), 1, 'the page itself was not fetched again');
    } finally {
      db.close();
      await site.close();
      dir.cleanup();
    }
  });
});

describe('page requisites backing up on one host', () => {
  it('hold back the hosts that feed them, not a host whose pages need none', { timeout: 30_000 }, async () => {
    const later = (ms: number, handler: Handler): Handler => (req, res) => void setTimeout(() => handler(req, res), ms);
    // Every image takes 200 ms: the requisite queue fills within the first hundred pages of the gallery host.
    const images = await startTestSite({}, later(200, respond('image/png', 'png')));
    const gallery = await startTestSite({}, (req, res) => {
      const n = Number(/^\/g\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      if (n < 0 || n >= 150) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Gallery ${n}</title><p>Write-ahead logging.</p><img src="${images.origin}/img/${n}.png" alt=""><a href="/g/${2 * n + 1}">next</a> <a href="/g/${2 * n + 2}">next</a>`);
    });
    const BOOK_PAGES = 40;
    const book = await startTestSite({}, later(20, (req, res) => {
      const n = Number(/^\/b\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      if (n < 0 || n >= BOOK_PAGES) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Book ${n}</title><p>Checkpoints.</p>${[2 * n + 1, 2 * n + 2].filter((k) => k < BOOK_PAGES).map((k) => `<a href="/b/${k}">next</a>`).join(' ')}`);
    }));
    const dir = tempDir('forager-requisites-backlog-');
    const db = openCollection(join(dir.dir, 'c.db'), { create: true });
    try {
      const settings = testSettings([`${gallery.origin}/g/0`, `${book.origin}/b/0`], { query: 'write-ahead logging', requisites: 'all', delayMs: 0, maxPages: 1000 });
      saveSettings(db, settings);
      const engine = new CrawlEngine(db, settings);
      let bookRead = 0;
      engine.on('page', (page) => {
        if (page.url.startsWith(`${book.origin}/b/`) && ++bookRead === BOOK_PAGES) engine.stop();
      });
      assert.equal(await engine.run(), 'stopped');
      const bookPages = book.requests.filter((p) => p.startsWith('/b/'));
      assert.equal(bookPages.length, BOOK_PAGES, 'the book was read to its end');
      const span = (book.arrivals[book.requests.length - 1] as number) - (book.arrivals[book.requests.indexOf('/b/0')] as number);
      assert.ok(span < 2500, `the book's ${BOOK_PAGES} pages took ${span.toFixed(0)} ms: it waited for the gallery's images`);
      const galleryPages = gallery.requests.filter((p) => p.startsWith('/g/')).length;
      assert.ok(galleryPages < 120, `the gallery host was held back while its images queued (${galleryPages} pages fetched)`);
    } finally {
      db.close();
      await Promise.all([images.close(), gallery.close(), book.close()]);
      dir.cleanup();
    }
  });
});
