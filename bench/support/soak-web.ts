/*
 * The soak benchmark's synthetic web, run as a process of its own so that the crawler's
 * memory is measured alone: HOSTS origins (one port each on 127.0.0.1) of PAGES_PER_HOST
 * pages. Each page links to six pages of its host and two of other hosts; one page in
 * twenty misbehaves in one of the ways HOSTILE lists. Every request is reported on stdout
 * as "<port> <path>" so the benchmark can count re-fetches.
 *
 * Usage: node bench/support/soak-web.ts HOSTS PAGES_PER_HOST
 * Prints "ready <first port> <last port>" once every host listens.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

const hosts = Number(process.argv[2] ?? 500);
const pagesPerHost = Number(process.argv[3] ?? 250);

function hash(a: number, b: number): number {
  let x = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35);
  x ^= x >>> 15;
  return Math.imul(x, 0x27d4eb2d) >>> 0;
}

const WORDS = ['journal', 'checkpoint', 'segment', 'replica', 'archive', 'index', 'vacuum', 'buffer', 'lock', 'page', 'commit', 'fsync', 'recovery', 'snapshot'];
const BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '));
const DEEP = `<html><body>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}</body></html>`;

/** What a hostile page does instead of answering well. */
const HOSTILE: ((res: ServerResponse) => void)[] = [
  (res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('server error'),
  (res) => void res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down'),
  (res) => void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(BOMB),
  (res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(DEEP),
  (res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
    res.write('<html><body>cut short');
    setTimeout(() => res.socket?.destroy(), 20);
  },
  (res) => {
    // Stalls mid-body past the crawler's body time-out.
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<html><body>stalled');
    setTimeout(() => res.end('</body></html>'), 20_000);
  },
  (res) => void res.writeHead(200, { 'content-type': 'text/html; charset=x-unknown' }).end(Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x00, 0x00, 0x3c])),
  (res) => void res.writeHead(301, { location: '/p/0?loop=1' }).end(),
  (res) => void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(4096, 7)),
  (res) => void res.writeHead(200, { 'content-type': 'text/html', 'x-robots-tag': 'noindex' }).end('<html><body><a href="/p/1">x</a></body></html>'),
];

function page(host: number, n: number, ports: number[]): string {
  const links: string[] = [];
  for (let k = 1; k <= 6; k++) links.push(`<a href="/p/${hash(n, k) % pagesPerHost}">${WORDS[hash(host, n + k) % WORDS.length]} ${k}</a>`);
  for (let k = 1; k <= 2; k++) {
    const other = hash(host * 31 + n, k) % hosts;
    links.push(`<a href="http://127.0.0.1:${ports[other]}/p/${hash(n, k + 9) % pagesPerHost}">elsewhere ${k}</a>`);
  }
  const text: string[] = [];
  for (let i = 0; i < 120; i++) text.push(WORDS[hash(host * 7919 + n, i) % WORDS.length] as string);
  return `<!doctype html><html><head><title>Host ${host} page ${n}</title></head><body><p>${text.join(' ')}</p>${links.join(' ')}</body></html>`;
}

function handler(host: number, ports: number[]) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = req.url ?? '/';
    process.stdout.write(`${ports[host]} ${path}\n`);
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
      return;
    }
    const match = /^\/p\/(\d+)$/.exec(path);
    const n = match === null ? -1 : Number(match[1]);
    if (n < 0 || n >= pagesPerHost) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (hash(host, n) % 20 === 0) {
      (HOSTILE[hash(n, host) % HOSTILE.length] as (res: ServerResponse) => void)(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(host, n, ports));
  };
}

const servers = Array.from({ length: hosts }, () => createServer());
const ports: number[] = [];
for (const server of servers) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports.push((server.address() as AddressInfo).port);
}
servers.forEach((server, host) => server.on('request', handler(host, ports)));
process.stdout.write(`ready ${ports[0]} ${ports.join(',')}\n`);
process.on('SIGTERM', () => process.exit(0));
