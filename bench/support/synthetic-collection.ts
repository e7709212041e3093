/**
 * A realistic collection written straight through the stores, for export benchmarks:
 * pages of ~20 KB of HTML (stored gzipped), response headers and the request head as a
 * crawl stores them, half of the pages served gzip-encoded (their payload kept as
 * received), title, text, relevance, hot, and 20 links each. Deterministic, and fast:
 * one transaction per 1,000 pages, and the bulk of each body is one of a few prepared
 * gzip members (a gzip stream may hold several; the page's own head is a member of its own).
 */
import { gzipSync } from 'node:zlib';
import { DEFAULT_SETTINGS, DEFAULT_USER_AGENT } from '../../crawler/protocol/settings.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { HostStore } from '../../crawler/store/host-store.ts';
import { PageStore } from '../../crawler/store/page-store.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { UrlStore } from '../../crawler/store/url-store.ts';
import { fingerprint } from '../../crawler/url/fingerprint.ts';
import { seededRandom } from './seeded-random.ts';

const HOSTS = 50;
const LINKS_PER_PAGE = 20;
const PAGES_PER_TRANSACTION = 1000;
const BODY_VARIANTS = 64;
const BODY_BYTES = 20_000;
const QUERY = 'write-ahead logging and checkpoints';
const WORDS = [
  'checkpoint', 'write-ahead', 'log', 'segment', 'recovery', 'fsync', 'buffer', 'page', 'transaction', 'commit',
  'the', 'of', 'and', 'a', 'to', 'in', 'is', 'that', 'for', 'it', 'with', 'as', 'on', 'be', 'at', 'by', 'this',
  'database', 'index', 'replica', 'latency', 'throughput', 'storage', 'durable', 'crash', 'restart', 'sequence',
];

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)] as string);
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The shared tail of a body: article paragraphs, footer, end of document; gzipped once. */
function bodyTails(rand: () => number): Buffer[] {
  const tails: Buffer[] = [];
  for (let v = 0; v < BODY_VARIANTS; v++) {
    let html = '<article>';
    while (html.length < BODY_BYTES - 2_500) html += `<p class="para">${sentence(rand, 12 + Math.floor(rand() * 20))} ${sentence(rand, 8 + Math.floor(rand() * 12))}</p>\n`;
    html += '</article><footer><p>Synthetic documentation for export benchmarks.</p></footer></body></html>\n';
    tails.push(Buffer.from(html));
  }
  return tails;
}

function pageUrl(n: number): string {
  return `https://docs${n % HOSTS}.example/manual/section-${n % 97}/page-${n}.html`;
}

/** Writes a collection of `pages` fetched pages at `path` (which must not exist yet). */
export function buildSyntheticCollection(path: string, pages: number): void {
  const db = openCollection(path, { create: true });
  // A fixture, not a crawl: no fsync, and a cache that holds the link index as it grows.
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  try {
    const seeds = [pageUrl(0)];
    saveSettings(db, { ...DEFAULT_SETTINGS, query: QUERY, seeds });
    const rand = seededRandom(42);
    const tails = bodyTails(rand);
    const tailsGzip = tails.map((tail) => gzipSync(tail));
    const hosts = new HostStore(db);
    const urls = new UrlStore(db);
    const store = new PageStore(db);
    const started = Date.UTC(2026, 10, 1);

    // Every page's URL first, so that links can point at any page by id (ids are 1..pages).
    for (let from = 0; from < pages; from += PAGES_PER_TRANSACTION) {
      db.transaction(() => {
        for (let n = from; n < Math.min(pages, from + PAGES_PER_TRANSACTION); n++) {
          const url = pageUrl(n);
          urls.insert({
            fp: fingerprint(url), url, hostId: hosts.idFor(new URL(url).origin), depth: n === 0 ? 0 : 1 + (n % 6),
            state: UrlState.fetched, parentId: n === 0 ? null : 1, redirects: 0, reason: null,
          });
        }
      })();
    }

    for (let from = 0; from < pages; from += PAGES_PER_TRANSACTION) {
      db.transaction(() => {
        for (let n = from; n < Math.min(pages, from + PAGES_PER_TRANSACTION); n++) {
          const url = new URL(pageUrl(n));
          const title = `Manual, section ${n % 97}: ${sentence(rand, 5)}`;
          const targets = Array.from({ length: LINKS_PER_PAGE }, () => 1 + Math.floor(rand() * pages));
          const nav = targets.map((id, i) => `<li><a href="${pageUrl(id - 1)}">Related page ${i}</a></li>`).join('');
          const head = Buffer.from(
            `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
              `<link rel="stylesheet" href="/static/site.css"></head><body><h1>${title}</h1><nav><ul>${nav}</ul></nav>\n`,
          );
          const variant = n % BODY_VARIANTS;
          const decodedLength = head.length + (tails[variant] as Buffer).length;
          const gzipped = Buffer.concat([gzipSync(head, { level: 1 }), tailsGzip[variant] as Buffer]);
          const encoded = n % 2 === 1;
          const date = new Date(started + n * 200);
          const headers: [string, string][] = [
            ['Server', 'nginx/1.26.0'],
            ['Date', date.toUTCString()],
            ['Content-Type', 'text/html; charset=utf-8'],
            ['Last-Modified', new Date(started - 86_400_000).toUTCString()],
            ['Cache-Control', 'max-age=600'],
            ...(encoded ? ([['Transfer-Encoding', 'chunked'], ['Content-Encoding', 'gzip'], ['Vary', 'Accept-Encoding']] as [string, string][]) : ([['Content-Length', String(decodedLength)]] as [string, string][])),
          ];
          const relevance = Math.round(rand() * 10_000) / 10_000;
          const seq = store.insert({
            urlId: n + 1, status: 200, httpVersion: '1.1', statusText: 'OK', headers, contentType: 'text/html; charset=utf-8',
            charset: 'utf-8', body: gzipped, bodyBytes: decodedLength, wireBytes: encoded ? gzipped.length : decodedLength,
            title, text: `${title} ${sentence(rand, 120)} ${sentence(rand, 60)}`, terms: 'checkpoint wal log recoveri', relevance,
            hot: relevance >= 0.6, judgedHot: relevance >= 0.6, noindex: false, nofollow: false, canonical: null, redirectTo: null, note: null,
            startedAt: date.getTime(), fetchedAt: date.getTime() + 35, responseMs: 35, remoteAddress: `192.0.2.${1 + (n % HOSTS)}`,
            requestHead:
              `GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\nuser-agent: ${DEFAULT_USER_AGENT}\r\n` +
              'accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\naccept-encoding: gzip, deflate, br\r\n',
            payload: encoded ? gzipped : null,
            simhash: null,
            bodyHash: null,
            duplicateOf: null,
            soft404: false,
          });
          [...new Set(targets)].forEach((dstId, i) => store.insertLink(seq, { dstId, anchor: `Related page ${i}`, contextBefore: 'See also', contextAfter: 'for details' }));
        }
      })();
    }
  } finally {
    db.close();
  }
}
