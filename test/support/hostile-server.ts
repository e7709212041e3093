/**
 * A loopback HTTP server that misbehaves on purpose, for tests of the fetch layer and,
 * later, of the engine. It binds 127.0.0.1 on an ephemeral port. Endpoints are listed in
 * HOSTILE_PATHS; the payloads they serve are exported so tests can compare bytes.
 *
 *   const server = await start();     // or start({ tls: selfSignedCertificate() })
 *   ... fetch `${server.origin}${HOSTILE_PATHS.ok}` ...
 *   server.requestLog                  // every request: method, path, headers, connection id
 *   server.connectionCount()           // TCP connections accepted so far
 *   await server.close();              // ends every socket and timer
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';

export const HOSTILE_PATHS = {
  /** 200 text/html, HOSTILE_PAGE. */
  ok: '/ok',
  /** Reads the request, never answers. */
  slowHeaders: '/slow-headers',
  /** 200 head, then one body byte every 400 ms, forever. */
  slowloris: '/slowloris',
  /** 200 head and a few bytes, then silence. */
  stalledBody: '/stalled-body',
  /** 200 chunked, streams 64 KiB chunks as fast as the client reads, forever. */
  endless: '/endless',
  /** Declares Content-Length 50 MiB, then sends a byte a second. */
  declaredHuge: '/declared-huge',
  /** 16 MiB of zeros, gzip (about 16 KB on the wire). */
  gzipBomb: '/gzip-bomb',
  /** 16 MiB of zeros, brotli (a few dozen bytes on the wire). */
  brotliBomb: '/brotli-bomb',
  /** HOSTILE_PAGE in each coding; the wire bytes are in ENCODED_PAGES. */
  gzip: '/gzip',
  brotli: '/brotli',
  deflateZlib: '/deflate-zlib',
  deflateRaw: '/deflate-raw',
  /** zlib-wrapped deflate whose first byte arrives alone, 30 ms before the rest. */
  deflateSplit: '/deflate-split',
  /** Content-Encoding gzip over an empty body. */
  emptyGzip: '/empty-gzip',
  /** A gzip header followed by garbage. */
  corruptGzip: '/corrupt-gzip',
  /** Content-Encoding the client cannot know. */
  unknownEncoding: '/unknown-encoding',
  /** HOSTILE_PAGE gzipped, then brotli-compressed: two codings, the most accepted. */
  gzipThenBrotli: '/gzip-then-brotli',
  /** HOSTILE_PAGE gzipped 200 times over, Content-Encoding "gzip, gzip, …". */
  stackedGzip: '/stacked-gzip',
  /** About 100 KiB of response headers. */
  hugeHeaders: '/huge-headers',
  /** Half a status block, then a TCP reset. */
  resetInHeaders: '/reset-in-headers',
  /** Content-Length 1000, 100 bytes, then a clean close (FIN). */
  closeInBody: '/close-in-body',
  /** Chunked body, some chunks, then a TCP reset. */
  resetInBody: '/reset-in-body',
  /** 302 to HOSTILE_PATHS.ok (relative Location). */
  redirect: '/redirect',
  /** PNG bytes labelled text/html. */
  lyingType: '/lying-type',
  /** 2 MiB image/png with Content-Length, sent in chunks. */
  bigImage: '/big-image',
  /** A small image/png with Content-Length. */
  smallImage: '/small-image',
  /** Not HTTP at all: 'HELLO\r\n\r\n', then close. */
  garbage: '/garbage',
} as const;

export const HOSTILE_PAGE = Buffer.from('<!doctype html><html><head><title>Hostile</title></head><body><p>' + 'All quiet here. '.repeat(200) + '</p></body></html>\n');

// The 8-byte PNG signature and an IHDR chunk start: enough for a content sniffer.
export const PNG_BYTES = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(4000, 7)]);

export const BOMB_DECODED_BYTES = 16 * 1024 * 1024;

export const ENCODED_PAGES = {
  gzip: zlib.gzipSync(HOSTILE_PAGE),
  brotli: zlib.brotliCompressSync(HOSTILE_PAGE),
  deflateZlib: zlib.deflateSync(HOSTILE_PAGE),
  deflateRaw: zlib.deflateRawSync(HOSTILE_PAGE),
} as const;

let bombs: { gzip: Buffer; brotli: Buffer } | undefined;

function getBombs(): { gzip: Buffer; brotli: Buffer } {
  if (bombs === undefined) {
    const zeros = Buffer.alloc(BOMB_DECODED_BYTES);
    bombs = {
      gzip: zlib.gzipSync(zeros),
      brotli: zlib.brotliCompressSync(zeros, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } }),
    };
  }
  return bombs;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** 1-based id of the connection the request arrived on (TLS sessions are numbered apart). */
  connection: number;
}

export interface HostileServer {
  /** e.g. http://127.0.0.1:41234 (https:// when started with tls). */
  origin: string;
  port: number;
  requestLog: RequestLogEntry[];
  connectionCount(): number;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Serve HTTPS with this key and certificate instead of plain HTTP. */
  tls?: { key: string; cert: string };
}

export async function start(options: StartOptions = {}): Promise<HostileServer> {
  const requestLog: RequestLogEntry[] = [];
  const connectionIds = new WeakMap<Socket, number>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    requestLog.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, connection: connectionIds.get(socket) ?? 0 });
    // Timers die with the socket, and with the server.
    const schedule: Schedule = (ms, tick, repeat) => {
      const timer = (repeat ? setInterval : setTimeout)(() => {
        if (!socket.destroyed) tick();
      }, ms);
      timers.add(timer);
      socket.once('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
      });
    };
    serve(req.url ?? '', res, socket, schedule);
  };

  const server = options.tls === undefined ? http.createServer(handler) : https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler);
  server.requestTimeout = 0;
  // TCP connections, counted even when a TLS handshake then fails.
  server.on('connection', (socket: Socket) => {
    connections++;
    connectionIds.set(socket, connections);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  if (options.tls !== undefined) {
    let secureConnections = 0;
    server.on('secureConnection', (socket: Socket) => connectionIds.set(socket, ++secureConnections));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    requestLog,
    connectionCount: () => connections,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}

type Schedule = (ms: number, tick: () => void, repeat: boolean) => void;

function serve(path: string, res: ServerResponse, socket: Socket, schedule: Schedule): void {
  switch (path) {
    case HOSTILE_PATHS.ok:
      sendBody(res, 'text/html; charset=utf-8', HOSTILE_PAGE);
      return;
    case HOSTILE_PATHS.slowHeaders:
      return;
    case HOSTILE_PATHS.slowloris:
      res.writeHead(200, { 'content-type': 'text/html' });
      res.flushHeaders();
      schedule(400, () => res.write('<'), true);
      return;
    case HOSTILE_PATHS.stalledBody:
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
      return;
    case HOSTILE_PATHS.endless:
      streamForever(res, socket);
      return;
    case HOSTILE_PATHS.declaredHuge:
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(50 * 1024 * 1024) });
      res.flushHeaders();
      schedule(1000, () => res.write('x'), true);
      return;
    case HOSTILE_PATHS.gzipBomb:
      sendBody(res, 'text/html', getBombs().gzip, 'gzip');
      return;
    case HOSTILE_PATHS.brotliBomb:
      sendBody(res, 'text/html', getBombs().brotli, 'br');
      return;
    case HOSTILE_PATHS.gzip:
      sendBody(res, 'text/html', ENCODED_PAGES.gzip, 'gzip');
      return;
    case HOSTILE_PATHS.brotli:
      sendBody(res, 'text/html', ENCODED_PAGES.brotli, 'br');
      return;
    case HOSTILE_PATHS.deflateZlib:
      sendBody(res, 'text/html', ENCODED_PAGES.deflateZlib, 'deflate');
      return;
    case HOSTILE_PATHS.deflateRaw:
      sendBody(res, 'text/html', ENCODED_PAGES.deflateRaw, 'deflate');
      return;
    case HOSTILE_PATHS.deflateSplit: {
      const wire = ENCODED_PAGES.deflateZlib;
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate', 'content-length': String(wire.length) });
      res.write(wire.subarray(0, 1));
      schedule(30, () => res.end(wire.subarray(1)), false);
      return;
    }
    case HOSTILE_PATHS.emptyGzip:
      sendBody(res, 'text/html', Buffer.alloc(0), 'gzip');
      return;
    case HOSTILE_PATHS.corruptGzip:
      sendBody(res, 'text/html', Buffer.concat([ENCODED_PAGES.gzip.subarray(0, 10), Buffer.from('this is not deflate data at all'.repeat(20))]), 'gzip');
      return;
    case HOSTILE_PATHS.unknownEncoding:
      sendBody(res, 'text/html', HOSTILE_PAGE, 'x-forager-unknown');
      return;
    case HOSTILE_PATHS.gzipThenBrotli:
      sendBody(res, 'text/html', zlib.brotliCompressSync(zlib.gzipSync(HOSTILE_PAGE)), 'gzip, br');
      return;
    case HOSTILE_PATHS.stackedGzip: {
      let body = HOSTILE_PAGE;
      for (let i = 0; i < 200; i++) body = zlib.gzipSync(body);
      sendBody(res, 'text/html', body, Array(200).fill('gzip').join(', '));
      return;
    }
    case HOSTILE_PATHS.hugeHeaders: {
      const filler = 'x'.repeat(1000);
      let head = 'HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 2\r\n';
      for (let i = 0; i < 100; i++) head += `x-filler-${i}: ${filler}\r\n`;
      socket.end(`${head}\r\nok`);
      return;
    }
    case HOSTILE_PATHS.resetInHeaders:
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/ht', () => socket.resetAndDestroy());
      return;
    case HOSTILE_PATHS.closeInBody:
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
      res.write('y'.repeat(100), () => socket.destroy());
      return;
    case HOSTILE_PATHS.resetInBody:
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('z'.repeat(5000), () => socket.resetAndDestroy());
      return;
    case HOSTILE_PATHS.redirect:
      res.writeHead(302, { location: HOSTILE_PATHS.ok, 'content-type': 'text/html', 'content-length': '0' });
      res.end();
      return;
    case HOSTILE_PATHS.lyingType:
      sendBody(res, 'text/html', PNG_BYTES);
      return;
    case HOSTILE_PATHS.bigImage:
      streamFixedLength(res, socket, 'image/png', 2 * 1024 * 1024);
      return;
    case HOSTILE_PATHS.smallImage:
      sendBody(res, 'image/png', PNG_BYTES);
      return;
    case HOSTILE_PATHS.garbage:
      socket.end('HELLO\r\n\r\n');
      return;
    default:
      res.writeHead(404, { 'content-type': 'text/plain', 'content-length': '9' });
      res.end('not found');
  }
}

function sendBody(res: ServerResponse, contentType: string, body: Buffer, contentEncoding?: string): void {
  const headers: Record<string, string> = { 'content-type': contentType, 'content-length': String(body.length) };
  if (contentEncoding !== undefined) headers['content-encoding'] = contentEncoding;
  res.writeHead(200, headers);
  res.end(body);
}

function streamForever(res: ServerResponse, socket: Socket): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  res.writeHead(200, { 'content-type': 'text/html' });
  const pump = (): void => {
    while (!socket.destroyed && res.write(chunk));
    if (!socket.destroyed) res.once('drain', pump);
  };
  pump();
}

function streamFixedLength(res: ServerResponse, socket: Socket, contentType: string, length: number): void {
  const chunk = Buffer.alloc(64 * 1024, 1);
  res.writeHead(200, { 'content-type': contentType, 'content-length': String(length) });
  let left = length;
  const pump = (): void => {
    while (left > 0 && !socket.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      if (left === 0) {
        res.end(piece);
        return;
      }
      if (!res.write(piece)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function unusedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** How a throwaway certificate is broken besides being self-signed. */
export interface CertificateFlaws {
  /** The name it is issued for; default localhost. */
  commonName?: string;
  /** Valid for one day in January 2020 only. */
  expired?: boolean;
}

const EXPIRED_CA_CONFIG = [
  '[ ca ]', 'default_ca = throwaway', '[ throwaway ]', 'database = index.txt', 'new_certs_dir = .', 'serial = serial',
  'default_md = sha256', 'policy = any_name', '[ any_name ]', 'commonName = supplied', '',
].join('\n');

/** A throwaway self-signed certificate (CN=localhost unless flawed otherwise), or undefined without openssl. */
export function selfSignedCertificate(flaws: CertificateFlaws = {}): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'forager-cert-'));
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  const subject = `/CN=${flaws.commonName ?? 'localhost'}`;
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath];
  try {
    if (flaws.expired === true) {
      // `openssl req` cannot back-date a certificate; `openssl ca` can set both dates.
      writeFileSync(join(dir, 'ca.cnf'), EXPIRED_CA_CONFIG);
      writeFileSync(join(dir, 'index.txt'), '');
      writeFileSync(join(dir, 'serial'), '01\n');
      execFileSync('openssl', ['req', '-new', ...newKey, '-subj', subject, '-out', join(dir, 'csr.pem')], { stdio: 'ignore' });
      execFileSync('openssl', ['ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', keyPath, '-in', 'csr.pem', '-out', certPath, '-startdate', '20200101000000Z', '-enddate', '20200102000000Z'], { cwd: dir, stdio: 'ignore' });
    } else {
      execFileSync('openssl', ['req', '-x509', ...newKey, '-out', certPath, '-days', '1', '-subj', subject], { stdio: 'ignore' });
    }
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
