/*
 * The hostile-input matrix: one crawl of many loopback sites, each misbehaving in one way
 * on /bad and behaving on /after. For every behaviour: the outcome the collection records,
 * that the site's /after page was still fetched (the crawl went on), and, for the whole
 * crawl, a time bound and a collection that reopens whole with every committed page.
 * Behaviours that need a process of their own are tested beside it: a full disk, a
 * read-only store and SQLITE_BUSY (store-failures.test.ts), kill -9 (crash-resume.test.ts),
 * DNS rebinding (unit/crawler/net/ssrf-guard.test.ts), infinite subdomains
 * (host-bookkeeping.test.ts).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { openCollection, type Db } from '../../crawler/store/database.ts';
import { URL_STATE_NAMES, type UrlStateValue } from '../../crawler/store/url-state.ts';
import { crawlOnce, tempDir, testSettings, type CrawlRun } from '../support/crawl-harness.ts';
import { type CertificateFlaws, selfSignedCertificate } from '../support/hostile-server.ts';
import { html, startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

type Routes = Record<string, Handler>;

/** Certificates a crawler must refuse; none is trusted, and each is broken in one more way. */
const TLS_FLAWS: [string, CertificateFlaws][] = [
  ['a self-signed certificate', {}],
  ['an expired certificate', { expired: true }],
  ['a certificate for another name', { commonName: 'wrong-name.example' }],
];

interface Expected {
  /** The URL's state name and a pattern its reason (or its page's note) matches; for a page, its HTTP status. */
  state: string;
  reason?: RegExp;
  status?: number;
}

interface Behaviour {
  name: string;
  /** Routes besides / and /after; /bad is the one misbehaving unless `target` says otherwise. */
  routes: (origin: string) => Routes;
  expect: Expected;
  /** The path whose outcome is checked (default /bad). */
  target?: string;
  /** Extra checks on the collection. */
  also?: (db: Db, url: (path: string) => string) => void;
  /** The answer for every path without a route (a plain 404 by default). */
  fallback?: Handler;
}

const MIB = 1024 * 1024;
const PAGE = '<p>An ordinary page about write-ahead logging and checkpoints.</p>';
const later = (ms: number, fn: () => void): void => void setTimeout(fn, ms).unref();
const send = (status: number, headers: Record<string, string>, body: Buffer | string): Handler => (_req, res) => void res.writeHead(status, headers).end(body);
const encoded = (coding: string, body: Buffer): Handler => send(200, { 'content-type': 'text/html', 'content-encoding': coding }, body);
const zeros = Buffer.alloc(64 * MIB);
const words = (seed: number, n: number): string => Array.from({ length: n }, (_, i) => `word${(seed * 7919 + i * 104729) % 5003}`).join(' ');

const BEHAVIOURS: Behaviour[] = [
  { name: 'headers that never come', routes: () => ({ '/bad': () => undefined }), expect: { state: 'failed', reason: /^timeout:headers$/ } },
  { name: 'headers a byte at a time', routes: () => ({ '/bad': (_req, res) => { res.socket?.write('HTTP/1.1 200 OK\r\n'); later(5000, () => res.socket?.destroy()); } }), expect: { state: 'failed', reason: /^timeout:/ } },
  {
    name: 'a body that stalls',
    routes: () => ({ '/bad': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.write('<p>start'); later(10_000, () => res.end()); } }),
    expect: { state: 'failed', reason: /^timeout:(body|total)$/ },
  },
  {
    name: 'a slowloris body',
    routes: () => ({
      '/bad': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const timer = setInterval(() => res.write('x'), 300);
        res.on('close', () => clearInterval(timer));
      },
    }),
    expect: { state: 'failed', reason: /^timeout:total$/ },
  },
  {
    name: 'an endless chunked body',
    routes: () => ({
      '/bad': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = (): void => void (res.write(chunk) ? setImmediate(pump) : res.once('drain', pump));
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      },
    }),
    expect: { state: 'failed', reason: /^too-large:body$/ },
  },
  { name: 'a Content-Length that lies', routes: () => ({ '/bad': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' }); res.end('<p>short'); res.socket?.end(); } }), expect: { state: 'failed', reason: /reset|network|protocol|body/ } },
  { name: 'a gzip bomb', routes: () => ({ '/bad': encoded('gzip', gzipSync(zeros)) }), expect: { state: 'failed', reason: /^too-large:decoded$/ } },
  { name: 'a brotli bomb', routes: () => ({ '/bad': encoded('br', brotliCompressSync(zeros)) }), expect: { state: 'failed', reason: /^too-large:decoded$/ } },
  { name: 'a deflate bomb', routes: () => ({ '/bad': encoded('deflate', deflateSync(zeros)) }), expect: { state: 'failed', reason: /^too-large:decoded$/ } },
  {
    name: 'gzip stacked five deep',
    routes: () => ({ '/bad': encoded('gzip, gzip, gzip, gzip, gzip', [1, 2, 3, 4, 5].reduce((body) => gzipSync(body), Buffer.from(`<html>${PAGE}</html>`))) }),
    expect: { state: 'failed', reason: /^bad-encoding$/ },
  },
  { name: 'a corrupt gzip body', routes: () => ({ '/bad': encoded('gzip', Buffer.concat([gzipSync('x').subarray(0, 10), Buffer.from('not deflate at all'.repeat(10))])) }), expect: { state: 'failed', reason: /^bad-encoding$/ } },
  { name: 'gzip then brotli, two codings', routes: () => ({ '/bad': encoded('gzip, br', brotliCompressSync(gzipSync(`<html>${PAGE}</html>`))) }), expect: { state: 'fetched', status: 200 } },
  {
    name: '100 KiB of headers',
    routes: () => ({ '/bad': (_req, res) => { const headers: Record<string, string> = { 'content-type': 'text/html' }; for (let i = 0; i < 100; i++) headers[`x-filler-${i}`] = 'x'.repeat(1000); res.writeHead(200, headers).end('ok'); } }),
    expect: { state: 'failed', reason: /^too-large:headers$/ },
  },
  { name: 'a reset mid-body', routes: () => ({ '/bad': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.write('<p>half'); later(20, () => res.socket?.resetAndDestroy()); } }), expect: { state: 'failed', reason: /^connection-reset$/ } },
  { name: 'a reply that is not HTTP', routes: () => ({ '/bad': (_req, res) => void res.socket?.end('SSH-2.0-OpenSSH_9.0\r\n') }), expect: { state: 'failed', reason: /protocol|network|reset/ } },
  // A host that cannot be reached cannot give its robots.txt either: RFC 9309 reads that as "disallow all" until the retries are spent.
  { name: 'a refused connection', routes: () => ({ '/': html(`<a href="http://127.0.0.1:1/bad">refused</a> <a href="/after">after</a>`) }), target: 'http://127.0.0.1:1/bad', expect: { state: 'robots-blocked', reason: /^robots:unavailable:connection-refused$/ } },
  {
    name: 'a redirect loop',
    routes: () => ({ '/bad': send(302, { location: '/loop-b' }, ''), '/loop-b': send(302, { location: '/bad' }, '') }),
    expect: { state: 'fetched', status: 302 },
    also: (db, url) => assert.equal(db.prepare('SELECT count(*) FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url IN (?, ?)').pluck().get(url('/bad'), url('/loop-b')), 2, 'each URL of the loop fetched once'),
  },
  {
    name: 'a redirect chain of seven hops',
    routes: () => Object.fromEntries([['/bad', send(301, { location: '/hop-1' }, '')], ...[1, 2, 3, 4, 5, 6].map((n) => [`/hop-${n}`, send(301, { location: `/hop-${n + 1}` }, '')] as const)]),
    target: '/hop-6',
    expect: { state: 'skipped', reason: /^redirect:too-many$/ },
  },
  { name: 'a redirect to ftp://', routes: () => ({ '/bad': send(301, { location: 'ftp://127.0.0.1/file' }, '') }), expect: { state: 'fetched', status: 301, reason: /^redirect:invalid-target$/ } },
  {
    name: 'a redirect to a private address',
    routes: (origin) => ({ '/bad': send(302, { location: origin.replace('127.0.0.1', '127.0.0.2') + '/inside' }, '') }),
    target: 'REDIRECT_TARGET',
    expect: { state: 'failed', reason: /^ssrf:blocked$/ },
  },
  { name: 'a redirect from http to https', routes: (origin) => ({ '/bad': send(301, { location: origin.replace('http:', 'https:') + '/secure' }, '') }), expect: { state: 'fetched', status: 301 } },
  {
    name: '10,000 links on one page',
    routes: () => ({ '/bad': html(Array.from({ length: 10_000 }, (_, i) => `<a href="/many/${i}">${i}</a>`).join(' ')), '/many': html('') }),
    expect: { state: 'fetched', status: 200 },
    also: (db, url) => assert.equal(db.prepare('SELECT count(*) FROM links l JOIN pages p ON p.seq = l.src_seq JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(url('/bad')), 10_000),
  },
  {
    name: 'an endless calendar',
    routes: () => ({ '/bad': html('<a href="/cal/2024/01/01/2024/01/02/2024/01/03/2024/01/04/next">next day</a>') }),
    target: '/cal/2024/01/01/2024/01/02/2024/01/03/2024/01/04/next',
    expect: { state: 'skipped', reason: /^trap:/ },
  },
  { name: 'session ids in URLs', routes: () => ({ '/bad': html('<a href="/page;jsessionid=ABCDEF0123456789ABCDEF0123456789">session</a>') }), target: '/page;jsessionid=ABCDEF0123456789ABCDEF0123456789', expect: { state: 'skipped', reason: /^trap:session-id$/ } },
  {
    name: 'a soft 404',
    routes: () => ({ '/bad': html(`<h1>Not found</h1><p>${words(1, 80)}</p>`, 'Not found') }),
    fallback: html(`<h1>Not found</h1><p>${words(1, 80)}</p>`, 'Not found'),
    expect: { state: 'fetched', status: 200 },
    also: (db, url) => assert.equal(db.prepare('SELECT p.soft404 FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(url('/bad')), 1),
  },
  {
    name: 'a near-duplicate',
    routes: () => ({ '/bad': html(`<p>${words(5, 300)}</p>`), '/original': html(`<p>${words(5, 300).replace('word', 'changed')}</p>`), '/': html('<a href="/original">o</a> <a href="/bad">b</a> <a href="/after">after</a>') }),
    expect: { state: 'fetched', status: 200 },
    also: (db, url) => assert.ok(['near', 'exact'].includes(db.prepare('SELECT p.duplicate_kind FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(url('/bad')) as string)),
  },
  { name: 'robots.txt that never answers', routes: () => ({ '/robots.txt': () => undefined }), expect: { state: 'robots-blocked', reason: /^robots:unavailable:timeout:headers$/ }, target: '/' },
  { name: 'a 500', routes: () => ({ '/bad': send(500, { 'content-type': 'text/plain' }, 'oops') }), expect: { state: 'failed', reason: /^http:500$/ } },
  { name: 'a 429 without Retry-After', routes: () => ({ '/bad': send(429, { 'content-type': 'text/plain' }, 'slow down') }), expect: { state: 'failed', reason: /^http:429$/ } },
  {
    name: 'a 429 with Retry-After: 1, then the page',
    routes: () => {
      let calls = 0;
      return { '/bad': (req, res) => (calls++ === 0 ? send(429, { 'retry-after': '1' }, '')(req, res) : html(PAGE)(req, res)) };
    },
    expect: { state: 'fetched', status: 200 },
  },
  { name: 'a 503 with Retry-After of a day', routes: () => ({ '/bad': send(503, { 'retry-after': '86400' }, 'maintenance') }), expect: { state: 'failed', reason: /^http:503:retry-after-too-long$/ } },
  { name: 'random bytes labelled HTML', routes: () => ({ '/bad': send(200, { 'content-type': 'text/html' }, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24))) }), expect: { state: 'fetched', status: 200, reason: /content-type-mismatch|^$/ } },
  {
    name: 'HTML served as robots.txt',
    routes: () => ({ '/robots.txt': html('<html><body>User-agent: * Disallow: /bad</body></html>'), '/bad': html(PAGE) }),
    expect: { state: 'fetched', status: 200 },
  },
  {
    name: '30,000 user-agents in robots.txt',
    routes: () => ({ '/robots.txt': send(200, { 'content-type': 'text/plain' }, `User-agent: *\nDisallow: /bad\n\n${Array.from({ length: 30_000 }, (_, i) => `User-agent: ${i.toString(26).replace(/./g, (d) => String.fromCharCode(97 + parseInt(d, 26)))}\n`).join('')}Disallow: /\n`) }),
    expect: { state: 'robots-blocked', reason: /^robots:disallowed$/ },
  },
  { name: 'a gzip bomb as robots.txt', routes: () => ({ '/robots.txt': send(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, gzipSync(Buffer.concat([Buffer.from('User-agent: *\nDisallow: /bad\n'), Buffer.alloc(16 * MIB, '#')]))) }), expect: { state: 'robots-blocked', reason: /^robots:disallowed$/ } },
  { name: 'a Crawl-delay of a day', routes: () => ({ '/robots.txt': send(200, { 'content-type': 'text/plain' }, 'User-agent: *\nCrawl-delay: 86400\n'), '/bad': html(PAGE) }), expect: { state: 'fetched', status: 200 } },
  { name: 'HTML served as an image', routes: () => ({ '/bad': send(200, { 'content-type': 'image/png' }, `<html>${PAGE}</html>`) }), expect: { state: 'fetched', status: 200, reason: /^not-html:image\/png$/ } },
  { name: 'an unknown charset', routes: () => ({ '/bad': send(200, { 'content-type': 'text/html; charset=x-martian' }, `<html><title>Martian</title>${PAGE}</html>`) }), expect: { state: 'fetched', status: 200 } },
  { name: 'NUL bytes in the page', routes: () => ({ '/bad': send(200, { 'content-type': 'text/html' }, `<html><title>a\u0000b</title>\u0000${PAGE}\u0000</html>`) }), expect: { state: 'fetched', status: 200 } },
  { name: '80,000 nested elements', routes: () => ({ '/bad': html(`${'<div>'.repeat(80_000)}deep${'</div>'.repeat(80_000)}`) }), expect: { state: 'fetched', status: 200 } },
  { name: 'truncated HTML', routes: () => ({ '/bad': send(200, { 'content-type': 'text/html' }, '<html><head><title>Cut</title></head><body><p>cut off in the <a href="/after') }), expect: { state: 'fetched', status: 200 } },
  {
    name: 'a flood of 103 Early Hints',
    routes: () => ({ '/bad': (_req, res) => { let head = ''; for (let i = 0; i < 500; i++) head += 'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n'; res.socket?.end(`${head}HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 12\r\n\r\n<p>after</p>`); } }),
    expect: { state: 'fetched', status: 200 },
  },
  { name: 'a server that answers only HEAD', routes: () => ({ '/bad': (req, res) => void (req.method === 'HEAD' ? res.writeHead(200, { 'content-type': 'text/html' }).end() : res.writeHead(405, { allow: 'HEAD' }).end()) }), expect: { state: 'fetched', status: 405 } },
];

interface Row {
  state: number;
  reason: string | null;
  status: number | null;
  note: string | null;
}

describe('the hostile-input matrix', () => {
  const sites = new Map<string, TestSite>();
  /** One HTTPS server per broken certificate; empty without openssl. */
  const tlsSites = new Map<string, { server: HttpsServer; origin: string }>();
  let run: CrawlRun;
  let seconds = 0;
  const dir = tempDir('forager-matrix-');

  before(async () => {
    for (const behaviour of BEHAVIOURS) {
      const routes: Routes = { '/': html('<a href="/bad">bad</a> <a href="/after">after</a>'), '/after': html(PAGE, 'After') };
      const site = await startTestSite(routes, behaviour.fallback);
      // The site reads its routes at each request, so they can be added once its origin (which a redirect names) is known.
      Object.assign(routes, behaviour.routes(site.origin));
      sites.set(behaviour.name, site);
    }
    for (const [name, flaws] of TLS_FLAWS) {
      const cert = selfSignedCertificate(flaws);
      if (cert === undefined) continue;
      const server = createHttpsServer(cert, (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      tlsSites.set(name, { server, origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}` });
    }
    const seeds = [...sites.values(), ...tlsSites.values()].map((site) => `${site.origin}/`);
    const started = performance.now();
    run = await crawlOnce(dir.dir, testSettings(seeds, {
      allowPrivate: false, scope: 'any', concurrency: 16, maxBodyBytes: MIB, maxDecodedBytes: 4 * MIB, robotsMaxAttempts: 2, maxCrawlDelayMs: 200,
      probeSoft404: true, maxRetryAfterMs: 5000, maxPages: 100_000,
    }));
    seconds = (performance.now() - started) / 1000;
  });

  after(async () => {
    run?.db.close();
    for (const site of sites.values()) await site.close();
    for (const { server } of tlsSites.values()) server.close();
    dir.cleanup();
  });

  test('has at least 40 behaviours', () => {
    assert.ok(BEHAVIOURS.length + tlsSites.size >= 40, `${BEHAVIOURS.length} behaviours`);
  });

  test('the crawl ends within its time bound, and the collection reopens whole', () => {
    assert.ok(['exhausted', 'budget'].includes(run.outcome), run.outcome);
    assert.ok(seconds < 90, `the matrix crawl took ${seconds.toFixed(1)} s`);
    const pages = run.db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
    assert.equal(run.db.pragma('integrity_check', { simple: true }), 'ok');
    const again = openCollection(run.dbPath, { create: false, readonly: true });
    try {
      assert.equal(again.prepare('SELECT count(*) FROM pages').pluck().get(), pages, 'every committed page is there on reopening');
    } finally {
      again.close();
    }
  });

  for (const [name] of TLS_FLAWS) {
    test(`${name}: the host is written off as robots:unavailable:tls`, (t) => {
      const site = tlsSites.get(name);
      if (site === undefined) {
        t.skip('openssl is not installed');
        return;
      }
      // Its robots.txt cannot be had over a broken TLS handshake, so its URLs are written off, saying why.
      const row = run.db.prepare('SELECT state, reason FROM urls WHERE url = ?').get(`${site.origin}/`) as Row | undefined;
      assert.deepEqual([row?.state === undefined ? undefined : URL_STATE_NAMES[row.state as UrlStateValue], row?.reason], ['robots-blocked', 'robots:unavailable:tls']);
      const host = run.db.prepare('SELECT robots_status FROM hosts WHERE origin = ?').pluck().get(site.origin);
      assert.equal(host, -1, 'robots.txt recorded as unreachable');
    });
  }


  for (const behaviour of BEHAVIOURS) {
    test(behaviour.name, () => {
      const site = sites.get(behaviour.name) as TestSite;
      const url = (path: string): string => (path.startsWith('http') ? path : `${site.origin}${path}`);
      const target = behaviour.target === 'REDIRECT_TARGET' ? `${site.origin.replace('127.0.0.1', '127.0.0.2')}/inside` : url(behaviour.target ?? '/bad');
      const row = run.db
        .prepare('SELECT u.state, u.reason, p.status, p.note FROM urls u LEFT JOIN pages p ON p.url_id = u.id WHERE u.url = ?')
        .get(target) as Row | undefined;
      assert.ok(row !== undefined, `${target} is recorded`);
      const { state, reason, status } = behaviour.expect;
      assert.equal(URL_STATE_NAMES[row.state as UrlStateValue], state, `state of ${target} (reason ${row.reason}, note ${row.note})`);
      if (reason !== undefined) assert.match(row.reason ?? row.note ?? '', reason);
      if (status !== undefined) assert.equal(row.status, status);
      behaviour.also?.(run.db, url);
      if (behaviour.expect.state !== 'robots-blocked' || behaviour.target !== '/') {
        const afterRow = run.db.prepare('SELECT state FROM urls WHERE url = ?').pluck().get(url('/after'));
        assert.equal(afterRow === undefined ? undefined : URL_STATE_NAMES[afterRow as UrlStateValue], 'fetched', 'the crawl went on: /after was fetched');
      }
    });
  }
});
