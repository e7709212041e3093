import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { Parser } from 'htmlparser2';
import { chromium } from 'playwright-core';
import { zipEntries } from '../support/zip-entries.ts';
import { ExportError } from '../../crawler/export/export-error.ts';
import { exportMirror, type MirrorSummary } from '../../crawler/export/mirror/export.ts';
import { MIRROR_HEAD_META } from '../../crawler/export/mirror/page.ts';
import { openCollection, type Db, type ReadonlyDb } from '../../crawler/store/database.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';
import { SCRIPT_MARKER, SCRIPTED_PATH, TOPIC_QUERY, topicSite } from '../support/topic-site.ts';

/*
 * The offline mirror of a real crawl of the topic site, whose page /db/wal-0 carries a
 * script, a remote image, a preconnect and a meta refresh aimed at a canary server (named
 * "localhost", so the crawl, scoped to 127.0.0.1, never asks it). The mirror must hold
 * none of that, link its pages to each other by relative paths that exist, list them by
 * relevance, and make no request at all when browsed from file:// in Chromium.
 */

const CHROMIUM = process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium';
// CI installs Chromium (.ci/run); elsewhere the browser test says why it did not run.
const noBrowser = !existsSync(CHROMIUM) && process.env.CI === undefined ? `no Chromium at ${CHROMIUM} (apt-get install -y chromium)` : false;

interface Element {
  name: string;
  attribs: Record<string, string>;
}

/** Every element of an HTML file with its attributes, as a browser-like parser reads them. */
function elements(html: string): Element[] {
  const found: Element[] = [];
  const parser = new Parser({ onopentag: (name, attribs) => found.push({ name, attribs }) }, { decodeEntities: true });
  parser.end(html);
  return found;
}

function filesUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** The index's date line changes from one export to the next; nothing else may. */
function withoutExportDate(index: string): string {
  return index.replace(/saved by Forager on [^,]+,/, 'saved by Forager on DATE,');
}

describe('export: offline mirror', () => {
  let site: TestSite;
  let canary: Server;
  const canaryRequests: string[] = [];
  let db: Db;
  let readonly: ReadonlyDb;
  const dir = tempDir('forager-mirror-');
  const mirror = join(dir.dir, 'mirror');
  /** Canonical URL → stored relevance, hot, of every 2xx HTML page. */
  let htmlPages: Map<string, { relevance: number; hot: boolean }>;
  /** The mirror of the whole collection, written once for the tests that read it. */
  let summary: MirrorSummary;
  let seconds: number;

  before(async () => {
    canary = createServer((req, res) => {
      canaryRequests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('canary');
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    const canaryOrigin = `http://localhost:${(canary.address() as AddressInfo).port}`;
    site = await startTestSite({}, topicSite(canaryOrigin));
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: TOPIC_QUERY, maxPages: 200, allowPrivate: true }));
    db = run.db;
    readonly = openCollection(run.dbPath, { create: false, readonly: true });
    const rows = db.prepare(
      `SELECT u.url, p.relevance, p.hot FROM pages p JOIN urls u ON u.id = p.url_id
        WHERE p.status BETWEEN 200 AND 299 AND p.body IS NOT NULL AND p.content_type LIKE 'text/html%'`,
    ).all() as { url: string; relevance: number; hot: number }[];
    htmlPages = new Map(rows.map((r) => [r.url, { relevance: r.relevance, hot: r.hot === 1 }]));
    assert.ok(htmlPages.size > 100, `the crawl stored ${htmlPages.size} HTML pages`);
    assert.deepEqual(site.requests.filter((p) => p.startsWith('/pixel') || p.startsWith('/beacon')), []);
    const started = performance.now();
    summary = await exportMirror(readonly, {}, mirror);
    seconds = (performance.now() - started) / 1000;
  });

  after(async () => {
    readonly.close();
    db.close();
    await site.close();
    canary.closeAllConnections();
    await new Promise<void>((resolve) => canary.close(() => resolve()));
    dir.cleanup();
  });

  it('writes each HTML page once, inert, with the CSP, a banner and relative links that resolve', async (t) => {
    t.diagnostic(`mirror of ${summary.pages} pages in ${seconds.toFixed(2)} s: ${Math.round(summary.pages / seconds)} pages/s, ${summary.bytes} bytes`);
    const files = filesUnder(mirror);
    assert.equal(summary.path, mirror);
    assert.equal(summary.pages, htmlPages.size);
    assert.equal(files.length, htmlPages.size + 1);
    assert.ok(files.includes('index.html'));
    assert.equal(summary.bytes, files.reduce((sum, f) => sum + statSync(join(mirror, f)).size, 0));
    assert.deepEqual(readdirSync(dir.dir).filter((f) => f.endsWith('.part')), [], 'no temporary folder is left');
    const port = new URL(site.origin).port;
    assert.ok(files.includes(`127.0.0.1_${port}/index.html`), 'the site root');
    assert.ok(files.includes(`127.0.0.1_${port}/db/wal-0.html`));

    const exported = new Set(files.map((f) => join(mirror, f)));
    let relativeLinks = 0;
    let externalLinks = 0;
    for (const file of files) {
      const path = join(mirror, file);
      const html = readFileSync(path, 'utf8');
      // The policy <meta> counts only in <head>: it must come before anything that opens <body>.
      assert.match(html, /^<!DOCTYPE html>\n(<html lang="en">\n<head>\n)?<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; font-src data:; style-src 'unsafe-inline'[;"]/, file);
      assert.doesNotMatch(html, /<script|<base|<iframe|<object|<embed|<link/i, file);
      assert.doesNotMatch(html, /http-equiv="?refresh/i, file);
      assert.doesNotMatch(html, /localhost|pixel\.png|beacon/i, file);
      for (const { name, attribs } of elements(html)) {
        for (const attribute of Object.keys(attribs)) assert.doesNotMatch(attribute, /^on/i, `${file}: <${name} ${attribute}>`);
        if (attribs.src !== undefined) assert.match(attribs.src, /^data:image\//, `${file}: <${name} src>`);
        assert.equal(attribs.srcset, undefined, file);
        if (name === 'meta') assert.ok(attribs.charset !== undefined || attribs['http-equiv'] === 'Content-Security-Policy' || attribs.name === 'referrer' || attribs.name === 'viewport', `${file}: ${JSON.stringify(attribs)}`);
        const href = attribs.href;
        if (name !== 'a' || href === undefined || href.startsWith('#')) continue;
        if (/^https?:/.test(href)) {
          externalLinks++;
          assert.equal(attribs.rel, 'noopener noreferrer', `${file}: ${href}`);
          assert.match(attribs.class ?? '', /\bforager-external\b/, `${file}: ${href}`);
          if (!attribs.class?.includes('forager-mirror')) {
            assert.equal(htmlPages.has(href.split('#')[0] as string), false, `${file}: ${href} is in the mirror and should be relative`);
          }
          continue;
        }
        assert.doesNotMatch(href, /^[a-z][a-z0-9+.-]*:|^\//i, `${file}: ${href} is neither relative nor http(s)`);
        relativeLinks++;
        const target = fileURLToPath(new URL(href, pathToFileURL(path)));
        assert.ok(exported.has(target), `${file}: ${href} → ${target} does not exist`);
      }
    }
    assert.ok(relativeLinks > htmlPages.size * 3, `${relativeLinks} relative links`);
    assert.ok(externalLinks >= htmlPages.size, `${externalLinks} external links`);

    const wal = readFileSync(join(mirror, `127.0.0.1_${port}/db/wal-0.html`), 'utf8');
    assert.match(wal, new RegExp(`Saved by Forager from <a href="${site.origin}${SCRIPTED_PATH}"[^>]*>${site.origin}${SCRIPTED_PATH}</a> on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`));
    assert.match(wal, /<a href="\.\.\/\.\.\/index\.html"[^>]*>Back to the mirror's index<\/a>/);
    assert.match(wal, /<a href="wal-1\.html">Checkpoint tuning and the write-ahead log 1<\/a>/);
    assert.match(wal, /<a href="\.\.\/garden\/p-0\.html">garden<\/a>/);
    assert.match(wal, /<a href="https:\/\/example\.org\/elsewhere" rel="noopener noreferrer" class="forager-external"/);
    assert.ok(wal.indexOf('forager-mirror-banner') < wal.indexOf('<h1>'), 'the banner comes first in the body');
    const bannerStyle = elements(wal).find((e) => e.attribs.class === 'forager-mirror-banner')?.attribs.style ?? '';
    assert.match(bannerStyle, /^all:initial;.*;font:14px\/1\.5 system-ui,.*sans-serif$/, 'the banner keeps its whole inline style');
    assert.ok(!wal.includes(SCRIPT_MARKER));
  });

  it('lists every exported page once in index.html, most relevant first, under the query', () => {
    const index = readFileSync(join(mirror, 'index.html'), 'utf8');
    assert.match(index, new RegExp(`<h1>${TOPIC_QUERY}</h1>`));
    assert.match(index, /pages saved by Forager on \d{4}-\d\d-\d\d \d\d:\d\d UTC, by relevance\. Selection: every stored page\./);
    const hrefs = elements(index).filter((e) => e.name === 'a' && e.attribs.class === 'title').map((e) => e.attribs.href as string);
    const urls = [...index.matchAll(/<div class="url">([^<]*)<\/div>/g)].map((m) => m[1] as string);
    const shown = [...index.matchAll(/<span class="relevance">([^<]*)<\/span>/g)].map((m) => Number(m[1]));
    assert.equal(hrefs.length, htmlPages.size);
    assert.equal(new Set(hrefs).size, hrefs.length, 'each page once');
    assert.deepEqual(new Set(urls), new Set(htmlPages.keys()));
    const files = new Set(filesUnder(mirror));
    for (const href of hrefs) assert.ok(files.has(decodeURIComponent(href)), href);
    const relevance = urls.map((url) => (htmlPages.get(url) as { relevance: number }).relevance);
    for (let i = 1; i < relevance.length; i++) assert.ok((relevance[i - 1] as number) >= (relevance[i] as number), `row ${i} is out of order`);
    assert.deepEqual(shown, relevance.map((r) => Number(r.toFixed(3))));
    const hot = [...htmlPages.values()].filter((p) => p.hot).length;
    assert.ok(hot > 0);
    assert.equal(index.match(/<span class="hot">hot<\/span>/g)?.length, hot);
    assert.match(index, /<p class="snippet">[^<]{20,210}<\/p>/);
  });

  it('writes the same tree into a zip', async () => {
    const out = join(dir.dir, 'mirror.zip');
    const zipped = await exportMirror(readonly, {}, out);
    assert.equal(zipped.pages, htmlPages.size);
    assert.equal(zipped.bytes, statSync(out).size);
    const entries = await zipEntries(out);
    const files = filesUnder(mirror);
    assert.deepEqual([...entries.keys()].sort(), files);
    for (const file of files) {
      const onDisk = readFileSync(join(mirror, file));
      const zipped = entries.get(file) as Buffer;
      if (file === 'index.html') assert.equal(withoutExportDate(zipped.toString('utf8')), withoutExportDate(onDisk.toString('utf8')));
      else assert.ok(zipped.equals(onDisk), file);
    }
    assert.deepEqual(readdirSync(dir.dir).filter((f) => f.endsWith('.part')), []);
  });

  it('keeps links to pages outside the selection as external links', async () => {
    const out = join(dir.dir, 'hot-only');
    const summary = await exportMirror(readonly, { hotOnly: true }, out);
    const hot = [...htmlPages].filter(([, p]) => p.hot).map(([url]) => url);
    assert.equal(summary.pages, hot.length);
    const port = new URL(site.origin).port;
    const wal = readFileSync(join(out, `127.0.0.1_${port}/db/wal-0.html`), 'utf8');
    assert.equal(htmlPages.get(`${site.origin}/garden/p-0`)?.hot, false);
    assert.match(wal, new RegExp(`<a href="${site.origin}/garden/p-0" rel="noopener noreferrer" class="forager-external" title="Leaves the collection: [^"]*">garden</a>`));
    assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /Selection: hot pages only\./);
  });

  it('opens from file:// in Chromium, clicking through relative links, with no request anywhere', { skip: noBrowser, timeout: 60_000 }, async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    try {
      const context = await browser.newContext();
      const requests: string[] = [];
      context.on('request', (request) => requests.push(request.url()));
      const page = await context.newPage();
      const indexUrl = pathToFileURL(join(mirror, 'index.html')).href;
      await page.goto(indexUrl);
      assert.equal(await page.locator('h1').textContent(), TOPIC_QUERY);

      await page.locator('a.title[href$="db/wal-0.html"]').click();
      await page.waitForURL(/\/db\/wal-0\.html$/);
      await page.waitForTimeout(500);
      assert.notEqual(await page.title(), SCRIPT_MARKER, 'the page script did not run');
      assert.equal(await page.locator('body').getAttribute('data-marker'), null);
      assert.match((await page.locator('.forager-mirror-banner').textContent()) ?? '', /^Saved by Forager from http:\/\/127\.0\.0\.1:\d+\/db\/wal-0 on /);

      await page.locator('a[href="wal-1.html"]').first().click();
      await page.waitForURL(/\/db\/wal-1\.html$/);
      assert.match((await page.locator('h1').first().textContent()) ?? '', /part 1/);
      await page.goBack();
      await page.waitForURL(/\/db\/wal-0\.html$/);
      await page.locator('.forager-mirror-banner a', { hasText: "Back to the mirror's index" }).click();
      await page.waitForURL(indexUrl);
      await page.waitForTimeout(300);

      assert.ok(requests.length >= 3, `${requests.length} requests seen`);
      assert.deepEqual(requests.filter((url) => !url.startsWith('file://')), [], 'only file:// URLs were requested');
      assert.deepEqual(canaryRequests, [], 'the canary server got nothing');

      // Were the sanitiser to miss everything, the policy <meta> alone must still stop every load.
      const raw = join(dir.dir, 'csp-only.html');
      const hostile = (await fetch(`${site.origin}${SCRIPTED_PATH}`).then((r) => r.text())).replace(/<meta http-equiv="refresh"[^>]*>/, '');
      writeFileSync(raw, `<!DOCTYPE html>\n<meta charset="utf-8">\n${MIRROR_HEAD_META}${hostile}`);
      const blocked: string[] = [];
      page.on('requestfailed', (request) => {
        if (request.failure()?.errorText === 'csp') blocked.push(request.url());
      });
      requests.length = 0;
      await page.goto(pathToFileURL(raw).href);
      await page.waitForTimeout(500);
      assert.notEqual(await page.title(), SCRIPT_MARKER, 'the policy stopped the inline script');
      const remote = requests.filter((url) => !url.startsWith('file://'));
      assert.ok(remote.length > 0, 'the unsanitised page tried to load something');
      assert.deepEqual(remote.filter((url) => !blocked.includes(url)), [], 'every remote load was blocked by the policy');
      assert.deepEqual(canaryRequests, [], 'the canary server still got nothing');
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it('refuses an existing non-empty folder and leaves it as it was', async () => {
    const taken = join(dir.dir, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'keep.txt'), 'mine');
    await assert.rejects(exportMirror(readonly, {}, taken), (err: unknown) => err instanceof ExportError && /already exists and is not empty/.test(err.message));
    assert.deepEqual(readdirSync(taken), ['keep.txt']);
    const file = join(dir.dir, 'a-file');
    writeFileSync(file, 'x');
    await assert.rejects(exportMirror(readonly, {}, file), (err: unknown) => err instanceof ExportError && /is not a folder/.test(err.message));
    assert.equal(readFileSync(file, 'utf8'), 'x');
  });

  it('fills an existing empty folder', async () => {
    const empty = join(dir.dir, 'empty');
    mkdirSync(empty);
    const summary = await exportMirror(readonly, { text: 'checkpoint' }, empty);
    assert.ok(summary.pages > 0);
    assert.equal(filesUnder(empty).length, summary.pages + 1);
  });

  it('fails with an ExportError and leaves no partial folder where it cannot write', async () => {
    const blocker = join(dir.dir, 'blocker');
    writeFileSync(blocker, 'not a folder');
    for (const out of [join(blocker, 'mirror'), join(blocker, 'mirror.zip'), join(dir.dir, 'no', 'such', 'mirror')]) {
      await assert.rejects(exportMirror(readonly, {}, out), (err: unknown) => err instanceof ExportError && err.message.includes(out), out);
      assert.equal(existsSync(out), false, out);
    }
    if (process.getuid?.() !== 0) {
      const locked = join(dir.dir, 'locked');
      mkdirSync(locked, { mode: 0o500 });
      await assert.rejects(exportMirror(readonly, {}, join(locked, 'mirror')), (err: unknown) => err instanceof ExportError && /permission denied/.test(err.message));
      assert.deepEqual(readdirSync(locked), []);
    }
    assert.deepEqual(readdirSync(dir.dir).filter((f) => f.endsWith('.part')), []);
  });

  it('removes everything it wrote when cancelled part-way, folder or zip', async () => {
    for (const name of ['cancelled', 'cancelled.zip']) {
      const out = join(dir.dir, name);
      const controller = new AbortController();
      let written = 0;
      const onProgress = (done: number): void => {
        written = done;
        if (done === 10) controller.abort();
      };
      await assert.rejects(exportMirror(readonly, {}, out, { signal: controller.signal, onProgress }), (err: unknown) => err instanceof ExportError && /cancelled/.test(err.message));
      assert.equal(written, 10, 'it stopped at the next page');
      assert.equal(existsSync(out), false);
      assert.deepEqual(readdirSync(dir.dir).filter((f) => f.includes(name) && f !== name), [], 'no temporary file or folder is left');
    }
  });

  it('refuses an empty selection', async () => {
    const out = join(dir.dir, 'nothing');
    await assert.rejects(exportMirror(readonly, { host: 'example.org' }, out), (err: unknown) => err instanceof ExportError && /no page matches/.test(err.message));
    assert.equal(existsSync(out), false);
    assert.equal(readonly.inTransaction, false, 'the read snapshot is closed');
  });
});

describe('export: offline mirror of a site with redirects', () => {
  it('sends a link to a URL that redirected to the page it reached', async () => {
    const dir = tempDir('forager-mirror-redirect-');
    const site = await startTestSite({
      '/': html('<a href="/old#part">moved page</a> <a href="/new">new page</a> <a href="/missing">missing</a>', 'home'),
      '/old': (_req, res) => res.writeHead(301, { location: '/new' }).end(),
      '/new': html('<h1 id="part">New</h1>', 'new'),
    });
    try {
      const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { allowPrivate: true }));
      const out = join(dir.dir, 'mirror');
      const summary = await exportMirror(run.db, {}, out);
      run.db.close();
      assert.equal(summary.pages, 2, 'the redirect and the 404 are no pages');
      const port = new URL(site.origin).port;
      const home = readFileSync(join(out, `127.0.0.1_${port}/index.html`), 'utf8');
      assert.match(home, /<a href="new\.html#part">moved page<\/a>/);
      assert.match(home, /<a href="new\.html">new page<\/a>/);
      assert.match(home, new RegExp(`<a href="${site.origin}/missing" rel="noopener noreferrer" class="forager-external"[^>]*>missing</a>`));
    } finally {
      await site.close();
      dir.cleanup();
    }
  });
});
