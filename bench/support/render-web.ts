/*
 * The render benchmark's web, in a process of its own so that the crawlers' memory is
 * measured alone: SPA_HOSTS single-page-app hosts whose pages are an empty shell, one shared
 * bundle and an /api/ call that returns the page's text and links; and one static host of
 * server-rendered pages, to measure what rendering beside it costs static crawling.
 *
 * Usage: node bench/support/render-web.ts SPA_HOSTS PAGES_PER_SPA_HOST STATIC_PAGES
 * Prints "ready <spa ports, comma-separated> <static port>" once every host listens.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const spaHosts = Number(process.argv[2] ?? 4);
const pagesPerSpaHost = Number(process.argv[3] ?? 500);
const staticPages = Number(process.argv[4] ?? 2000);

const WORDS = ['journal', 'checkpoint', 'segment', 'replica', 'archive', 'index', 'vacuum', 'buffer', 'lock', 'page', 'commit', 'fsync', 'recovery', 'snapshot'];

function hash(a: number, b: number): number {
  let x = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35);
  x ^= x >>> 15;
  return Math.imul(x, 0x27d4eb2d) >>> 0;
}

function words(seed: number, count: number): string {
  return Array.from({ length: count }, (_, i) => WORDS[hash(seed, i) % WORDS.length]).join(' ');
}

/** Five links per page to other pages of the same host, so a crawl from page 0 reaches them all. */
function linkTargets(n: number, pages: number): number[] {
  return [1, 2, 3, 4, 5].map((k) => (n * 5 + k) % pages);
}

const SHELL = '<!doctype html><html><head><title>App</title><link rel="stylesheet" href="/static/app.css"></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript><script src="/static/app.js"></script></body></html>';
const BUNDLE = `${'/* framework */ '.repeat(2000)}
fetch('/api/pages/' + (location.pathname.split('/').pop() || '0')).then((r) => r.json()).then((d) => {
  document.getElementById('root').innerHTML = '<h1>' + d.title + '</h1><p>' + d.text + '</p>' + d.links.map((l) => '<a href="/p/' + l + '">page ' + l + '</a>').join(' ');
});`;

function spaHandler(host: number) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    if (path === '/static/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(BUNDLE);
    if (path === '/static/app.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end('body { font-family: sans-serif }');
    const api = /^\/api\/pages\/(\d+)$/.exec(path);
    if (api !== null) {
      const n = Number(api[1]);
      const body = { title: `Host ${host} page ${n}`, text: words(host * 7919 + n, 150), links: linkTargets(n, pagesPerSpaHost) };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    }
    const page = /^\/p\/(\d+)$/.exec(path);
    if (page !== null && Number(page[1]) < pagesPerSpaHost) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SHELL);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
}

function staticHandler(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
  const page = /^\/p\/(\d+)$/.exec(path);
  const n = page === null ? -1 : Number(page[1]);
  if (n < 0 || n >= staticPages) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  const links = linkTargets(n, staticPages).map((l) => `<a href="/p/${l}">page ${l}</a>`).join(' ');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Static page ${n}</title></head><body><h1>Static page ${n}</h1><p>${words(n, 150)}</p>${links}</body></html>`);
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const spaPorts: number[] = [];
for (let host = 0; host < spaHosts; host++) spaPorts.push(await listen(spaHandler(host)));
const staticPort = await listen(staticHandler);
process.stdout.write(`ready ${spaPorts.join(',')} ${staticPort}\n`);
process.on('SIGTERM', () => process.exit(0));
