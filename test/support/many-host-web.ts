import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * A loopback web of many hosts for cluster tests and benchmarks. Each host is an HTTP server
 * of its own on 127.0.0.1 (a distinct port, so a distinct origin); all of them live in this
 * process and share one request log, the witness for politeness and "fetched once" checks.
 *
 * The web is a function of its options: host i's pages, words, links, topic and robots.txt
 * depend on the seed and on i alone, never on the ports the system hands out, so two webs
 * with one seed are the same web under other port numbers (see `planWeb`).
 *
 * Paths: page 0 of a host is "/", page k (1 ≤ k < pagesPerHost) is "/p/k". "/robots.txt"
 * allows everything (with a Crawl-delay on some hosts when asked). Every other path, a query
 * string included, is a 404.
 *
 * Reachability: host h's index links to every page of h, to the index of host h+1 (a ring)
 * and to the indexes of hosts 2h+1 and 2h+2 (a binary tree rooted at host 0), so every page
 * is at most ⌊log2(hosts)⌋ + 1 links from host 0's index, well inside a crawl's max depth.
 * The seeds include host 0's index.
 */

export interface ManyHostWebOptions {
  /** How many hosts (servers). */
  hosts: number;
  /** Pages per host, the index included. Default 10. */
  pagesPerHost?: number;
  /** Share (0..1) of a page's random links that go to another host. Default 0.2. */
  crossLinkShare?: number;
  /** Random links per page, besides the index's navigation and a page's "home" link. Default 6. */
  linksPerPage?: number;
  /** Seed of everything random. Default 1. */
  seed?: number;
  /** How many seed hosts (their index pages): host 0 and others spread evenly. Default 3. */
  seedHosts?: number;
  /** Every response (robots.txt and 404s too) is sent this long after the request arrived. Default 0. */
  latencyMs?: number;
  /** A Crawl-delay (seconds) in robots.txt of a share of the hosts (chosen by the seed). Default none. */
  crawlDelay?: { seconds: number; share?: number };
  /** Host i listens on basePort + i (a fixed web across runs); default: ports the system chooses. */
  basePort?: number;
  /** These hosts are about `topic`, and no other host is (default: each host's topic is drawn by the seed). */
  topical?: { topic: string; hosts: readonly number[] };
}

export type RequestKind = 'page' | 'robots' | 'missing';

export interface RequestLogEntry {
  /** "http://127.0.0.1:PORT" */
  origin: string;
  /** The request target as sent: path and query. */
  path: string;
  method: string;
  kind: RequestKind;
  status: number;
  /** When the request's headers arrived, on the `now()` clock (epoch milliseconds, sub-millisecond). */
  start: number;
  /** When the response was handed to the socket in full (or the connection closed); null while in flight. */
  end: number | null;
  /** True when the connection closed before the response was complete. */
  aborted: boolean;
}

export interface ManyHostWeb {
  /** "http://127.0.0.1:PORT", host i at index i. */
  origins: string[];
  /** The seed URLs: the index pages ("origin/") of the seed hosts. */
  seeds: string[];
  /** The structure the servers serve, by host and page number. */
  plan: WebPlan;
  /** Every page URL that exists (hosts × pagesPerHost), in host then page order. */
  pageUrls(): string[];
  /** Every request, appended when it arrives (its `end` is set when the response is complete). */
  log: RequestLogEntry[];
  /** Host index of an origin, or -1. */
  hostIndex(origin: string): number;
  /** The Crawl-delay host `origin`'s robots.txt names, in seconds, or undefined. */
  crawlDelaySeconds(origin: string): number | undefined;
  /** Closes every server and every connection; pending delayed responses are dropped. */
  close(): Promise<void>;
}

/** The clock of the log: epoch milliseconds with a sub-millisecond fraction, comparable across processes. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

/** Mixes integers into one 32-bit value (a multiply–xorshift hash), so each page has a stream of its own. */
function hashInts(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h ^= part >>> 0;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** xorshift32 with its output scaled to [0, 1). */
class Rng {
  #x: number;
  constructor(seed: number) {
    this.#x = seed >>> 0 || 0x6d2b79f5;
  }
  next(): number {
    let x = this.#x;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.#x = x;
    return x / 0x1_0000_0000;
  }
  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)] as T;
  }
}

const STREAM = { topic: 1, robots: 2, links: 3, text: 4 } as const;

// ---------------------------------------------------------------------------------------------
// Words

/** Topics a host is about, each with words of its own; a focused crawl can look for one of them. */
export const TOPICS: Record<string, readonly string[]> = {
  databases: ['database', 'index', 'query', 'transaction', 'journal', 'checkpoint', 'replica', 'schema', 'table', 'vacuum', 'lock', 'commit', 'rollback', 'cursor', 'shard'],
  gardening: ['garden', 'compost', 'seedling', 'tomato', 'mulch', 'pruning', 'soil', 'harvest', 'greenhouse', 'trellis', 'weed', 'bulb', 'orchard', 'hedge', 'watering'],
  astronomy: ['telescope', 'galaxy', 'nebula', 'orbit', 'comet', 'eclipse', 'planet', 'asteroid', 'meteor', 'parallax', 'quasar', 'observatory', 'constellation', 'redshift', 'supernova'],
  cooking: ['recipe', 'oven', 'sourdough', 'braise', 'stock', 'knife', 'spice', 'simmer', 'pastry', 'roast', 'marinade', 'skillet', 'dough', 'sauce', 'butter'],
  sailing: ['sail', 'harbour', 'keel', 'mooring', 'anchor', 'tide', 'rigging', 'mast', 'helm', 'regatta', 'dinghy', 'hull', 'jib', 'current', 'buoy'],
  music: ['melody', 'rhythm', 'chord', 'tempo', 'violin', 'piano', 'harmony', 'orchestra', 'score', 'concert', 'guitar', 'scale', 'choir', 'cadence', 'sonata'],
};
const TOPIC_NAMES = Object.keys(TOPICS);

const COMMON = [
  'the', 'a', 'of', 'and', 'to', 'in', 'is', 'for', 'with', 'on', 'that', 'this', 'we', 'our', 'notes', 'about', 'how',
  'when', 'every', 'some', 'new', 'old', 'small', 'large', 'first', 'last', 'good', 'simple', 'careful', 'practical',
  'guide', 'week', 'season', 'method', 'example', 'question', 'answer', 'reader', 'year', 'work', 'time', 'place',
];

function sentence(rng: Rng, topicWords: readonly string[], words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rng.next() < 0.35 ? rng.pick(topicWords) : rng.pick(COMMON));
  const text = out.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// ---------------------------------------------------------------------------------------------
// The plan: the web by host and page number, independent of ports

export interface PageRef {
  host: number;
  page: number;
}

export interface WebPlan {
  hosts: number;
  pagesPerHost: number;
  /** Host indexes whose index pages are the seeds. */
  seedHosts: number[];
  topicOf(host: number): string;
  /** Seconds, or undefined when host's robots.txt names none. */
  crawlDelayOf(host: number): number | undefined;
  /** The pages `host`/`page` links to, in document order, without repeats (never itself). */
  linksOf(host: number, page: number): PageRef[];
  /** Title of a page. */
  titleOf(host: number, page: number): string;
}

interface ResolvedOptions {
  hosts: number;
  pagesPerHost: number;
  crossLinkShare: number;
  linksPerPage: number;
  seed: number;
  seedHosts: number;
  latencyMs: number;
  crawlDelay: { seconds: number; share: number } | undefined;
  basePort: number | undefined;
  topical: { topic: string; hosts: ReadonlySet<number> } | undefined;
}

function resolveOptions(options: ManyHostWebOptions): ResolvedOptions {
  const resolved: ResolvedOptions = {
    hosts: options.hosts,
    pagesPerHost: options.pagesPerHost ?? 10,
    crossLinkShare: options.crossLinkShare ?? 0.2,
    linksPerPage: options.linksPerPage ?? 6,
    seed: options.seed ?? 1,
    seedHosts: Math.min(options.seedHosts ?? 3, options.hosts),
    latencyMs: options.latencyMs ?? 0,
    crawlDelay: options.crawlDelay === undefined ? undefined : { seconds: options.crawlDelay.seconds, share: options.crawlDelay.share ?? 1 },
    basePort: options.basePort,
    topical: options.topical === undefined ? undefined : { topic: options.topical.topic, hosts: new Set(options.topical.hosts) },
  };
  if (resolved.topical !== undefined && !(resolved.topical.topic in TOPICS)) throw new Error(`topical.topic must be one of ${TOPIC_NAMES.join(', ')}, got ${resolved.topical.topic}`);
  if (!Number.isInteger(resolved.hosts) || resolved.hosts < 1) throw new Error(`hosts must be a whole number ≥ 1, got ${resolved.hosts}`);
  if (!Number.isInteger(resolved.pagesPerHost) || resolved.pagesPerHost < 1) throw new Error(`pagesPerHost must be a whole number ≥ 1, got ${resolved.pagesPerHost}`);
  if (!(resolved.crossLinkShare >= 0 && resolved.crossLinkShare <= 1)) throw new Error(`crossLinkShare must be in [0, 1], got ${resolved.crossLinkShare}`);
  if (!Number.isInteger(resolved.linksPerPage) || resolved.linksPerPage < 0) throw new Error(`linksPerPage must be a whole number ≥ 0, got ${resolved.linksPerPage}`);
  if (!(resolved.latencyMs >= 0)) throw new Error(`latencyMs must be ≥ 0, got ${resolved.latencyMs}`);
  if (!Number.isInteger(resolved.seedHosts) || resolved.seedHosts < 1) throw new Error(`seedHosts must be a whole number ≥ 1, got ${resolved.seedHosts}`);
  return resolved;
}

/** The web's structure for these options, without starting anything. */
export function planWeb(options: ManyHostWebOptions): WebPlan {
  const o = resolveOptions(options);
  const { hosts, pagesPerHost, seed } = o;
  const topical = o.topical;
  const others = topical === undefined ? TOPIC_NAMES : TOPIC_NAMES.filter((t) => t !== topical.topic);
  const topics = Array.from({ length: hosts }, (_, h) =>
    topical?.hosts.has(h) === true ? topical.topic : (others[hashInts(seed, STREAM.topic, h) % others.length] as string),
  );
  const delays = Array.from({ length: hosts }, (_, h) =>
    o.crawlDelay !== undefined && new Rng(hashInts(seed, STREAM.robots, h)).next() < o.crawlDelay.share ? o.crawlDelay.seconds : undefined,
  );
  const seedHosts: number[] = [];
  for (let i = 0; i < o.seedHosts; i++) {
    const h = Math.floor((i * hosts) / o.seedHosts);
    if (!seedHosts.includes(h)) seedHosts.push(h);
  }

  const linksOf = (host: number, page: number): PageRef[] => {
    const out: PageRef[] = [];
    const seen = new Set<number>([host * pagesPerHost + page]);
    const add = (h: number, p: number): void => {
      const key = h * pagesPerHost + p;
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ host: h, page: p });
    };
    if (page === 0) {
      for (let p = 1; p < pagesPerHost; p++) add(host, p);
      for (const h of [(host + 1) % hosts, 2 * host + 1, 2 * host + 2]) if (h < hosts) add(h, 0);
    } else {
      add(host, 0);
    }
    const rng = new Rng(hashInts(seed, STREAM.links, host, page));
    for (let i = 0; i < o.linksPerPage; i++) {
      const cross = hosts > 1 && rng.next() < o.crossLinkShare;
      if (cross) {
        const other = (host + 1 + rng.below(hosts - 1)) % hosts;
        add(other, rng.below(pagesPerHost));
      } else if (pagesPerHost > 1) {
        add(host, rng.below(pagesPerHost));
      }
    }
    return out;
  };

  const titleOf = (host: number, page: number): string => {
    const topic = topics[host] as string;
    const rng = new Rng(hashInts(seed, STREAM.text, host, page, 0));
    const words = [rng.pick(TOPICS[topic] as readonly string[]), rng.pick(TOPICS[topic] as readonly string[])];
    return page === 0 ? `Host ${host}: ${topic}` : `${topic} ${host}.${page}: ${words.join(' and ')}`;
  };

  return {
    hosts,
    pagesPerHost,
    seedHosts,
    topicOf: (host) => topics[host] as string,
    crawlDelayOf: (host) => delays[host],
    linksOf,
    titleOf,
  };
}

/** The path of page `page` of a host. */
export function pagePath(page: number): string {
  return page === 0 ? '/' : `/p/${page}`;
}

/** The page number of `path` on a web of `pagesPerHost` pages per host, or -1 when no page has it. */
export function pageNumber(path: string, pagesPerHost: number): number {
  if (path === '/') return 0;
  const match = /^\/p\/([1-9]\d{0,8})$/.exec(path);
  if (match === null) return -1;
  const n = Number(match[1]);
  return n < pagesPerHost ? n : -1;
}

/** The HTML of a page; `originOf(h)` gives host h's origin (links to other hosts are absolute). */
export function renderPage(plan: WebPlan, seed: number, host: number, page: number, originOf: (host: number) => string): string {
  const topic = plan.topicOf(host);
  const topicWords = TOPICS[topic] as readonly string[];
  const rng = new Rng(hashInts(seed, STREAM.text, host, page, 1));
  const title = escapeHtml(plan.titleOf(host, page));
  const paragraphs: string[] = [];
  const count = 2 + rng.below(3);
  for (let i = 0; i < count; i++) {
    const sentences: string[] = [];
    const n = 2 + rng.below(3);
    for (let s = 0; s < n; s++) sentences.push(sentence(rng, topicWords, 8 + rng.below(10)));
    paragraphs.push(`<p>${sentences.join(' ')}</p>`);
  }
  const links = plan.linksOf(host, page).map((target) => {
    const href = target.host === host ? pagePath(target.page) : `${originOf(target.host)}${pagePath(target.page)}`;
    const text = target.page === 0 ? `${plan.topicOf(target.host)} home of host ${target.host}` : `${plan.topicOf(target.host)}: ${plan.titleOf(target.host, target.page)}`;
    return `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`;
  });
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body><h1>${title}</h1>${paragraphs.join('')}<h2>Links</h2><ul>${links.join('')}</ul></body></html>`
  );
}

/** robots.txt of a host: allow all, with the plan's Crawl-delay if it has one. */
export function renderRobots(plan: WebPlan, host: number): string {
  const delay = plan.crawlDelayOf(host);
  return `User-agent: *\nAllow: /\n${delay === undefined ? '' : `Crawl-delay: ${delay}\n`}`;
}

// ---------------------------------------------------------------------------------------------
// The servers

/** Starts the web: one server per host on 127.0.0.1, listening in parallel. */
export async function startManyHostWeb(options: ManyHostWebOptions): Promise<ManyHostWeb> {
  const o = resolveOptions(options);
  const plan = planWeb(options);
  const log: RequestLogEntry[] = [];
  const origins: string[] = new Array<string>(o.hosts).fill('');
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const handle = (host: number, req: IncomingMessage, res: ServerResponse): void => {
    const entry: RequestLogEntry = {
      origin: origins[host] as string,
      path: req.url ?? '/',
      method: req.method ?? 'GET',
      kind: 'missing',
      status: 404,
      start: now(),
      end: null,
      aborted: false,
    };
    log.push(entry);
    res.once('finish', () => {
      entry.end ??= now();
    });
    res.once('close', () => {
      if (entry.end === null) {
        entry.end = now();
        entry.aborted = !res.writableFinished;
      }
    });

    let type = 'text/plain; charset=utf-8';
    let body = 'not found\n';
    const page = pageNumber(entry.path, o.pagesPerHost);
    if (entry.method !== 'GET' && entry.method !== 'HEAD') {
      entry.status = 405;
      body = 'method not allowed\n';
    } else if (entry.path === '/robots.txt') {
      entry.kind = 'robots';
      entry.status = 200;
      body = renderRobots(plan, host);
    } else if (page >= 0) {
      entry.kind = 'page';
      entry.status = 200;
      type = 'text/html; charset=utf-8';
      body = renderPage(plan, o.seed, host, page, (h) => origins[h] as string);
    }
    const send = (): void => {
      const bytes = Buffer.from(body, 'utf8');
      const headers: Record<string, string | number> = { 'content-type': type, 'content-length': bytes.length };
      if (entry.status === 405) headers.allow = 'GET, HEAD';
      res.writeHead(entry.status, headers);
      res.end(entry.method === 'HEAD' ? undefined : bytes);
    };
    if (o.latencyMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!closed) send();
      }, o.latencyMs);
      timers.add(timer);
    } else {
      send();
    }
  };

  const servers: Server[] = [];
  const listening = Array.from({ length: o.hosts }, (_, host) => {
    const server = createServer((req, res) => handle(host, req, res));
    servers.push(server);
    return new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.basePort === undefined ? 0 : o.basePort + host, '127.0.0.1', () => {
        server.off('error', reject);
        origins[host] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        resolve();
      });
    });
  });

  const closeAll = async (): Promise<void> => {
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            if (!server.listening) return resolve();
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  };

  const results = await Promise.allSettled(listening);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure !== undefined) {
    await closeAll();
    throw failure.reason;
  }

  const indexOf = new Map(origins.map((origin, i) => [origin, i]));
  return {
    origins,
    seeds: plan.seedHosts.map((h) => `${origins[h]}/`),
    plan,
    pageUrls: () => origins.flatMap((origin) => Array.from({ length: o.pagesPerHost }, (_, p) => `${origin}${pagePath(p)}`)),
    log,
    hostIndex: (origin) => indexOf.get(origin) ?? -1,
    crawlDelaySeconds: (origin) => {
      const h = indexOf.get(origin);
      return h === undefined ? undefined : plan.crawlDelayOf(h);
    },
    close: closeAll,
  };
}

// ---------------------------------------------------------------------------------------------
// The witness

/** The most requests the web was serving at once (a response's end is when the web finished writing it; an end before a start at the same time). */
export function peakInFlight(log: readonly RequestLogEntry[]): number {
  const events = log.flatMap((e) => [[e.start, 1], [e.end ?? Number.POSITIVE_INFINITY, -1]] as const);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, delta] of events) peak = Math.max(peak, (now += delta));
  return peak;
}

export interface PolitenessViolation {
  kind: 'overlap' | 'gap';
  origin: string;
  /** The earlier request (for an overlap: the one still in flight when `second` arrived). */
  first: RequestLogEntry;
  second: RequestLogEntry;
  /** second.start − first.end (negative for an overlap; -Infinity when first never ended). */
  gapMs: number;
  /** The gap that was required. */
  requiredMs: number;
}

export interface PolitenessOptions {
  /** The least time between the end of a response and the start of the next request to its origin. Default 0. */
  minGapMs?: number;
  /** A per-origin minimum instead (e.g. from the Crawl-delay); wins over minGapMs. */
  minGapMsFor?: (origin: string) => number;
  /**
   * Slack for gaps, in ms. Default 1: a crawler's timers run on libuv's millisecond loop clock
   * and can fire up to a millisecond before the sub-millisecond clock of this log says the
   * delay is over. Overlaps get no slack.
   */
  toleranceMs?: number;
  /** Only these entries count (default: all, robots.txt and 404s included: each is a request to the host). */
  include?: (entry: RequestLogEntry) => boolean;
}

/**
 * Politeness breaches in a request log: a request to an origin that arrived while another to
 * that origin was still in flight (overlap), or sooner than the required gap after the end
 * of the previous response (gap). One violation per offending request.
 */
export function politenessViolations(log: readonly RequestLogEntry[], options: PolitenessOptions = {}): PolitenessViolation[] {
  const tolerance = options.toleranceMs ?? 1;
  const byOrigin = new Map<string, RequestLogEntry[]>();
  for (const entry of log) {
    if (options.include !== undefined && !options.include(entry)) continue;
    let list = byOrigin.get(entry.origin);
    if (list === undefined) byOrigin.set(entry.origin, (list = []));
    list.push(entry);
  }
  const violations: PolitenessViolation[] = [];
  for (const [origin, entries] of byOrigin) {
    const required = options.minGapMsFor?.(origin) ?? options.minGapMs ?? 0;
    entries.sort((a, b) => a.start - b.start);
    // The request that ends last among those before: the one the next request must wait for.
    let latest: RequestLogEntry | undefined;
    for (const entry of entries) {
      if (latest !== undefined) {
        const latestEnd = latest.end ?? Number.POSITIVE_INFINITY;
        const gap = entry.start - latestEnd;
        if (entry.start < latestEnd) violations.push({ kind: 'overlap', origin, first: latest, second: entry, gapMs: gap, requiredMs: required });
        else if (gap < required - tolerance) violations.push({ kind: 'gap', origin, first: latest, second: entry, gapMs: gap, requiredMs: required });
      }
      if (latest === undefined || (entry.end ?? Number.POSITIVE_INFINITY) > (latest.end ?? Number.POSITIVE_INFINITY)) latest = entry;
    }
  }
  return violations;
}

/** A readable line per violation, for assertion messages. */
export function describeViolations(violations: readonly PolitenessViolation[], limit = 10): string {
  const lines = violations
    .slice(0, limit)
    .map((v) => `${v.kind} at ${v.origin}: ${v.first.path} then ${v.second.path}, gap ${v.gapMs.toFixed(2)} ms (needed ${v.requiredMs} ms)`);
  if (violations.length > limit) lines.push(`… and ${violations.length - limit} more`);
  return lines.join('\n');
}

/** How many times each URL (origin + path) was requested. */
export function requestsPerPath(log: readonly RequestLogEntry[], include?: (entry: RequestLogEntry) => boolean): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of log) {
    if (include !== undefined && !include(entry)) continue;
    const url = entry.origin + entry.path;
    counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return counts;
}

/** Pages (kind 'page', GET) requested more than once, with their counts. */
export function pagesRequestedTwice(log: readonly RequestLogEntry[]): Array<{ url: string; count: number }> {
  const counts = requestsPerPath(log, (entry) => entry.kind === 'page' && entry.method === 'GET');
  return [...counts].filter(([, count]) => count > 1).map(([url, count]) => ({ url, count }));
}

// ---------------------------------------------------------------------------------------------
// The web in a process of its own (many-host-web-cli.ts)

const SETPRIV_BIN = '/usr/bin/setpriv';

export const MANY_HOST_WEB_CLI = fileURLToPath(new URL('./many-host-web-cli.ts', import.meta.url));

/** What the CLI writes to --port-file once every server listens. */
export interface ManyHostWebInfo {
  pid: number;
  origins: string[];
  seeds: string[];
  pageUrls: string[];
  /** Seconds per origin, for the origins whose robots.txt names a Crawl-delay. */
  crawlDelays: Record<string, number>;
}

export interface ManyHostWebProcess extends ManyHostWebInfo {
  /** The temporary directory of the port file and the log; stop() and kill() remove it. */
  dir: string;
  /** SIGTERM: the web writes its log, closes and exits; resolves with the log. */
  stop(): Promise<RequestLogEntry[]>;
  /** SIGKILL, without a log. */
  kill(): void;
}

/**
 * Runs the web in a child process (so that its CPU is not the caller's), waits until it
 * listens, and returns what it serves. Pass `cpuList` to pin it with taskset.
 */
export async function spawnManyHostWeb(options: ManyHostWebOptions, spawnOptions: { timeoutMs?: number; cpuList?: string } = {}): Promise<ManyHostWebProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'forager-web-'));
  const portFile = join(dir, 'web.json');
  const logFile = join(dir, 'log.json');
  const args = [MANY_HOST_WEB_CLI, '--hosts', String(options.hosts), '--port-file', portFile, '--log-file', logFile];
  const flag = (name: string, value: number | undefined): void => {
    if (value !== undefined) args.push(`--${name}`, String(value));
  };
  flag('pages', options.pagesPerHost);
  flag('seed', options.seed);
  flag('latency', options.latencyMs);
  flag('cross', options.crossLinkShare);
  flag('links', options.linksPerPage);
  flag('seed-hosts', options.seedHosts);
  flag('base-port', options.basePort);
  flag('crawl-delay', options.crawlDelay?.seconds);
  flag('crawl-delay-share', options.crawlDelay?.share);
  let argv = [process.execPath, ...args];
  if (spawnOptions.cpuList !== undefined) argv = ['taskset', '-c', spawnOptions.cpuList, ...argv];
  // The kernel kills the web if this process dies without stopping it (even of SIGKILL).
  if (existsSync(SETPRIV_BIN)) argv = [SETPRIV_BIN, '--pdeathsig', 'KILL', '--', ...argv];
  const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const cleanup = (): void => {
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (spawnOptions.timeoutMs ?? 30_000);
  let info: ManyHostWebInfo | undefined;
  while (info === undefined) {
    try {
      info = JSON.parse(readFileSync(portFile, 'utf8')) as ManyHostWebInfo;
    } catch {
      if (!running || Date.now() > deadline) {
        child.kill('SIGKILL');
        cleanup();
        throw new Error(`the many-host web did not start${running ? ' in time' : ''}: ${stderr.trim()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  // A web the caller forgets must not keep this process alive (the exit hook and pdeathsig end it).
  child.unref();
  (child.stderr as Socket).unref();
  return {
    ...info,
    dir,
    stop: async () => {
      child.ref();
      (child.stderr as Socket).ref();
      child.kill('SIGTERM');
      const code = await exited;
      try {
        if (code !== 0) throw new Error(`the many-host web exited with ${code}: ${stderr.trim()}`);
        return JSON.parse(readFileSync(logFile, 'utf8')) as RequestLogEntry[];
      } finally {
        cleanup();
      }
    },
    kill: () => {
      child.kill('SIGKILL');
      cleanup();
    },
  };
}
