import { createHmac, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceEvent } from '../protocol/api.ts';
import type { ErrorCode } from '../protocol/error-codes.ts';
import { dispatchCall } from '../service/dispatch.ts';
import type { ServedApi } from '../service/served-api.ts';
import { errorBody } from '../service/service.ts';
import { API_PREFIX, type ApiReply, EVENTS_PATH, EXPORTS_PREFIX, STORED_PREFIX } from '../protocol/wire.ts';
import { appRootFor, checkRequestSource, type GuardConfig, hostIsOurs, isAuthenticated, sessionCookie, tokenMatches } from './request-guard.ts';
import { readStaticFile, rendererDir } from './static-files.ts';

/**
 * Answers a request for a stored page (a sanitised page or the external-link page); its
 * URL path starts with STORED_PREFIX. Links it writes into pages start with `linkPrefix`.
 */
export type StoredPageResponder = (request: Request) => Promise<Response>;
export type StoredPagesFactory = (linkPrefix: string) => StoredPageResponder;

export interface ServeOptions {
  service: ServedApi;
  storedPages: StoredPagesFactory;
  /** 0 picks a free port. */
  port?: number;
  /** The built renderer; default dist/renderer of this package. */
  rendererDir?: string;
  /** A fixed token, for tests; default 24 random bytes. */
  token?: string;
}

export interface RunningServer {
  server: Server;
  port: number;
  token: string;
  /** The secret path the app and its API live under (`/s/<key>/`). */
  appRoot: string;
  /** The URL to open: it carries the token once, and the page then lives on a cookie. */
  url: string;
  close(): Promise<void>;
}

/** The largest API call body; a larger one is answered 413. */
const MAX_BODY = 1 << 20;
/**
 * A refused body is still read, and dropped, up to this many bytes: a client that is still
 * sending it then reads the 413, where closing at once would reset the connection under it.
 * A client that sends more is cut off.
 */
const MAX_DISCARDED_BODY = 16 * MAX_BODY;
const STATUS_OF_ERROR: Record<string, number> = { UNKNOWN_METHOD: 404, INTERNAL: 500 };
const SSE_HEARTBEAT_MS = 15_000;

const APP_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "frame-src 'self'",
  "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-dns-prefetch-control': 'off', 'cross-origin-opener-policy': 'same-origin', 'cross-origin-resource-policy': 'same-origin' };

/** `forager serve`: the UI and the service API over HTTP on 127.0.0.1 only. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const root = options.rendererDir ?? rendererDir();
  const config: GuardConfig = { port: 0, token, appRoot: appRootFor(token) };
  // The viewer frame is sandboxed (an opaque origin), so links followed inside it arrive as
  // cross-site requests without the session cookie: they carry this key in the path instead.
  const viewerKey = createHmac('sha256', token).update('stored-pages').digest('base64url').slice(0, 32);
  const keyedPrefix = `${STORED_PREFIX}k/${viewerKey}/`;
  const storedPages = options.storedPages(keyedPrefix);
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendText(res, 500, `Forager could not answer: ${errorBody(err).message}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${config.port}`);
    if (url.pathname.startsWith(keyedPrefix)) {
      if (!hostIsOurs(req.headers, config.port)) return sendText(res, 421, 'this server answers only to 127.0.0.1 and localhost on its own port');
      url.pathname = STORED_PREFIX + url.pathname.slice(keyedPrefix.length);
      return handleStored(req, res, url);
    }
    const source = checkRequestSource(req.headers, config.port);
    if (!source.ok) return sendText(res, source.status, source.reason);
    if (url.pathname === '/' && url.searchParams.has('token')) return startSession(url, res);
    if (!url.pathname.startsWith(config.appRoot) || !isAuthenticated(req.headers, config)) {
      return sendText(res, 401, 'Open Forager with the full address that `forager serve` printed (it carries a one-time token).');
    }
    // Below the app root, the routes are those of wire.ts.
    url.pathname = `/${url.pathname.slice(config.appRoot.length)}`;
    if (url.pathname.startsWith(API_PREFIX)) return handleApi(req, res, url);
    if (url.pathname.startsWith(STORED_PREFIX)) return handleStored(req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'method not allowed');
    const file = readStaticFile(root, url.pathname) ?? (url.pathname.includes('.') ? undefined : readStaticFile(root, '/'));
    if (file === undefined) return sendText(res, 404, 'not found');
    res.writeHead(200, { ...COMMON_HEADERS, 'content-type': file.contentType, 'content-security-policy': APP_CSP, 'x-frame-options': 'DENY', 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  function startSession(url: URL, res: ServerResponse): void {
    if (!tokenMatches(url.searchParams.get('token'), token)) {
      return sendText(res, 403, 'This address carries an old or wrong token. Use the address `forager serve` printed this time.');
    }
    res.writeHead(303, { ...COMMON_HEADERS, location: config.appRoot, 'set-cookie': sessionCookie(config), 'cache-control': 'no-store' });
    res.end();
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === EVENTS_PATH && req.method === 'GET') return openEventStream(req, res);
    if (url.pathname.startsWith(EXPORTS_PREFIX) && req.method === 'GET') return sendExport(res, url.pathname.slice(EXPORTS_PREFIX.length));
    if (req.method !== 'POST') return sendText(res, 405, 'API calls are POST requests');
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return sendReply(res, 415, failure('BAD_REQUEST', 'API calls send JSON (Content-Type: application/json)'));
    let input: unknown;
    try {
      const text = await readBody(req);
      if (text === TOO_LARGE) return sendReply(res, 413, failure('BAD_REQUEST', `the request body is larger than the ${MAX_BODY} bytes an API call may send`));
      input = text === '' ? undefined : JSON.parse(text);
    } catch (err) {
      return sendReply(res, 400, failure('BAD_REQUEST', err instanceof Error ? err.message : 'unreadable request body'));
    }
    const reply = await dispatchCall(options.service, url.pathname.slice(API_PREFIX.length), input);
    sendReply(res, reply.ok ? 200 : STATUS_OF_ERROR[reply.error.code] ?? 400, reply);
  }

  function openEventStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { ...COMMON_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': forager events\n\n');
    streams.add(res);
    let congested = false;
    const send = (event: ServiceEvent): void => {
      // A status is a snapshot: when the client lags, dropping one loses nothing the next brings.
      if (congested && event.type === 'status') return;
      congested = !res.write(`data: ${JSON.stringify(event)}\n\n`);
    };
    res.on('drain', () => {
      congested = false;
    });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
    options.service.on('event', send);
    const stop = (): void => {
      clearInterval(heartbeat);
      options.service.off('event', send);
      streams.delete(res);
    };
    req.on('close', stop);
    res.on('close', stop);
  }

  function sendExport(res: ServerResponse, exportId: string): void {
    const file = options.service.exportFile(exportId);
    if (file === undefined) return sendText(res, 404, 'this export is no longer available; export again');
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': downloadType(file.fileName),
      'content-disposition': `attachment; filename="${file.fileName.replace(/[^\w.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
      'cache-control': 'no-store',
    });
    createReadStream(file.path).on('error', () => res.destroy()).pipe(res);
  }

  async function handleStored(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const request = new Request(url, { method: req.method ?? 'GET', headers: { accept: req.headers.accept ?? '*/*' } });
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'method not allowed');
    const response = await storedPages(request);
    const headers: Record<string, string> = { ...COMMON_HEADERS };
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(response.status, headers);
    res.end(req.method === 'HEAD' ? undefined : Buffer.from(await response.arrayBuffer()));
  }

  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  config.port = (server.address() as AddressInfo).port;
  return {
    server,
    port: config.port,
    token,
    appRoot: config.appRoot,
    url: `http://127.0.0.1:${config.port}/?token=${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of streams) stream.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const DOWNLOAD_TYPES: [string, string][] = [['.csv', 'text/csv; charset=utf-8'], ['.jsonl', 'application/jsonl'], ['.wacz', 'application/wacz'], ['.zip', 'application/zip'], ['.warc.gz', 'application/warc']];

function downloadType(fileName: string): string {
  return DOWNLOAD_TYPES.find(([ext]) => fileName.endsWith(ext))?.[1] ?? 'application/octet-stream';
}

function failure(code: ErrorCode, message: string): ApiReply {
  return { ok: false, error: { code, message } };
}

function sendReply(res: ServerResponse, status: number, reply: ApiReply): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(reply));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${text}\n`);
}

const TOO_LARGE = Symbol('the request body is too large');

/**
 * The body as text, or TOO_LARGE as soon as its Content-Length or the bytes arrived pass
 * MAX_BODY; the rest of a refused body is read and dropped (see MAX_DISCARDED_BODY).
 */
function readBody(req: IncomingMessage): Promise<string | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = (): void => {
      refused = true;
      chunks.length = 0;
      resolve(TOO_LARGE);
    };
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) refuse();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) {
        if (size > MAX_DISCARDED_BODY) req.destroy();
      } else if (size > MAX_BODY) {
        refuse();
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
