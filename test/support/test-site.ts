import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestSite {
  origin: string;
  /** Every request path in arrival order. */
  requests: string[];
  /** When each request arrived (performance.now()), in the same order: for politeness checks. */
  arrivals: number[];
  /** How many times each path was requested. */
  count(path: string): number;
  close(): Promise<void>;
}

/**
 * A loopback web site for engine tests: routes by exact path, a fallback for the rest,
 * and a log of every request so tests can check politeness and "fetched once".
 */
export async function startTestSite(routes: Record<string, Handler>, fallback?: Handler): Promise<TestSite> {
  const requests: string[] = [];
  const arrivals: number[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    arrivals.push(performance.now());
    const handler = routes[path] ?? fallback;
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    arrivals,
    count: (path) => requests.filter((p) => p === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 200 with this Content-Type and body. */
export function respond(type: string, body: string): Handler {
  return (_req, res) => void res.writeHead(200, { 'content-type': type }).end(body);
}

export function html(body: string, title = 'page'): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
  };
}

/**
 * A generated tree site: /p/0 links to its children /p/1../p/fanout, and so on, until
 * `pages` pages exist. Every page has a distinct title and a word "alpha" or "beta".
 */
export function treeSite(pages: number, fanout: number): Handler {
  return (req, res) => {
    const match = /^\/p\/(\d+)$/.exec(req.url ?? '');
    const n = match ? Number(match[1]) : -1;
    if (n < 0 || n >= pages) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const children: string[] = [];
    for (let c = n * fanout + 1; c <= n * fanout + fanout && c < pages; c++) children.push(`<a href="/p/${c}">page ${c}</a>`);
    const word = n % 2 === 0 ? 'alpha' : 'beta';
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Page ${n}</title></head><body><p>This is page ${n}, about ${word}.</p>${children.join(' ')} <a href="/p/0">home</a></body></html>`);
  };
}

/** The request the crawler makes once per host to learn its soft 404 (engine/soft404-probe.ts): not a page. */
export function isSoft404Probe(path: string): boolean {
  // At the root or in a folder: /forager-probe-…, /docs/forager-probe-…
  return /(^|\/)forager-probe-[0-9a-f]+$/.test(path);
}
