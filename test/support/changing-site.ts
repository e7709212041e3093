import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTestSite, type TestSite } from './test-site.ts';

/** One page of a changing site: what it answers now. */
export interface SitePage {
  /** The body inside <body>; the title is the path. */
  body: string;
  status?: number;
  /** Sent as ETag, and a matching If-None-Match gets a 304. */
  etag?: string;
  /** Sent as Last-Modified, and a matching If-Modified-Since gets a 304. */
  lastModified?: string;
  /** Served as it is with this Content-Type instead of an HTML page around `body` (a sitemap). */
  contentType?: string;
}

/** A request as the site saw it, with the conditional headers it carried. */
export interface LoggedRequest {
  path: string;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  status: number;
}

export interface ChangingSite extends TestSite {
  pages: Map<string, SitePage>;
  /** robots.txt as served now. */
  robots: string;
  /** True: the server answers 200 in full whatever the conditional headers say. */
  ignoresConditionals: Set<string>;
  /** Folders (ending in '/') that answer 200 with a "not found" page for any name they do not hold. */
  softNotFoundFolders: Set<string>;
  log: LoggedRequest[];
}

/** The page a folder of softNotFoundFolders answers for a name it does not hold. */
export const SOFT_NOT_FOUND_BODY = '<h1>No such article</h1><p>The wiki has no article with this exact name. Search for it, or create it.</p><p>Other reasons this message may be displayed: the article was deleted, or moved.</p>';

/**
 * A loopback site whose pages tests change between runs, with a request log of the
 * conditional headers each request carried: pages with an ETag, with only a Last-Modified,
 * or with neither; a page set to 404 or 410 is gone; a path can be made to ignore
 * conditional requests; a folder can answer 200 "not found" pages for any name.
 */
export async function startChangingSite(): Promise<ChangingSite> {
  const pages = new Map<string, SitePage>();
  const log: LoggedRequest[] = [];
  const ignoresConditionals = new Set<string>();
  const softNotFoundFolders = new Set<string>();
  const state = { robots: 'User-agent: *\nAllow: /\n' };
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const path = req.url ?? '/';
    const entry = { path, ifNoneMatch: header(req, 'if-none-match'), ifModifiedSince: header(req, 'if-modified-since') };
    const send = (status: number, headers: Record<string, string>, body = ''): void => {
      log.push({ ...entry, status });
      res.writeHead(status, headers).end(body);
    };
    if (path === '/robots.txt') return send(200, { 'content-type': 'text/plain' }, state.robots);
    const page = pages.get(path);
    if (page === undefined) {
      const folder = path.slice(0, path.lastIndexOf('/') + 1);
      if (softNotFoundFolders.has(folder)) return send(200, { 'content-type': 'text/html; charset=utf-8' }, document('Not found', SOFT_NOT_FOUND_BODY));
      return send(404, { 'content-type': 'text/plain' }, 'not found');
    }
    const status = page.status ?? 200;
    if (status !== 200) return send(status, { 'content-type': 'text/plain' }, 'gone');
    const validators: Record<string, string> = {};
    if (page.etag !== undefined) validators.etag = page.etag;
    if (page.lastModified !== undefined) validators['last-modified'] = page.lastModified;
    if (!ignoresConditionals.has(path)) {
      const etagMatches = page.etag !== undefined && entry.ifNoneMatch === page.etag;
      const dateMatches = page.etag === undefined && page.lastModified !== undefined && entry.ifModifiedSince === page.lastModified;
      if (etagMatches || dateMatches) return send(304, validators);
    }
    if (page.contentType !== undefined) return send(200, { 'content-type': page.contentType, ...validators }, page.body);
    send(200, { 'content-type': 'text/html; charset=utf-8', ...validators }, document(path, page.body));
  };
  const site = await startTestSite({}, answer);
  return {
    ...site,
    pages,
    log,
    ignoresConditionals,
    softNotFoundFolders,
    get robots() {
      return state.robots;
    },
    set robots(text: string) {
      state.robots = text;
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function document(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
}
