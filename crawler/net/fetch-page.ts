/**
 * One HTTP GET, hardened against hostile servers. Redirects are never followed: the engine
 * treats a 3xx Location as a new URL that goes through scope, SSRF, robots and seen checks.
 * Every failure is a FetchError whose `reason` is a FetchFailureReason.
 *
 * Limits and why they exist:
 * - totalTimeoutMs bounds the whole fetch, so a server trickling a byte every few seconds
 *   (which never trips the idle body timeout) is still cut off.
 * - maxBodyBytes bounds the bytes as received; maxDecodedBytes bounds what decompression
 *   produces and is checked while inflating, so a gzip bomb stops at the limit.
 * - headersTimeoutMs, bodyIdleTimeoutMs and the dispatcher's connect timeout are undici's
 *   timers, which run on a coarse clock: they fire up to about a second late.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { Readable, Transform, Writable } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';
import { FetchError } from '../errors.ts';
import { type ContentCoding, looksLikeZlibHeader, parseContentCodings } from './content-coding.ts';
import { headerMap } from './header-pairs.ts';
import { redirectLocation } from './redirect-location.ts';
import { freeNow } from '../memory/free-buffer.ts';

export const FETCH_FAILURE_REASONS = [
  'timeout:connect',
  'timeout:headers',
  'timeout:body',
  'timeout:total',
  'too-large:body',
  'too-large:decoded',
  'too-large:headers',
  'connection-reset',
  'connection-refused',
  'network',
  'dns',
  'ssrf:blocked',
  'tls',
  'protocol',
  'bad-encoding',
  'invalid-request',
  'aborted',
] as const;

export type FetchFailureReason = (typeof FETCH_FAILURE_REASONS)[number];

const RETRYABLE_REASONS: ReadonlySet<string> = new Set<FetchFailureReason>([
  'timeout:connect',
  'timeout:headers',
  'timeout:body',
  'timeout:total',
  'connection-reset',
  'connection-refused',
  'network',
  'dns',
]);

/** How large one body may be, as received and once decoded. */
export interface BodySizeLimits {
  maxBodyBytes: number;
  maxDecodedBytes: number;
}

export interface FetchOptions {
  /** From createDispatcher(); it carries the connect timeout, header size limit and SSRF guard. */
  dispatcher: Dispatcher;
  userAgent: string;
  accept?: string;
  /** From the request being written to the complete response head. */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks. */
  bodyIdleTimeoutMs?: number;
  /** The whole fetch, connect included. */
  totalTimeoutMs?: number;
  /** Payload bytes as received (before decoding). */
  maxBodyBytes?: number;
  /** Bytes produced by content decoding; identity bodies are bounded by maxBodyBytes alone. */
  maxDecodedBytes?: number;
  /** Keep the payload exactly as received in `rawBody` (for WARC). */
  keepRawBody?: boolean;
  /**
   * Past maxBodyBytes or maxDecodedBytes, return the bytes so far with `truncated: true`
   * instead of failing with too-large:* (robots.txt: RFC 9309 lets a crawler cut a big file).
   */
  truncateOversizedBody?: boolean;
  /**
   * Called once the head is in: the size limits of this response's body (a document may be
   * larger than a page), or null when the body is not downloaded. Without it, maxBodyBytes and
   * maxDecodedBytes apply to every body.
   */
  bodyLimits?: (status: number, contentType: string | undefined) => BodySizeLimits | null;
  /** Request headers beside the crawler's own (a revisit's If-None-Match and If-Modified-Since). */
  extraHeaders?: Readonly<Record<string, string>>;
}

export const FETCH_DEFAULTS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  headersTimeoutMs: 15_000,
  bodyIdleTimeoutMs: 15_000,
  totalTimeoutMs: 60_000,
  maxBodyBytes: 10 * 1024 * 1024,
  // Room for a 10 MiB limit's worth of typical HTML at ~3x compression, still far from a bomb.
  maxDecodedBytes: 32 * 1024 * 1024,
} as const;

export interface FetchTimings {
  /** Epoch ms when the fetch began. */
  startedAt: number;
  /** From start to a complete response head (connect included). */
  headersMs: number;
  /** From start to the end of the body (or of the skip). */
  totalMs: number;
}

export interface FetchResult {
  /** The URL as passed in. */
  url: string;
  status: number;
  statusText: string;
  /** Always '1.1': the dispatcher speaks HTTP/1.1 and undici does not report a 1.0 reply. */
  httpVersion: string;
  /** Lowercased names; repeated fields joined with ', ' (set-cookie too: use rawHeaders). */
  headers: Record<string, string>;
  /** Names and values as received, values decoded as latin1 (byte-preserving). */
  rawHeaders: [string, string][];
  contentType?: string;
  contentEncoding?: string;
  /** Decoded payload; undefined when skipped. */
  body?: Buffer;
  /** Payload as received, only with keepRawBody (the same Buffer as body for identity). */
  rawBody?: Buffer;
  bodySkipped: boolean;
  /** Present (true) when truncateOversizedBody cut the body at a limit. */
  truncated?: boolean;
  /** 3xx only: the first Location resolved against `url`; absent when missing or unparsable. */
  location?: string;
  timings: FetchTimings;
  remoteAddress?: string;
  /** Request line and header lines as written to the socket, each ending in CRLF (the closing empty line is not included). */
  requestHeaders?: string;
  /** Payload bytes read from the network (for a skipped body, those drained for keep-alive). */
  bytesReceived: number;
}

const ACCEPT_ENCODING = 'gzip, deflate, br';
const HTTP_VERSION = '1.1';
// A skipped body at most this long is drained so the connection can be reused.
const SKIP_DRAIN_LIMIT = 64 * 1024;

export async function fetchPage(url: string, opts: FetchOptions, signal?: AbortSignal): Promise<FetchResult> {
  const target = parseHttpUrl(url);
  if (signal?.aborted === true) throw abortedError(url, signal.reason);

  const startedAt = Date.now();
  const t0 = performance.now();
  const totalTimeoutMs = opts.totalTimeoutMs ?? FETCH_DEFAULTS.totalTimeoutMs;
  const maxBodyBytes = opts.maxBodyBytes ?? FETCH_DEFAULTS.maxBodyBytes;
  // Aborting with the FetchError itself lets the catch report why, whatever undici throws.
  const controller = new AbortController();
  const deadline = setTimeout(() => {
    controller.abort(fetchError('timeout:total', `no complete response within ${totalTimeoutMs} ms`, { url, totalTimeoutMs }));
  }, totalTimeoutMs);
  const onCallerAbort = (): void => controller.abort(abortedError(url, signal?.reason));
  signal?.addEventListener('abort', onCallerAbort, { once: true });

  const path = target.pathname + target.search;
  const tapKey = target.origin + path;
  const tap = openTap(tapKey);
  let body: Readable | undefined;
  try {
    const response = await opts.dispatcher.request({
      origin: target.origin,
      path,
      method: 'GET',
      headers: {
        'user-agent': opts.userAgent,
        accept: opts.accept ?? FETCH_DEFAULTS.accept,
        'accept-encoding': ACCEPT_ENCODING,
        ...opts.extraHeaders,
      },
      signal: controller.signal,
      headersTimeout: opts.headersTimeoutMs ?? FETCH_DEFAULTS.headersTimeoutMs,
      bodyTimeout: opts.bodyIdleTimeoutMs ?? FETCH_DEFAULTS.bodyIdleTimeoutMs,
      responseHeaders: 'raw',
    });
    body = response.body;
    const headersMs = performance.now() - t0;
    const status = response.statusCode;
    const head = parseHead(response.headers as unknown as string[], status, url);
    const contentType = head.headers['content-type'];
    const contentEncoding = head.headers['content-encoding'];
    const result: FetchResult = {
      url,
      status,
      statusText: response.statusText,
      httpVersion: HTTP_VERSION,
      headers: head.headers,
      rawHeaders: head.rawHeaders,
      bodySkipped: false,
      timings: { startedAt, headersMs, totalMs: 0 },
      bytesReceived: 0,
    };
    if (contentType !== undefined) result.contentType = contentType;
    if (contentEncoding !== undefined) result.contentEncoding = contentEncoding;
    if (head.location !== undefined) result.location = head.location;

    const declaredLength = parseContentLength(head.headers['content-length']);
    const sizes = opts.bodyLimits === undefined ? { maxBodyBytes, maxDecodedBytes: opts.maxDecodedBytes ?? FETCH_DEFAULTS.maxDecodedBytes } : opts.bodyLimits(status, contentType);
    if (sizes === null) {
      result.bodySkipped = true;
      result.bytesReceived = await skipBody(response.body, declaredLength, controller.signal);
    } else {
      const { maxBodyBytes } = sizes;
      const truncate = opts.truncateOversizedBody === true;
      if (!truncate && declaredLength !== undefined && declaredLength > maxBodyBytes) {
        throw fetchError('too-large:body', `declared body of ${declaredLength} bytes exceeds ${maxBodyBytes}`, { url, limit: maxBodyBytes, declaredLength });
      }
      const codings = parseCodings(contentEncoding, url);
      const limits: BodyLimits = {
        maxBodyBytes,
        maxDecodedBytes: sizes.maxDecodedBytes,
        truncate,
        keepRaw: opts.keepRawBody === true,
      };
      const read = await readBody(response.body, codings, limits);
      result.body = read.body;
      if (read.rawBody !== undefined) result.rawBody = read.rawBody;
      if (read.truncated) result.truncated = true;
      result.bytesReceived = read.bytesReceived;
    }
    if (tap.remoteAddress !== undefined) result.remoteAddress = tap.remoteAddress;
    if (tap.requestHeaders !== undefined) result.requestHeaders = tap.requestHeaders;
    result.timings.totalMs = performance.now() - t0;
    return result;
  } catch (err) {
    if (body !== undefined) discard(body);
    if (controller.signal.aborted) throw controller.signal.reason as FetchError;
    throw toFetchError(err, url);
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener('abort', onCallerAbort);
    closeTap(tapKey, tap);
  }
}

function fetchError(reason: FetchFailureReason, message: string, context: Record<string, unknown>, cause?: unknown): FetchError {
  return new FetchError(reason, message, context, { cause, retryable: RETRYABLE_REASONS.has(reason) });
}

function abortedError(url: string, reason: unknown): FetchError {
  return fetchError('aborted', `fetch of ${url} was aborted`, { url }, reason);
}

function parseHttpUrl(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    throw fetchError('invalid-request', `not a URL: ${url}`, { url }, err);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw fetchError('invalid-request', `not an http(s) URL: ${url}`, { url });
  }
  return target;
}

interface ParsedHead {
  headers: Record<string, string>;
  rawHeaders: [string, string][];
  location?: string;
}

function parseHead(flat: readonly string[], status: number, url: string): ParsedHead {
  const rawHeaders: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) rawHeaders.push([flat[i] as string, flat[i + 1] as string]);
  const head: ParsedHead = { headers: headerMap(rawHeaders), rawHeaders };
  const location = redirectLocation(status, rawHeaders, url);
  if (location !== undefined) head.location = location;
  return head;
}

function parseContentLength(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,16}$/.test(value)) return undefined;
  return Number(value);
}

/** Codings in the order they were applied; identity dropped. Unknown codings are an error. */
function parseCodings(header: string | undefined, url: string): ContentCoding[] {
  if (header === undefined) return [];
  const parsed = parseContentCodings(header);
  if ('unsupported' in parsed) throw fetchError('bad-encoding', `unsupported content-encoding ${parsed.unsupported}`, { url, contentEncoding: header });
  return parsed.codings;
}

async function skipBody(body: Dispatcher.ResponseData['body'], declaredLength: number | undefined, signal: AbortSignal): Promise<number> {
  if (declaredLength === undefined || declaredLength > SKIP_DRAIN_LIMIT) {
    discard(body);
    return 0;
  }
  let bytes = 0;
  body.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  try {
    await body.dump({ limit: SKIP_DRAIN_LIMIT, signal });
  } catch {
    // The body was not wanted: failing to drain it only costs the connection.
  }
  return bytes;
}

/** Drops a body we will not read; undici reports that as an 'error' that nobody needs. */
function discard(body: Readable): void {
  if (body.destroyed) return;
  body.on('error', ignore);
  body.destroy();
}

function ignore(): void {}

interface BodyLimits {
  maxBodyBytes: number;
  maxDecodedBytes: number;
  truncate: boolean;
  keepRaw: boolean;
}

interface ReadBody {
  body: Buffer;
  rawBody?: Buffer;
  bytesReceived: number;
  truncated: boolean;
}

async function readBody(source: Readable, codings: readonly ContentCoding[], limits: BodyLimits): Promise<ReadBody> {
  const { truncate, keepRaw } = limits;
  if (codings.length === 0) {
    const sink = new Collector(limits.maxBodyBytes, 'too-large:body', true, truncate);
    const truncated = await collectIdentity(source, sink);
    const body = sink.result();
    return { body, ...(keepRaw && { rawBody: body }), bytesReceived: sink.bytes, truncated };
  }
  const meter = new Collector(limits.maxBodyBytes, 'too-large:body', keepRaw, truncate);
  const decoders: ContentDecoder[] = [];
  for (let i = codings.length - 1; i >= 0; i--) decoders.push(new ContentDecoder(codings[i] as ContentCoding));
  const outermost = decoders[0] as ContentDecoder;
  const sink = new Collector(limits.maxDecodedBytes, 'too-large:decoded', true, truncate, () => outermost.consumed);
  let body: Buffer | undefined;
  try {
    const truncated = await runToLimit(source, [meter.passThrough(), ...decoders], sink);
    body = sink.result();
    // A body that is one of zlib's output buffers: after a pipeline that ended well, zlib writes to it no more.
    if (!truncated && sink.chunkCount === 1) releasable.add(body.buffer);
    return { body, ...(keepRaw && { rawBody: meter.result() }), bytesReceived: meter.bytes, truncated };
  } finally {
    // The decoded chunks are ours alone, and a refused bomb leaves megabytes of them: free them now, not at V8's next collection.
    sink.freeFilledChunks(body);
  }
}

/**
 * Reads a body sent as it is straight into its Collector; true when a truncating one stopped
 * at its limit. Not through pipeline(), whose end aborts an AbortController of its own: that
 * made a DOMException, stack trace and all, for every response (about 90 µs a page here).
 * Leaving the loop early (the limit, an error) destroys the body, as the pipeline did.
 */
async function collectIdentity(source: Readable, sink: Collector): Promise<boolean> {
  for await (const chunk of source) {
    const error = sink.take(chunk as Buffer);
    if (error === LIMIT_REACHED) return true;
    if (error !== undefined) throw error;
  }
  return false;
}

/**
 * Runs a decoding chain, source through `stages` to sink, as pipeline() would (without its
 * AbortController: see collectIdentity): true when a truncating Collector stopped it at its
 * limit. The first error, or a stream closed before its end (read whole; for the sink, written
 * whole), destroys every stream and settles the run.
 */
function runToLimit(source: Readable, stages: readonly Transform[], sink: Writable): Promise<boolean> {
  const readers: Readable[] = [source, ...stages];
  const streams = [...readers, sink];
  return new Promise<boolean>((resolve, reject) => {
    let settled = false;
    const settle = (error: unknown): void => {
      if (settled) return;
      settled = true;
      if (error !== undefined) for (const stream of streams) if (!stream.destroyed) stream.destroy();
      if (error === undefined) resolve(false);
      else if (error === LIMIT_REACHED) resolve(true);
      else reject(error);
    };
    const cutShort = (): void => settle(fetchError('connection-reset', 'the body stopped before its end', {}));
    for (const stream of streams) stream.on('error', settle);
    for (const reader of readers) {
      reader.on('close', () => {
        if (!reader.readableEnded) cutShort();
      });
    }
    sink.on('close', () => {
      if (!sink.writableFinished) cutShort();
    });
    sink.on('finish', () => settle(undefined));
    // Each reader into the stream after it: source into the first stage, the last stage into the sink.
    for (const [i, reader] of readers.entries()) reader.pipe(stages[i] ?? sink);
  });
}

/**
 * Buffers of bodies this module assembled, or zlib's output buffers it has finished with: the
 * caller may free them with releaseBody. A body that is a view of a socket read is not here.
 */
const releasable = new WeakSet<ArrayBufferLike>();

/**
 * Frees the memory of a response's body and payload, for a caller that is done with them
 * (nothing reads them afterwards: they read as empty). Only buffers this module made are
 * freed; V8 would otherwise free them at its next full collection, and a page of a megabyte
 * that waited for its parse and its store had lived long enough to wait for one.
 */
export function releaseBody(result: Pick<FetchResult, 'body' | 'rawBody'>): void {
  for (const view of [result.body, result.rawBody]) {
    if (view !== undefined && releasable.has(view.buffer)) freeNow(view.buffer);
  }
}

/**
 * A decoded body past EXPANSION_FLOOR bytes that is more than MAX_EXPANSION times the bytes
 * received that have been decoded so far (not those received: a bomb arrives long before it
 * has inflated) is a decompression bomb: it is refused as it inflates, before it can fill
 * maxDecodedBytes (with many requests in flight, that is what exhausts memory). Real pages
 * compress five- to twentyfold.
 */
const MAX_EXPANSION = 100;
const EXPANSION_FLOOR = 1024 * 1024;

// Thrown by a truncating Collector to stop the pipeline; never leaves readBody.
const LIMIT_REACHED = new Error('body limit reached');

/** Counts bytes against a limit and optionally keeps them; as a sink or as a pass-through stage. */
class Collector extends Writable {
  /** Every byte seen, including any cut off by truncation. */
  bytes = 0;
  readonly #limit: number;
  readonly #reason: FetchFailureReason;
  readonly #keep: boolean;
  readonly #truncate: boolean;
  readonly #chunks: Buffer[] = [];
  /** For a decoded body: how many bytes received have been decoded so far, to tell a bomb by its expansion. */
  readonly #wire: (() => number) | undefined;
  #kept = 0;

  constructor(limit: number, reason: FetchFailureReason, keep: boolean, truncate: boolean, wire?: () => number) {
    super();
    this.#wire = wire;
    this.#limit = limit;
    this.#reason = reason;
    this.#keep = keep;
    this.#truncate = truncate;
  }

  /** Accounts for a chunk; returns the error to stop with when the limit is passed. */
  take(chunk: Buffer): Error | undefined {
    const before = this.bytes;
    this.bytes += chunk.length;
    const wire = this.#wire?.();
    if (wire !== undefined && this.bytes > EXPANSION_FLOOR && this.bytes <= this.#limit && this.bytes > MAX_EXPANSION * wire) {
      return fetchError('too-large:decoded', `the body inflates more than ${MAX_EXPANSION}-fold (${wire} bytes of it decoded): a decompression bomb`, { received: wire, decoded: this.bytes });
    }
    if (this.bytes <= this.#limit) {
      this.#keepChunk(chunk);
      return undefined;
    }
    if (this.#truncate) {
      this.#keepChunk(chunk.subarray(0, this.#limit - before));
      return LIMIT_REACHED;
    }
    return fetchError(this.#reason, `${this.#reason === 'too-large:body' ? 'body' : 'decoded body'} exceeds ${this.#limit} bytes`, { limit: this.#limit, bytes: this.bytes });
  }

  #keepChunk(chunk: Buffer): void {
    if (!this.#keep || chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    done(this.take(chunk));
  }

  passThrough(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done: TransformCallback) => {
        const error = this.take(chunk);
        if (error === undefined) done(null, chunk);
        else done(error);
      },
    });
  }

  get chunkCount(): number {
    return this.#chunks.length;
  }

  /** The kept bytes: the one chunk itself, or a copy of them all (which releaseBody may free). */
  result(): Buffer {
    const chunks = this.#chunks;
    if (chunks.length === 1) return chunks[0] as Buffer;
    const assembled = Buffer.concat(chunks, this.#kept);
    // Below 4 KiB, Buffer.concat takes a slice of Node's shared pool, which is nobody's to free.
    if (assembled.byteOffset === 0 && assembled.byteLength === assembled.buffer.byteLength) releasable.add(assembled.buffer);
    return assembled;
  }

  /**
   * Frees the memory of kept chunks that fill their buffer to its end, except `body`'s, and
   * forgets them all. Only for decoded output: zlib writes no more to an output buffer once it
   * is full (it takes a new one first), so freeing one cannot pull memory from under it, even
   * while a failed pipeline's last write is still running.
   */
  freeFilledChunks(body: Buffer | undefined): void {
    for (const chunk of this.#chunks) {
      if (chunk.buffer !== body?.buffer && chunk.byteOffset + chunk.byteLength === chunk.buffer.byteLength) freeNow(chunk.buffer);
    }
    this.#chunks.length = 0;
  }
}

type Inflater = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

/**
 * The size of the buffers decoded output is written into: 128 KiB, the smallest block glibc's
 * malloc gives a mapping of its own (its mmap threshold, which the CLI pins). With zlib's
 * default (64 KiB) every output buffer sits on the main malloc heap until V8 collects it, a
 * refused bomb's megabyte of them included, and that heap only shrinks from its top. A mapping is
 * given back when it is freed and costs only the pages written, so a small body still costs
 * a few KiB.
 */
const DECODED_CHUNK_BYTES = 128 * 1024;

/**
 * The most compressed input zlib is given at once. A bomb is told by its output against the
 * input decoded so far, and one socket read (up to 64 KiB) of a bomb given whole would be let
 * out to a hundred times that (6.5 MB in the soak's bombs) before it was refused; given
 * 8 KiB at a time, it is refused at EXPANSION_FLOOR.
 */
const INPUT_SLICE_BYTES = 8 * 1024;

/**
 * Decodes one content coding. The zlib stream is created on the first byte, so an empty
 * body with a Content-Encoding header is not an error, and for 'deflate' the first two
 * bytes decide between zlib-wrapped (RFC 1950, the standard) and raw deflate (sent by
 * some servers, which browsers accept).
 */
class ContentDecoder extends Transform {
  /** Input bytes given to zlib so far, the slice it is decoding now included. */
  consumed = 0;
  readonly #coding: ContentCoding;
  #inner: Inflater | undefined;
  #held: Buffer | undefined;

  constructor(coding: ContentCoding) {
    super();
    this.#coding = coding;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let input = chunk;
    if (this.#inner === undefined) {
      if (this.#coding === 'deflate') {
        input = this.#held === undefined ? chunk : Buffer.concat([this.#held, chunk]);
        if (input.length < 2) {
          this.#held = input;
          done();
          return;
        }
        this.#held = undefined;
      }
      this.#inner = this.#open(input);
    }
    this.#writeSlices(input, 0, done);
  }

  /** Gives zlib the input from `from` on, a slice at a time: each write's callback runs once zlib has consumed it. */
  #writeSlices(input: Buffer, from: number, done: TransformCallback): void {
    if (from >= input.length || this.destroyed) {
      done();
      return;
    }
    const slice = input.subarray(from, from + INPUT_SLICE_BYTES);
    this.consumed += slice.length;
    (this.#inner as Inflater).write(slice, () => this.#writeSlices(input, from + slice.length, done));
  }

  override _flush(done: TransformCallback): void {
    if (this.#inner === undefined && this.#held !== undefined) {
      this.#inner = this.#open(this.#held);
      this.consumed += this.#held.length;
      this.#inner.write(this.#held);
    }
    const inner = this.#inner;
    if (inner === undefined) {
      done();
      return;
    }
    inner.once('end', () => done());
    inner.end();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    done(error);
  }

  #open(first: Buffer): Inflater {
    let inner: Inflater;
    const options = { chunkSize: DECODED_CHUNK_BYTES };
    if (this.#coding === 'gzip') inner = zlib.createGunzip(options);
    else if (this.#coding === 'br') inner = zlib.createBrotliDecompress(options);
    else inner = looksLikeZlibHeader(first) ? zlib.createInflate(options) : zlib.createInflateRaw(options);
    inner.on('data', (out: Buffer) => this.push(out));
    inner.on('error', (err: NodeJS.ErrnoException) => {
      this.destroy(fetchError('bad-encoding', `corrupt ${this.#coding} body: ${err.message}`, { contentEncoding: this.#coding, code: err.code }, err));
    });
    return inner;
  }
}

/**
 * Remote address and request head, observed through undici's documented diagnostics
 * channel (request() exposes neither). Fetches waiting for their request to be written are
 * keyed by origin + path; two identical in-flight URLs may swap taps, which only matters if
 * they reached different addresses of the same host.
 */
interface SocketTap {
  remoteAddress?: string;
  requestHeaders?: string;
  written: boolean;
}

interface SendHeadersMessage {
  request?: { origin?: unknown; path?: unknown };
  headers?: unknown;
  socket?: Socket;
}

const pendingTaps = new Map<string, SocketTap[]>();
const ABSOLUTE_FORM = /^https?:\/\//i;
const PROXY_AUTHORIZATION_LINE = /^proxy-authorization:[^\r\n]*\r\n/gim;
let tapSubscribed = false;

function onSendHeaders(message: unknown): void {
  const { request, headers, socket } = message as SendHeadersMessage;
  if (request === undefined) return;
  // A request sent to an HTTP proxy in absolute form names its target's URL as its path.
  const path = String(request.path);
  const waiting = pendingTaps.get(ABSOLUTE_FORM.test(path) ? path : `${String(request.origin)}${path}`);
  if (waiting === undefined) return;
  for (const tap of waiting) {
    if (tap.written) continue;
    tap.written = true;
    // The proxy's credentials are the crawl's secret, not part of the request the target saw.
    if (typeof headers === 'string') tap.requestHeaders = headers.replace(PROXY_AUTHORIZATION_LINE, '');
    const address = socket?.remoteAddress;
    if (address !== undefined) tap.remoteAddress = address;
    return;
  }
}

function openTap(key: string): SocketTap {
  if (!tapSubscribed) {
    diagnosticsChannel.subscribe('undici:client:sendHeaders', onSendHeaders);
    tapSubscribed = true;
  }
  const tap: SocketTap = { written: false };
  const waiting = pendingTaps.get(key);
  if (waiting === undefined) pendingTaps.set(key, [tap]);
  else waiting.push(tap);
  return tap;
}

function closeTap(key: string, tap: SocketTap): void {
  const waiting = pendingTaps.get(key);
  if (waiting === undefined) return;
  if (waiting.length === 1) {
    pendingTaps.delete(key);
    return;
  }
  const index = waiting.indexOf(tap);
  if (index !== -1) waiting.splice(index, 1);
}

const TLS_CODES: ReadonlySet<string> = new Set([
  'EPROTO',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'HOSTNAME_MISMATCH',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
]);

const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA', 'ESERVFAIL', 'EREFUSED', 'ETIMEOUT']);

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  return undefined;
}

function reasonFor(err: unknown, code: string | undefined): FetchFailureReason {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timeout:connect';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'timeout:headers';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timeout:body';
    case 'UND_ERR_HEADERS_OVERFLOW':
      return 'too-large:headers';
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return 'too-large:body';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return 'connection-reset';
    case 'UND_ERR_SOCKET':
      // undici's 'bad response' / 'bad upgrade': the peer sent something that is not a valid reply.
      return /^bad /.test((err as Error).message) ? 'protocol' : 'connection-reset';
    case 'ECONNREFUSED':
      return 'connection-refused';
    case 'UND_ERR_INVALID_ARG':
    case 'UND_ERR_NOT_SUPPORTED':
    case 'ERR_INVALID_URL':
      return 'invalid-request';
    case 'UND_ERR_ABORTED':
    case 'UND_ERR_ABORT':
    case 'UND_ERR_DESTROYED':
    case 'UND_ERR_CLOSED':
    case 'ABORT_ERR':
      return 'aborted';
  }
  if (code !== undefined) {
    if (code.startsWith('HPE_')) return 'protocol';
    if (code.startsWith('EAI_') || DNS_CODES.has(code)) return 'dns';
    if (TLS_CODES.has(code) || /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_)/.test(code)) return 'tls';
  }
  if ((err as Error | null)?.name === 'HTTPParserError') return 'protocol';
  return 'network';
}

function toFetchError(err: unknown, url: string): FetchError {
  if (err instanceof FetchError) {
    if (err.context.url !== undefined) return err;
    return new FetchError(err.reason, `${err.message} (${url})`, { url, ...err.context }, { cause: err.cause ?? err, retryable: err.retryable });
  }
  const code = errorCode(err);
  const reason = reasonFor(err, code);
  const detail = err instanceof Error ? err.message : String(err);
  return fetchError(reason, `${reason} fetching ${url}: ${detail}`, { url, code }, err);
}
