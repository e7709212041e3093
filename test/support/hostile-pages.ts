/**
 * Misbehaving route handlers for engine tests on a startTestSite() site, and a helper that
 * crawls a site whose seed links to the hostile paths and to one ordinary page, so every
 * test can also check that the crawl went on past the bad input.
 * Timers stop when the socket closes, so TestSite.close() ends every handler.
 */
import dc from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { crawlOnce, tempDir, testSettings, type CrawlRun } from './crawl-harness.ts';
import { html, startTestSite, type Handler, type TestSite } from './test-site.ts';

export const ORDINARY_PATH = '/ordinary';
export const ORDINARY_TITLE = 'Ordinary page';

/** Accepts the request and never answers. */
export function neverAnswer(): Handler {
  return () => {};
}

/** A 200 head, then `chunk` every `intervalMs`, for as long as the client listens. */
export function trickle(intervalMs: number, chunk = '<'): Handler {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.flushHeaders();
    const timer = setInterval(() => res.write(chunk), intervalMs);
    req.socket.once('close', () => clearInterval(timer));
  };
}

/** A chunked text/html body streamed as fast as the client reads, forever. */
export function endlessBody(): Handler {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  return (req, res) => {
    const socket = req.socket;
    res.writeHead(200, { 'content-type': 'text/html' });
    const pump = (): void => {
      while (!socket.destroyed && res.write(chunk));
      if (!socket.destroyed) res.once('drain', pump);
    };
    pump();
  };
}

/** `decodedBytes` zeros, gzip-encoded (about 1/1000 of that on the wire), labelled text/html. */
export function gzipBomb(decodedBytes: number): Handler {
  const wire = gzipSync(Buffer.alloc(decodedBytes));
  return bytes('text/html', wire, { 'content-encoding': 'gzip' });
}

export function bytes(contentType: string, body: Buffer, extraHeaders: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length), ...extraHeaders }).end(body);
  };
}

export function redirect(location: string, status = 302): Handler {
  return (_req, res) => {
    res.writeHead(status, { location, 'content-length': '0' }).end();
  };
}

export function statusOnly(status: number): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}`);
  };
}

/** Drops the connection without a byte of response. */
export function resetConnection(): Handler {
  return (req) => {
    req.socket.destroy();
  };
}

/** A 200 whose head carries about `totalBytes` of filler headers, written straight to the socket. */
export function hugeHeaders(totalBytes: number): Handler {
  const filler = 'x'.repeat(1000);
  let head = 'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 2\r\n';
  for (let i = 0; i * 1000 < totalBytes; i++) head += `x-filler-${i}: ${filler}\r\n`;
  const raw = `${head}\r\nok`;
  return (req) => {
    req.socket.end(raw);
  };
}

/** A page linking to `count` distinct same-site URLs /many/0 … /many/{count-1}. */
export function manyLinks(count: number): Handler {
  const links: string[] = [];
  for (let i = 0; i < count; i++) links.push(`<a href="/many/${i}">item ${i}</a>`);
  return html(`<p>A very long list.</p>${links.join('\n')}`, 'Many links');
}

/** /calendar/YYYY/MM links to the following month, forever. */
export function infiniteCalendar(): Handler {
  return (req, res) => {
    const match = /^\/calendar\/(\d{4})\/(\d{2})$/.exec(req.url ?? '');
    if (match === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const year = Number(match[1]);
    const month = Number(match[2]);
    const next = month === 12 ? `${year + 1}/01` : `${year}/${String(month + 1).padStart(2, '0')}`;
    html(`<p>Events of ${year}-${match[2]}: none.</p><a href="/calendar/${next}">next month</a>`, `Calendar ${year}-${match[2]}`)(req, res);
  };
}

/** 32 hex digits with at least one letter and one digit, so every value looks like a session id. */
export function sessionToken(n: number): string {
  const hex = (BigInt(n) * 0x9e3779b97f4a7c15n + 0x1234567890abcdefn).toString(16).padStart(16, '0');
  return `a1${hex}${hex}`.slice(0, 32);
}

/**
 * Pages that link to themselves with a fresh session id on every visit: /session-path
 * through ;jsessionid=…, /session-query through ?sid=….
 */
export function sessionExplosion(): Handler {
  let visits = 0;
  return (req, res) => {
    const path = (req.url ?? '').split(/[;?]/)[0];
    visits++;
    const self = path === '/session-path' ? `/session-path;jsessionid=${sessionToken(visits)}` : `/session-query?sid=${sessionToken(visits)}`;
    html(`<p>Welcome back, visitor ${visits}.</p><a href="${self}">stay here</a>`, 'Session page')(req, res);
  };
}


export interface HostileCrawl {
  site: TestSite;
  run: CrawlRun;
  settings: CrawlSettings;
  /** Absolute URL on the site. */
  url(path: string): string;
}

/**
 * Serves `routes` plus a seed page at / that links to each of `links` and to ORDINARY_PATH
 * (listed last, so it is fetched after the hostile pages), crawls it to the end and hands
 * the collection to `check`. Closes everything afterwards.
 */
export async function crawlHostileSite(
  options: { routes: Record<string, Handler>; links: string[]; fallback?: Handler; overrides?: Partial<CrawlSettings> },
  check: (crawl: HostileCrawl) => void | Promise<void>,
): Promise<void> {
  const anchors = [...options.links, ORDINARY_PATH].map((path, i) => `<a href="${path}">link ${i}</a>`).join(' ');
  const site = await startTestSite(
    {
      '/': html(`<p>Seed page.</p>${anchors}`, 'Seed'),
      [ORDINARY_PATH]: html('<p>Nothing to see, just a normal page.</p>', ORDINARY_TITLE),
      ...options.routes,
    },
    options.fallback,
  );
  const tmp = tempDir('forager-hostile-');
  let run: CrawlRun | undefined;
  try {
    const settings = testSettings([`${site.origin}/`], options.overrides);
    run = await crawlOnce(tmp.dir, settings);
    await check({ site, run, settings, url: (path) => `${site.origin}${path}` });
  } finally {
    run?.db.close();
    await site.close();
    tmp.cleanup();
  }
}

/** Every outgoing TCP connection attempt in this process (address and port), while recording. */
export function recordConnectionAttempts(): { attempts: string[]; stop(): void } {
  const attempts: string[] = [];
  const onSocket = (message: unknown): void => {
    const { socket } = message as { socket: Socket };
    socket.on('connectionAttempt', (ip: string, port: number) => attempts.push(`${ip}:${port}`));
  };
  dc.subscribe('net.client.socket', onSocket);
  return { attempts, stop: () => dc.unsubscribe('net.client.socket', onSocket) };
}
