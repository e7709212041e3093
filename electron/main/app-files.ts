/*
 * The renderer's files, served from app://forager/ instead of file:// so that the page
 * has a real origin (IPC sender checks compare it) and a CSP header. Only files inside
 * the renderer's build folder are ever served. No Electron import: unit-tested in Node.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { APP_HOST, APP_SCHEME } from '../shared/app-origin.ts';

export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  'frame-src forager-page:',
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** The URL when it is one of the app's own (scheme and host exactly, no credentials). */
function parseAppUrl(raw: string): URL | undefined {
  const url = URL.parse(raw);
  if (url === null || url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return undefined;
  return url.username === '' && url.password === '' ? url : undefined;
}

export function isAppUrl(raw: string): boolean {
  return parseAppUrl(raw) !== undefined;
}

/**
 * The file a request URL names inside `rootDir`, or undefined when it must be refused:
 * another scheme or host, a segment that decodes to a separator, a dot segment or a NUL,
 * or anything that would resolve outside the folder.
 */
export function resolveAppFile(requestUrl: string, rootDir: string): string | undefined {
  const url = parseAppUrl(requestUrl);
  if (url === undefined) return undefined;
  const segments: string[] = [];
  for (const encoded of url.pathname.split('/')) {
    if (encoded === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
    if (segment === '.' || segment === '..' || /[/\\\0:]/.test(segment)) return undefined;
    segments.push(segment);
  }
  if (segments.length === 0) segments.push('index.html');
  const root = path.resolve(rootDir);
  const file = path.resolve(root, ...segments);
  const relative = path.relative(root, file);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return undefined;
  return file;
}

function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** The response protocol.handle('app') gives: the file with its type and the CSP, or an error status. */
export async function serveAppFile(request: { url: string; method: string }, rootDir: string): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed');
  const file = resolveAppFile(request.url, rootDir);
  if (file === undefined) return plain(404, 'Not found');
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    return plain(404, 'Not found');
  }
  const headers = {
    'Content-Type': contentTypeOf(file),
    'Content-Security-Policy': APP_CSP,
    'X-Content-Type-Options': 'nosniff',
  };
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}

function plain(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
  });
}
