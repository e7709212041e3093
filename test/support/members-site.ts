/*
 * A loopback site with a members' area, for the logged-in session tests: /members/ answers 403
 * without the session cookie and, with it, sets a refreshed cookie that the pages below it need
 * as well. Every request is logged with the Cookie header it carried and the status it got.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { openCollection } from '../../crawler/store/database.ts';

export const SESSION = 'SECRET-SESSION-VALUE-5f1c9a';
export const REFRESHED = 'SECRET-REFRESHED-VALUE-77d0e2';

/** One request as the site saw it: its path, the Cookie header it carried, and the status it got. */
export interface SeenRequest {
  path: string;
  cookie: string | undefined;
  status: number;
}

export interface LoopbackSite {
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

function page(res: ServerResponse, title: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
}

function cookiesOf(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) jar.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return jar;
}

/** The members' site; its pages never show a cookie. With `hang`, /members/ also links to a page that never answers. */
export function membersSite(req: IncomingMessage, res: ServerResponse, other: string, hang = false): void {
  const path = req.url ?? '/';
  const cookies = cookiesOf(req);
  const member = cookies.get('sid') === SESSION;
  if (path === '/') return page(res, 'Library home', `<p>Welcome to the library.</p><a href="/public">public</a> <a href="/members/">members</a> <a href="${other}/">partner</a>`);
  if (path === '/public') return page(res, 'Public notes', '<p>Public notes about the library.</p>');
  if (path === '/members/') {
    if (!member) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('members only');
    const links = `<a href="/members/a">a</a> <a href="/members/moved">b, moved</a>${hang ? ' <a href="/members/hang">hang</a>' : ''}`;
    return page(res, 'Members area', `<link rel="stylesheet" href="/members/style.css"><p>Members area.</p>${links}`, {
      'set-cookie': `refresh=${REFRESHED}; Path=/members; HttpOnly`,
    });
  }
  if (path === '/members/a' || path === '/members/b') {
    if (!member || cookies.get('refresh') !== REFRESHED) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('members only');
    return page(res, `Members page ${path.slice(-1)}`, '<p>A members-only page about the library.</p>');
  }
  // A page requisite and a redirect hop of the members' area: each needs the session too.
  if (path === '/members/style.css') {
    if (!member) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('members only');
    return void res.writeHead(200, { 'content-type': 'text/css' }).end('body { color: #222; }');
  }
  if (path === '/members/moved') {
    if (!member) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('members only');
    return void res.writeHead(302, { location: '/members/b' }).end();
  }
  if (hang && path === '/members/hang') return; // never answers: the crawl is killed meanwhile
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
}

/** The partner site, on another loopback address: it must never see the members' cookies. */
export function partnerSite(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/') return page(res, 'Partner', '<a href="/members/x">partner members</a>');
  if (req.url === '/members/x') return page(res, 'Partner members', '<p>Partner page.</p>');
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
}

export async function startSite(host: string, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<LoopbackSite> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const entry: SeenRequest = { path: req.url ?? '/', cookie: req.headers.cookie, status: 0 };
    seen.push(entry);
    res.on('finish', () => (entry.status = res.statusCode));
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A cookies.txt (CRLF, as some exporters write it) in `dir`. */
export function cookiesFile(dir: string, lines: string[]): string {
  const path = join(dir, `cookies-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(path, `# Netscape HTTP Cookie File\r\n${lines.join('\r\n')}\r\n`);
  return path;
}

/** The stored pages' statuses by path. */
export function storedStatuses(dbPath: string): Map<string, number> {
  const db = openCollection(dbPath, { create: false, readonly: true });
  try {
    const rows = db.prepare('SELECT u.url, p.status FROM pages p JOIN urls u ON u.id = p.url_id').all() as { url: string; status: number }[];
    return new Map(rows.map((r) => [new URL(r.url).pathname, r.status]));
  } finally {
    db.close();
  }
}
