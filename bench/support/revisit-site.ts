/*
 * The refresh benchmark's site: PAGES HTML pages on one 127.0.0.1 origin, served from memory
 * by the benchmark's own process. A home page links to every section's index, each index to
 * its section's articles, and each article to its neighbours in the section and three others,
 * with the site's navigation on every page. Pages are 4-42 KB. A third send an ETag, a third
 * only a Last-Modified, a third neither; If-None-Match and If-Modified-Since are honoured with
 * a 304. `change` gives some pages new text (their links stay) and new validators.
 *
 * What the server wrote is counted per response, status line and headers included, so the
 * benchmark's byte figures do not rest on the crawler's own counter.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from './seeded-random.ts';

export type Validators = 'etag' | 'last-modified' | 'none';

export const VALIDATOR_KINDS: readonly Validators[] = ['etag', 'last-modified', 'none'];

interface SitePage {
  path: string;
  title: string;
  validators: Validators;
  /** 1 as first served; each change adds one. */
  version: number;
  /** Bytes of prose the page's versions are made with. */
  textBytes: number;
  links: readonly { path: string; label: string }[];
  body: Buffer;
  etag: string;
  /** Whole seconds, as HTTP dates carry them. */
  lastModifiedMs: number;
}

/** What the server answered and wrote since the last `takeTraffic`. */
export interface Traffic {
  requests: number;
  bytes: number;
  byStatus: Record<string, number>;
  /** Bytes written for the site's pages, by the validators the page sends. */
  bytesByValidators: Record<Validators, number>;
}

export interface RevisitSite {
  origin: string;
  seed: string;
  /** Every page's URL. */
  urls: readonly string[];
  /** Gives `count` pages (chosen by a fixed seed, so every run changes the same ones) new text and validators; returns their URLs. */
  change(count: number): string[];
  takeTraffic(): Traffic;
  close(): Promise<void>;
}

const WORDS = (
  'database index transaction journal checkpoint replica snapshot commit rollback isolation ' +
  'vacuum buffer page segment lock latch query planner statistics cardinality join hash merge ' +
  'btree leaf split fsync durability recovery archive partition shard cluster lease consensus ' +
  'write read cache eviction compaction tombstone bloom filter range scan cursor cost estimate ' +
  'schema migration constraint foreign key trigger view materialized replication lag failover'
).split(' ');
const SECTION_NAMES = ['storage', 'queries', 'transactions', 'replication', 'operations', 'indexes', 'recovery', 'tuning'];
const MIN_TEXT_BYTES = 2_000;
const MAX_TEXT_BYTES = 40_000;
const RELATED_LINKS = 3;
/** The first versions' Last-Modified: well in the past, a page an hour apart. */
const FIRST_LAST_MODIFIED_MS = Date.parse('2026-01-01T00:00:00Z');
const STYLE =
  '<style>body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:48rem;padding:1rem}' +
  'nav{border-bottom:1px solid #ccc;margin-bottom:1rem}nav a{margin-right:.75rem}' +
  'footer{border-top:1px solid #ccc;color:#555;font-size:.85rem;margin-top:2rem}</style>';

function prose(bytes: number, seed: number): string {
  const next = seededRandom(seed);
  const word = (): string => WORDS[Math.floor(next() * WORDS.length)] as string;
  const paragraphs: string[] = [];
  let length = 0;
  while (length < bytes) {
    const sentences: string[] = [];
    const count = 3 + Math.floor(next() * 5);
    for (let s = 0; s < count; s++) {
      const words = Array.from({ length: 8 + Math.floor(next() * 13) }, word);
      const first = words[0] as string;
      words[0] = first.charAt(0).toUpperCase() + first.slice(1);
      sentences.push(`${words.join(' ')}.`);
    }
    const paragraph = `<p>${sentences.join(' ')}</p>`;
    paragraphs.push(paragraph);
    length += paragraph.length;
  }
  return paragraphs.join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function render(page: SitePage, nav: string, index: number): Buffer {
  const links = page.links.map((link) => `<li><a href="${link.path}">${escapeHtml(link.label)}</a></li>`).join('\n');
  const updated = page.version > 1 ? `<p><em>Revised (version ${page.version}).</em></p>\n` : '';
  return Buffer.from(
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(page.title)}</title>` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">${STYLE}</head>\n<body>\n${nav}\n<main>\n` +
      `<h1>${escapeHtml(page.title)}</h1>\n${updated}${prose(page.textBytes, index * 7919 + page.version * 104_729)}\n` +
      `<h2>See also</h2>\n<ul>\n${links}\n</ul>\n</main>\n<footer>Page ${index} of the benchmark site.</footer>\n</body></html>\n`,
  );
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"`;
}

/** The site's pages: the home page, then the sections' indexes, then the articles. */
function buildPages(count: number): { pages: SitePage[]; nav: string } {
  const sections = Math.max(2, Math.min(SECTION_NAMES.length * 4, Math.round(count / 50)));
  const sectionName = (s: number): string => `${SECTION_NAMES[s % SECTION_NAMES.length]}${s < SECTION_NAMES.length ? '' : `-${Math.floor(s / SECTION_NAMES.length) + 1}`}`;
  const next = seededRandom(42);
  const articles = count - 1 - sections;
  const articlePaths: string[][] = Array.from({ length: sections }, () => []);
  const all: { path: string; title: string; section: number }[] = [{ path: '/', title: 'Database notes', section: -1 }];
  for (let s = 0; s < sections; s++) all.push({ path: `/docs/${sectionName(s)}/`, title: `Section: ${sectionName(s)}`, section: s });
  for (let a = 0; a < articles; a++) {
    const section = a % sections;
    const slug = `${WORDS[a % WORDS.length]}-${WORDS[(a * 7 + 3) % WORDS.length]}-${a}`;
    const path = `/docs/${sectionName(section)}/${slug}.html`;
    (articlePaths[section] as string[]).push(path);
    all.push({ path, title: `${slug.replace(/-/g, ' ')} (${sectionName(section)})`, section });
  }
  const titleOf = new Map(all.map((p) => [p.path, p.title]));
  const nav = `<nav><a href="/">Home</a>${Array.from({ length: sections }, (_, s) => `<a href="/docs/${sectionName(s)}/">${sectionName(s)}</a>`).join('')}</nav>`;
  const pages = all.map((p, i): SitePage => {
    let links: string[];
    if (i === 0) links = Array.from({ length: sections }, (_, s) => `/docs/${sectionName(s)}/`);
    else if (i <= sections) links = articlePaths[p.section] as string[];
    else {
      const siblings = articlePaths[p.section] as string[];
      const at = siblings.indexOf(p.path);
      links = [`/docs/${sectionName(p.section)}/`, siblings[(at + siblings.length - 1) % siblings.length] as string, siblings[(at + 1) % siblings.length] as string];
      for (let r = 0; r < RELATED_LINKS; r++) links.push((all[1 + sections + Math.floor(next() * articles)] as { path: string }).path);
    }
    const textBytes = i <= sections ? MIN_TEXT_BYTES : Math.round(MIN_TEXT_BYTES * (MAX_TEXT_BYTES / MIN_TEXT_BYTES) ** next());
    return {
      path: p.path,
      title: p.title,
      validators: VALIDATOR_KINDS[i % 3] as Validators,
      version: 1,
      textBytes,
      links: [...new Set(links)].filter((path) => path !== p.path).map((path) => ({ path, label: titleOf.get(path) as string })),
      body: Buffer.alloc(0),
      etag: '',
      lastModifiedMs: FIRST_LAST_MODIFIED_MS - i * 3_600_000,
    };
  });
  pages.forEach((page, i) => {
    page.body = render(page, nav, i);
    page.etag = etagOf(page.body);
  });
  return { pages, nav };
}

/** RFC 9110 §13.1.2: a weak comparison with any of the listed tags, or "*". */
function etagMatches(header: string, etag: string): boolean {
  const weak = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || weak(tag) === weak(etag));
}

/** Whether the conditional request is answered with a 304; If-None-Match, when sent, decides alone (RFC 9110 §13.2.2). */
function notModified(req: IncomingMessage, page: SitePage): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return page.validators === 'etag' && etagMatches(ifNoneMatch, page.etag);
  const since = req.headers['if-modified-since'];
  if (since === undefined || page.validators !== 'last-modified') return false;
  const sinceMs = Date.parse(since);
  return Number.isFinite(sinceMs) && page.lastModifiedMs <= sinceMs;
}

function emptyTraffic(): Traffic {
  return { requests: 0, bytes: 0, byStatus: {}, bytesByValidators: { etag: 0, 'last-modified': 0, none: 0 } };
}

export async function startRevisitSite(count: number): Promise<RevisitSite> {
  const { pages, nav } = buildPages(count);
  const byPath = new Map(pages.map((page) => [page.path, page]));
  let traffic = emptyTraffic();

  const respond = (req: IncomingMessage, res: ServerResponse): SitePage | undefined => {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return undefined;
    }
    const page = byPath.get(path);
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Not found</title><p>Not found.</p>');
      return undefined;
    }
    const headers: Record<string, string | number> = { 'content-type': 'text/html; charset=utf-8' };
    if (page.validators === 'etag') headers.etag = page.etag;
    if (page.validators === 'last-modified') headers['last-modified'] = new Date(page.lastModifiedMs).toUTCString();
    if (notModified(req, page)) {
      res.writeHead(304, headers).end();
      return page;
    }
    headers['content-length'] = page.body.length;
    res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : page.body);
    return page;
  };

  const server = createServer((req, res) => {
    // One request at a time on a connection, so what the socket wrote meanwhile is this response.
    const socket = req.socket;
    const before = socket.bytesWritten;
    const page = respond(req, res);
    res.once('finish', () => {
      const bytes = socket.bytesWritten - before;
      traffic.requests++;
      traffic.bytes += bytes;
      traffic.byStatus[res.statusCode] = (traffic.byStatus[res.statusCode] ?? 0) + 1;
      if (page !== undefined) traffic.bytesByValidators[page.validators] += bytes;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    seed: `${origin}/`,
    urls: pages.map((page) => `${origin}${page.path}`),
    change(changes: number): string[] {
      const next = seededRandom(7);
      const order = pages.map((_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      const now = Math.floor(Date.now() / 1000) * 1000;
      return order.slice(0, changes).map((i) => {
        const page = pages[i] as SitePage;
        page.version++;
        page.body = render(page, nav, i);
        page.etag = etagOf(page.body);
        page.lastModifiedMs = now;
        return `${origin}${page.path}`;
      });
    },
    takeTraffic(): Traffic {
      const taken = traffic;
      traffic = emptyTraffic();
      return taken;
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
