import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { CollectionError } from '../../../../crawler/errors.ts';
import { openCollection, type Db } from '../../../../crawler/store/database.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import { PageStore } from '../../../../crawler/store/page-store.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';
import { UrlStore } from '../../../../crawler/store/url-store.ts';
import { canonicalize } from '../../../../crawler/url/canonical.ts';
import { fingerprint } from '../../../../crawler/url/fingerprint.ts';
import { createCollectionPageSource, type StoredPageSource } from '../../../../crawler/viewer/page-source.ts';
import { createStoredPageHandler, parseViewerUrl, viewerRoutes, type ViewerTarget } from '../../../../crawler/viewer/stored-page-handler.ts';

const SITE = 'https://site.example';
const COLLECTION = 'My crawl';
const ROUTES = viewerRoutes('serve');

/** A collection written with the crawler's own stores, as the page recorder writes it. */
class CollectionBuilder {
  readonly db: Db;
  readonly #hosts: HostStore;
  readonly #urls: UrlStore;
  readonly #pages: PageStore;
  readonly seqs = new Map<string, number>();

  constructor(path: string) {
    this.db = openCollection(path, { create: true });
    this.#hosts = new HostStore(this.db);
    this.#urls = new UrlStore(this.db);
    this.#pages = new PageStore(this.db);
  }

  urlId(raw: string): number {
    const url = canonicalize(raw);
    const origin = url.slice(0, url.indexOf('/', url.indexOf('//') + 2));
    const hostId = this.#hosts.idFor(origin);
    const fp = fingerprint(url);
    return this.#urls.findIdByFingerprint(hostId, fp) ??
      this.#urls.insert({ fp, url, hostId, depth: 0, state: UrlState.queued, parentId: null, redirects: 0, reason: null });
  }

  page(raw: string, p: { status?: number; contentType?: string | null; body?: Buffer | string | null; charset?: string | null; redirectTo?: string; note?: string; rawBody?: Buffer }): number {
    const body = p.body === undefined || p.body === null ? null : Buffer.from(p.body);
    const seq = this.#pages.insert({
      urlId: this.urlId(raw), status: p.status ?? 200, httpVersion: '1.1', statusText: null, headers: [],
      contentType: p.contentType === undefined ? 'text/html; charset=utf-8' : p.contentType, charset: p.charset ?? null,
      body: p.rawBody ?? (body === null ? null : gzipSync(body)), bodyBytes: body?.length ?? 0, wireBytes: body?.length ?? 0,
      title: null, text: null, terms: null, relevance: null, hot: false, judgedHot: null, noindex: false, nofollow: false, canonical: null,
      redirectTo: p.redirectTo === undefined ? null : this.urlId(p.redirectTo), note: p.note ?? null,
      startedAt: 0, fetchedAt: 1, responseMs: 1, remoteAddress: null, requestHead: null, payload: null,
      simhash: null, bodyHash: null, duplicateOf: null, soft404: false,
    });
    this.seqs.set(raw, seq);
    return seq;
  }

  seq(raw: string): number {
    const seq = this.seqs.get(raw);
    assert.ok(seq !== undefined, raw);
    return seq;
  }
}

const HOME = `<!DOCTYPE html><html><head><title>Home</title><script>alert(1)</script>
<link rel="preconnect" href="https://cdn.example"><meta http-equiv="refresh" content="0;url=https://evil.example/"></head>
<body onload="alert(1)"><h1>Home</h1>
<a id="l-a" href="/a">A</a>
<a id="l-b" href="b#frag">B with fragment</a>
<a id="l-spelling" href="HTTPS://SITE.EXAMPLE:443/a?">A spelt otherwise</a>
<a id="l-redirect" href="/r1">two redirects to A</a>
<a id="l-loop" href="/loop1">a redirect loop</a>
<a id="l-long" href="/hop0">six redirects</a>
<a id="l-pdf" href="/doc.pdf">a PDF</a>
<a id="l-404" href="/gone">a 404</a>
<a id="l-queued" href="/later">not fetched yet</a>
<a id="l-mismatch" href="/mislabelled">binary labelled HTML</a>
<a id="l-out" href="https://other.example/x?y=1#z">elsewhere</a>
<a id="l-js" href="javascript:alert(1)">script</a>
<img src="https://cdn.example/i.png" alt="picture" onerror="alert(1)">
</body></html>`;

function anchor(html: string, id: string): string {
  const match = new RegExp(`<a id="${id}"[^>]*>`).exec(html);
  assert.ok(match !== null, `no link ${id} in the page`);
  return match[0];
}

function hrefOf(tag: string): string | undefined {
  const raw = /\shref="([^"]*)"/.exec(tag)?.[1];
  return raw?.replaceAll('&amp;', '&');
}

describe('the stored-page viewer over a real collection', () => {
  let dir: string;
  let built: CollectionBuilder;
  let source: StoredPageSource;
  let handler: ReturnType<typeof createStoredPageHandler>;
  let prepares = 0;
  let opens = 0;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'forager-viewer-'));
    built = new CollectionBuilder(join(dir, 'c.forager'));
    built.page(`${SITE}/`, { body: HOME });
    built.page(`${SITE}/a`, { body: '<h1>A</h1>' });
    built.page(`${SITE}/b`, { body: '<h1 id="frag">B</h1>' });
    built.page(`${SITE}/r1`, { status: 301, contentType: 'text/html', body: '<a href="/r2">moved</a>', redirectTo: `${SITE}/r2` });
    built.page(`${SITE}/r2`, { status: 302, contentType: null, body: null, redirectTo: `${SITE}/a` });
    built.page(`${SITE}/loop1`, { status: 301, body: null, redirectTo: `${SITE}/loop2` });
    built.page(`${SITE}/loop2`, { status: 301, body: null, redirectTo: `${SITE}/loop1` });
    for (let i = 0; i < 6; i++) built.page(`${SITE}/hop${i}`, { status: 302, body: null, redirectTo: `${SITE}/hop${i + 1}` });
    built.page(`${SITE}/hop6`, { body: '<p>end of the chain</p>' });
    built.page(`${SITE}/doc.pdf`, { contentType: 'application/pdf', body: '%PDF-1.7 secret bytes', note: 'not-html:application/pdf' });
    built.page(`${SITE}/gone`, { status: 404, body: '<p>not here</p>' });
    built.urlId(`${SITE}/later`);
    built.page(`${SITE}/mislabelled`, { body: '\x89PNG\r\n\x1a\n....', note: 'content-type-mismatch:text/html' });
    built.page(`${SITE}/latin1`, { contentType: 'text/html; charset=utf-8', charset: 'windows-1252', body: Buffer.from('<p>caf\xe9 \x93quoted\x94</p>', 'latin1') });
    built.page(`${SITE}/corrupt`, { rawBody: Buffer.from('not gzip at all') });
    const db = built.db;
    const prepare = db.prepare.bind(db);
    Object.assign(db, {
      prepare: (sql: string) => {
        prepares++;
        return prepare(sql);
      },
    });
    source = createCollectionPageSource((collection) => {
      opens++;
      if (collection === COLLECTION) return db;
      if (collection === 'broken') throw new Error('database disk image is malformed');
      throw new CollectionError(`no collection named "${collection}"`, { id: collection });
    });
    handler = createStoredPageHandler(source, ROUTES);
  });

  after(() => {
    built.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (target: ViewerTarget, method = 'GET'): Promise<Response> =>
    handler(new Request(`http://127.0.0.1/stored/whatever`, { method }), target);
  const page = (raw: string): ViewerTarget => ({ kind: 'page', collection: COLLECTION, seq: built.seq(raw) });

  function assertPolicy(response: Response): void {
    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.deepEqual(directives.get('img-src'), ['data:']);
    assert.deepEqual(directives.get('style-src'), ["'unsafe-inline'"]);
    assert.deepEqual(directives.get('form-action'), ["'none'"]);
    assert.deepEqual(directives.get('base-uri'), ["'none'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'self'"]);
    assert.deepEqual(directives.get('sandbox'), ['allow-popups', 'allow-popups-to-escape-sandbox']);
    assert.doesNotMatch(csp, /allow-scripts|allow-same-origin|allow-forms|allow-top-navigation/);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('x-dns-prefetch-control'), 'off');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('cross-origin-resource-policy'), 'same-origin');
  }

  describe('a stored HTML page', () => {
    let response: Response;
    let body: string;
    before(async () => {
      response = await get(page(`${SITE}/`));
      body = await response.text();
    });

    it('answers 200 with the stored-page policy', () => {
      assert.equal(response.status, 200);
      assertPolicy(response);
    });

    it('carries no script, handler, remote resource, refresh or preconnect', () => {
      assert.doesNotMatch(body, /<script|alert|onload=|onerror=|<link|http-equiv|<base|cdn\.example\/i\.png|\ssrc=/i);
      assert.match(body, /<span class="forager-image">picture<\/span>/);
    });

    it('sends in-collection links to the page they show, keeping the fragment', () => {
      const expected: [string, string][] = [
        ['l-a', ROUTES.pageHref(COLLECTION, built.seq(`${SITE}/a`))],
        ['l-b', `${ROUTES.pageHref(COLLECTION, built.seq(`${SITE}/b`))}#frag`],
        ['l-spelling', ROUTES.pageHref(COLLECTION, built.seq(`${SITE}/a`))],
        ['l-redirect', ROUTES.pageHref(COLLECTION, built.seq(`${SITE}/a`))],
      ];
      for (const [id, href] of expected) {
        const tag = anchor(body, id);
        assert.equal(hrefOf(tag), href, id);
        assert.doesNotMatch(tag, /forager-external|rel=/, id);
      }
      assert.equal(hrefOf(anchor(body, 'l-a')), '/stored/My%20crawl/2');
    });

    it('sends every other http(s) link to the external-link page', () => {
      const outside: [string, string][] = [
        ['l-loop', `${SITE}/loop1`],
        ['l-long', `${SITE}/hop0`],
        ['l-pdf', `${SITE}/doc.pdf`],
        ['l-404', `${SITE}/gone`],
        ['l-queued', `${SITE}/later`],
        ['l-mismatch', `${SITE}/mislabelled`],
        ['l-out', 'https://other.example/x?y=1#z'],
      ];
      for (const [id, url] of outside) {
        const tag = anchor(body, id);
        assert.equal(hrefOf(tag), ROUTES.externalHref(url), id);
        assert.match(tag, /rel="noopener noreferrer"/, id);
        assert.match(tag, /class="forager-external"/, id);
        assert.ok(tag.includes(`title="Leaves the collection: ${url.replaceAll('&', '&amp;')}"`), id);
      }
      assert.equal(hrefOf(anchor(body, 'l-js')), undefined);
    });

    it('follows at most five stored redirects', () => {
      assert.equal(source.seqOfUrl(COLLECTION, `${SITE}/hop1`), built.seq(`${SITE}/hop6`));
      assert.equal(source.seqOfUrl(COLLECTION, `${SITE}/hop0`), undefined);
      assert.equal(source.seqOfUrl(COLLECTION, `${SITE}/loop1`), undefined);
      assert.equal(source.seqOfUrl(COLLECTION, `${SITE}/never-seen`), undefined);
      assert.equal(source.seqOfUrl(COLLECTION, 'https://unknown-host.example/'), undefined);
    });

    it('prepares its statements once per database, however many links and requests', async () => {
      const before = prepares;
      await (await get(page(`${SITE}/`))).text();
      await (await get(page(`${SITE}/a`))).text();
      assert.equal(prepares, before);
      assert.ok(opens > 2);
    });
  });

  it('decodes a stored body with the charset the crawler used, whatever the header said', async () => {
    const stored = source.page(COLLECTION, built.seq(`${SITE}/latin1`));
    assert.equal(stored?.html, '<p>caf\u00e9 \u201cquoted\u201d</p>');
    const body = await (await get(page(`${SITE}/latin1`))).text();
    assert.match(body, /<p>café “quoted”<\/p>/);
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await get(page(`${SITE}/`), 'HEAD');
    assert.equal(response.status, 200);
    assertPolicy(response);
    assert.equal(await response.text(), '');
  });

  it('refuses other methods with 405', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await get(page(`${SITE}/`), method);
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'GET, HEAD');
      assertPolicy(response);
    }
  });

  it('answers 404 for an unknown page or collection', async () => {
    const missingPage = await get({ kind: 'page', collection: COLLECTION, seq: 9999 });
    assert.equal(missingPage.status, 404);
    assertPolicy(missingPage);
    assert.match(await missingPage.text(), /has no page 9999/);
    const missingCollection = await get({ kind: 'page', collection: 'Other <b>', seq: 1 });
    assert.equal(missingCollection.status, 404);
    assertPolicy(missingCollection);
    assert.match(await missingCollection.text(), /no collection named "Other &lt;b&gt;"/);
  });

  it('answers 500, with the policy, when a collection cannot be read', async () => {
    const response = await get({ kind: 'page', collection: 'broken', seq: 1 });
    assert.equal(response.status, 500);
    assertPolicy(response);
    assert.match(await response.text(), /database disk image is malformed/);
  });

  it('describes a stored page that is not HTML without serving its bytes', async () => {
    const response = await get(page(`${SITE}/doc.pdf`));
    assert.equal(response.status, 200);
    assertPolicy(response);
    const body = await response.text();
    assert.match(body, /Not an HTML page/);
    assert.match(body, /https:\/\/site\.example\/doc\.pdf/);
    assert.match(body, /application\/pdf/);
    assert.match(body, /<dt>HTTP status<\/dt><dd>200<\/dd>/);
    assert.doesNotMatch(body, /secret bytes|%PDF/);
    for (const raw of [`${SITE}/mislabelled`, `${SITE}/corrupt`]) {
      assert.match(await (await get(page(raw))).text(), /Not an HTML page/, raw);
    }
  });

  it('shows a stored redirect with a link to where it leads', async () => {
    const body = await (await get(page(`${SITE}/r2`))).text();
    assert.match(body, /<dt>HTTP status<\/dt><dd>302<\/dd>/);
    assert.ok(body.includes(`<dt>Redirects to</dt><dd><a href="${ROUTES.pageHref(COLLECTION, built.seq(`${SITE}/a`))}">${SITE}/a</a></dd>`));
  });

  it('shows a 3xx page that has an HTML body as that page, its links rewritten', async () => {
    const body = await (await get(page(`${SITE}/r1`))).text();
    assert.match(body, new RegExp(`<a href="${ROUTES.pageHref(COLLECTION, built.seq(`${SITE}/a`))}">moved</a>`));
  });

  describe('the external-link page', () => {
    it('offers one link that opens the address in the browser', async () => {
      const url = 'https://other.example/x?y=1&z=<2>#frag';
      const response = await get({ kind: 'external', url });
      assert.equal(response.status, 200);
      assertPolicy(response);
      const body = await response.text();
      const links = body.match(/<a\s[^>]*>/g) ?? [];
      assert.deepEqual(links, ['<a href="https://other.example/x?y=1&amp;z=%3C2%3E#frag" target="_blank" rel="noopener noreferrer">']);
      assert.match(body, /leaves the collection/i);
      assert.match(body, /<code>https:\/\/other\.example\/x\?y=1&amp;z=%3C2%3E#frag<\/code>/);
      assert.doesNotMatch(body, /<script|<2>/);
    });

    it('warns when the address hides its host behind a user name', async () => {
      const body = await (await get({ kind: 'external', url: 'https://bank.example@evil.example/' })).text();
      assert.match(body, /the site it opens is <code>evil\.example<\/code>/);
    });

    it('answers 400 for anything but an http(s) address', async () => {
      for (const url of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'ftp://x.example/', 'not a url', '', `https://x.example/${'a'.repeat(9000)}`]) {
        const response = await get({ kind: 'external', url });
        assert.equal(response.status, 400, url.slice(0, 40));
        assertPolicy(response);
        const body = await response.text();
        assert.doesNotMatch(body, /<a\s|<script/, url.slice(0, 40));
      }
    });
  });

  it('lets another transport choose who may frame it', async () => {
    const electron = createStoredPageHandler(source, viewerRoutes('protocol'), { frameAncestors: 'app://forager' });
    const response = await electron(new Request('http://127.0.0.1/'), page(`${SITE}/`));
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors app:\/\/forager;/);
    assert.match(await response.text(), new RegExp(`href="forager-page://My%20crawl/${built.seq(`${SITE}/a`)}"`));
  });
});

describe('viewer URLs', () => {
  it('reads /stored/ paths of forager serve', () => {
    const parse = (path: string): ViewerTarget | undefined => parseViewerUrl(new URL(path, 'http://127.0.0.1:8080'), 'serve');
    assert.deepEqual(parse('/stored/My%20crawl/12'), { kind: 'page', collection: 'My crawl', seq: 12 });
    assert.deepEqual(parse('/stored/external?url=https%3A%2F%2Fx.example%2F%3Fa%3D1'), { kind: 'external', url: 'https://x.example/?a=1' });
    assert.deepEqual(parse('/stored/external/3'), { kind: 'page', collection: 'external', seq: 3 });
    for (const path of ['/stored/external', '/stored/c/0', '/stored/c/x', '/stored/c', '/stored/', '/api/stored/c/1', '/stored/c/1/2', '/stored/%E0%A4%A/1']) {
      assert.equal(parse(path), undefined, path);
    }
  });

  it('reads forager-page:// URLs, whose host keeps its case', () => {
    const parse = (raw: string): ViewerTarget | undefined => parseViewerUrl(new URL(raw), 'protocol');
    assert.deepEqual(parse('forager-page://My%20Crawl/12'), { kind: 'page', collection: 'My Crawl', seq: 12 });
    assert.deepEqual(parse('forager-page://external/?url=https%3A%2F%2Fx.example%2F'), { kind: 'external', url: 'https://x.example/' });
    assert.deepEqual(parse('forager-page://external?url=https%3A%2F%2Fx.example%2F'), { kind: 'external', url: 'https://x.example/' });
    assert.deepEqual(parse('forager-page://external/4'), { kind: 'page', collection: 'external', seq: 4 });
    for (const raw of ['forager-page:///4', 'forager-page://c/', 'forager-page://c', 'http://c/4', 'forager-page://external/', 'forager-page://c/01']) {
      assert.equal(parse(raw), undefined, raw);
    }
  });

  it('reads back the hrefs that viewerRoutes writes, under both transports', () => {
    const names = ['My crawl', 'ünïcödé', 'a%2Fb', "quote'\"<>", 'external'];
    for (const transport of ['serve', 'protocol'] as const) {
      const routes = viewerRoutes(transport);
      for (const name of names) {
        const href = routes.pageHref(name, 42);
        const url = transport === 'serve' ? new URL(href, 'http://127.0.0.1') : new URL(href);
        assert.deepEqual(parseViewerUrl(url, transport), { kind: 'page', collection: name, seq: 42 }, `${transport} ${name}`);
      }
      const target = 'https://x.example/a b?q=1&r=ä#f';
      const href = routes.externalHref(target);
      const url = transport === 'serve' ? new URL(href, 'http://127.0.0.1') : new URL(href);
      assert.deepEqual(parseViewerUrl(url, transport), { kind: 'external', url: target });
    }
  });
});
