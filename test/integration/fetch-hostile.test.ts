import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LookupAddress } from 'node:dns';
import type { Dispatcher } from 'undici';
import { FetchError } from '../../crawler/errors.ts';
import { createDispatcher } from '../../crawler/net/dispatcher.ts';
import { fetchPage, FETCH_FAILURE_REASONS, releaseBody } from '../../crawler/net/fetch-page.ts';
import type { FetchFailureReason, FetchOptions, FetchResult } from '../../crawler/net/fetch-page.ts';
import type { HostResolver } from '../../crawler/net/ssrf-guard.ts';
import {
  BOMB_DECODED_BYTES,
  ENCODED_PAGES,
  HOSTILE_PAGE,
  HOSTILE_PATHS,
  PNG_BYTES,
  selfSignedCertificate,
  start,
  unusedPort,
} from '../support/hostile-server.ts';
import type { HostileServer } from '../support/hostile-server.ts';

const USER_AGENT = 'ForagerTest/0.1 (+https://forager.invalid/bot)';
// undici runs its connect, headers and body timers on a coarse clock (about 1 s resolution).
const UNDICI_TIMER_SLACK_MS = 1500;

/** Runs a fetch that must fail; returns the error after checking its reason and how long it took. */
async function expectFailure(run: () => Promise<FetchResult>, reason: FetchFailureReason, withinMs: number): Promise<FetchError> {
  const t0 = performance.now();
  let caught: unknown;
  try {
    await run();
  } catch (err) {
    caught = err;
  }
  const elapsed = performance.now() - t0;
  assert.ok(caught instanceof FetchError, `expected a FetchError, got ${String(caught)}`);
  assert.equal(caught.reason, reason, `reason (message: ${caught.message})`);
  assert.ok(FETCH_FAILURE_REASONS.includes(caught.reason as FetchFailureReason));
  assert.ok(elapsed < withinMs, `took ${elapsed.toFixed(0)} ms, limit ${withinMs} ms`);
  return caught;
}

async function timed<T>(run: () => Promise<T>, withinMs: number): Promise<T> {
  const t0 = performance.now();
  const value = await run();
  const elapsed = performance.now() - t0;
  assert.ok(elapsed < withinMs, `took ${elapsed.toFixed(0)} ms, limit ${withinMs} ms`);
  return value;
}

function resolverFor(table: Record<string, string[]>, calls: string[] = []): HostResolver {
  return async (hostname) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('fetchPage against a hostile server', () => {
  let server: HostileServer;
  let dispatcher: Dispatcher;
  let base: FetchOptions;

  before(async () => {
    server = await start();
    dispatcher = createDispatcher({ policy: { allowPrivate: true, allowedHosts: new Set() }, connectTimeoutMs: 1000 });
    base = { dispatcher, userAgent: USER_AGENT, headersTimeoutMs: 300, bodyIdleTimeoutMs: 300, totalTimeoutMs: 3000 };
  });

  after(async () => {
    await dispatcher.destroy();
    await server.close();
  });

  const at = (path: string): string => `${server.origin}${path}`;

  test('fetches a page: decoded body, headers as received, request as configured', async () => {
    const before = server.requestLog.length;
    const result = await timed(() => fetchPage(at(HOSTILE_PATHS.ok), base), 1000);
    assert.equal(result.status, 200);
    assert.equal(result.statusText, 'OK');
    assert.equal(result.httpVersion, '1.1');
    assert.deepEqual(result.body, HOSTILE_PAGE);
    assert.equal(result.rawBody, undefined);
    assert.equal(result.bodySkipped, false);
    assert.equal(result.bytesReceived, HOSTILE_PAGE.length);
    assert.equal(result.contentType, 'text/html; charset=utf-8');
    assert.equal(result.headers['content-length'], String(HOSTILE_PAGE.length));
    assert.ok(result.rawHeaders.some(([name, value]) => name.toLowerCase() === 'content-type' && value === 'text/html; charset=utf-8'));
    assert.equal(result.remoteAddress, '127.0.0.1');
    assert.match(result.requestHeaders ?? '', /^GET \/ok HTTP\/1\.1\r\n/);
    assert.ok(result.requestHeaders?.includes(`\r\nuser-agent: ${USER_AGENT}\r\n`));
    assert.ok(result.timings.startedAt <= Date.now() && result.timings.startedAt > Date.now() - 5000);
    assert.ok(result.timings.headersMs >= 0 && result.timings.headersMs <= result.timings.totalMs);

    const logged = server.requestLog[before];
    assert.ok(logged !== undefined);
    assert.equal(logged.path, HOSTILE_PATHS.ok);
    assert.equal(logged.headers['user-agent'], USER_AGENT);
    assert.equal(logged.headers['accept-encoding'], 'gzip, deflate, br');
    assert.match(logged.headers.accept ?? '', /text\/html/);
  });

  test('reuses the kept-alive connection for the next request to the origin', async () => {
    const first = server.requestLog.length;
    await fetchPage(at(HOSTILE_PATHS.ok), base);
    await fetchPage(at(HOSTILE_PATHS.ok), base);
    const [a, b] = server.requestLog.slice(first);
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(a.connection, b.connection);
  });

  test('headers that never come: timeout:headers', async () => {
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.slowHeaders), base), 'timeout:headers', UNDICI_TIMER_SLACK_MS + 300);
    assert.equal(err.retryable, true);
    assert.equal(err.context.url, at(HOSTILE_PATHS.slowHeaders));
  });

  test('slowloris body, a byte every 400 ms: timeout:total cuts it off', async () => {
    const t0 = performance.now();
    const err = await expectFailure(
      () => fetchPage(at(HOSTILE_PATHS.slowloris), { ...base, bodyIdleTimeoutMs: 2000, totalTimeoutMs: 1000 }),
      'timeout:total',
      1800,
    );
    assert.ok(performance.now() - t0 >= 990, 'not before the total timeout');
    assert.equal(err.retryable, true);
  });

  test('a body that stalls: timeout:body', async () => {
    await expectFailure(() => fetchPage(at(HOSTILE_PATHS.stalledBody), base), 'timeout:body', UNDICI_TIMER_SLACK_MS + 300);
  });

  test('an endless body: too-large:body at maxBodyBytes', async () => {
    const limit = 1024 * 1024;
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.endless), { ...base, maxBodyBytes: limit }), 'too-large:body', 2000);
    assert.equal(err.retryable, false);
    assert.equal(err.context.limit, limit);
    assert.ok((err.context.bytes as number) > limit && (err.context.bytes as number) < 2 * limit);
  });

  test('truncateOversizedBody returns exactly maxBodyBytes of an endless body', async () => {
    const limit = 100 * 1024;
    const result = await timed(() => fetchPage(at(HOSTILE_PATHS.endless), { ...base, maxBodyBytes: limit, truncateOversizedBody: true, keepRawBody: true }), 2000);
    assert.equal(result.truncated, true);
    assert.deepEqual(result.body, Buffer.alloc(limit, 'a'));
    assert.equal(result.rawBody, result.body);
    assert.ok(result.bytesReceived > limit);
  });

  test('truncateOversizedBody cuts a bomb at maxDecodedBytes of decoded output', async () => {
    const limit = 1024 * 1024;
    const result = await timed(() => fetchPage(at(HOSTILE_PATHS.gzipBomb), { ...base, maxDecodedBytes: limit, truncateOversizedBody: true }), 2000);
    assert.equal(result.truncated, true);
    assert.deepEqual(result.body, Buffer.alloc(limit));
  });

  test('truncateOversizedBody on a compressed body keeps the wire prefix and what it decodes to', async () => {
    const limit = Math.floor(ENCODED_PAGES.gzip.length / 2);
    const result = await fetchPage(at(HOSTILE_PATHS.gzip), { ...base, maxBodyBytes: limit, truncateOversizedBody: true, keepRawBody: true });
    assert.equal(result.truncated, true);
    assert.deepEqual(result.rawBody, ENCODED_PAGES.gzip.subarray(0, limit));
    assert.ok(result.body !== undefined && result.body.length < HOSTILE_PAGE.length);
    assert.deepEqual(result.body, HOSTILE_PAGE.subarray(0, result.body.length));
  });

  test('truncateOversizedBody leaves a body within the limits alone', async () => {
    const result = await fetchPage(at(HOSTILE_PATHS.gzip), { ...base, maxBodyBytes: ENCODED_PAGES.gzip.length, maxDecodedBytes: HOSTILE_PAGE.length, truncateOversizedBody: true });
    assert.equal(result.truncated, undefined);
    assert.deepEqual(result.body, HOSTILE_PAGE);
  });

  test('a declared Content-Length over the limit fails before any body is read', async () => {
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.declaredHuge), base), 'too-large:body', 500);
    assert.equal(err.context.declaredLength, 50 * 1024 * 1024);
  });

  for (const [name, path] of [
    ['gzip', HOSTILE_PATHS.gzipBomb],
    ['brotli', HOSTILE_PATHS.brotliBomb],
  ] as const) {
    test(`a ${name} bomb stops at maxDecodedBytes while inflating`, async () => {
      const limit = 1024 * 1024;
      const err = await expectFailure(() => fetchPage(at(path), { ...base, maxDecodedBytes: limit }), 'too-large:decoded', 2000);
      const decoded = err.context.bytes as number;
      assert.ok(decoded > limit, 'the limit was really passed');
      assert.ok(decoded < 2 * limit, `inflated ${decoded} of ${BOMB_DECODED_BYTES} bytes before stopping`);
    });
  }

  test('a refused bomb frees what it inflated to at once, without waiting for a garbage collection', async () => {
    const bomb = (): Promise<FetchError> => expectFailure(() => fetchPage(at(HOSTILE_PATHS.gzipBomb), base), 'too-large:decoded', 2000);
    // The first request has the server, in this process, build its bomb: measure the second.
    await bomb();
    const before = process.memoryUsage().arrayBuffers;
    const err = await bomb();
    const held = process.memoryUsage().arrayBuffers - before;
    const inflated = err.context.decoded as number;
    assert.ok(inflated > 1024 * 1024, `inflated ${inflated} bytes`);
    assert.ok(held < inflated / 4, `${held} bytes of ArrayBuffers still held after inflating ${inflated}`);
  });

  test('a bomb is refused by its expansion long before a generous maxDecodedBytes', async () => {
    const limit = 256 * 1024 * 1024;
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.gzipBomb), { ...base, maxDecodedBytes: limit }), 'too-large:decoded', 2000);
    assert.match(err.message, /inflates more than 100-fold/);
    assert.ok((err.context.decoded as number) < 4 * 1024 * 1024, `inflated ${err.context.decoded as number} bytes before stopping`);
  });

  test('a bomb is refused at 1 MiB of output, however much of it arrived in one read', async () => {
    // The bomb's 16 KB arrive at once; were they counted as received rather than as decoded, it would be let out to 1.6 MB.
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.gzipBomb), base), 'too-large:decoded', 2000);
    assert.ok((err.context.received as number) <= 16 * 1024, `${err.context.received as number} bytes of the bomb decoded`);
    assert.ok((err.context.decoded as number) < 1.25 * 1024 * 1024, `inflated ${err.context.decoded as number} bytes before stopping`);
  });

  for (const [path, encoding, wire] of [
    [HOSTILE_PATHS.gzip, 'gzip', ENCODED_PAGES.gzip],
    [HOSTILE_PATHS.brotli, 'br', ENCODED_PAGES.brotli],
    [HOSTILE_PATHS.deflateZlib, 'deflate', ENCODED_PAGES.deflateZlib],
    [HOSTILE_PATHS.deflateRaw, 'deflate', ENCODED_PAGES.deflateRaw],
  ] as const) {
    test(`decodes ${path.slice(1)} and keeps the wire bytes on request`, async () => {
      const result = await fetchPage(at(path), { ...base, keepRawBody: true });
      assert.equal(result.contentEncoding, encoding);
      assert.deepEqual(result.body, HOSTILE_PAGE);
      assert.deepEqual(result.rawBody, wire);
      assert.equal(result.bytesReceived, wire.length);
    });
  }

  for (const path of [HOSTILE_PATHS.gzip, HOSTILE_PATHS.brotli, HOSTILE_PATHS.deflateRaw]) {
    // A block this large gets a mapping of its own from malloc, given back when freed, instead of a place on the main heap.
    test(`decodes ${path.slice(1)} into buffers of at least 128 KiB`, async () => {
      const result = await fetchPage(at(path), base);
      assert.deepEqual(result.body, HOSTILE_PAGE);
      assert.ok((result.body?.buffer.byteLength ?? 0) >= 128 * 1024, `decoded into a buffer of ${result.body?.buffer.byteLength} bytes`);
    });
  }

  test("releaseBody frees a body assembled from many reads, and zlib's buffer that holds a decoded one", async () => {
    const assembled = await fetchPage(at(HOSTILE_PATHS.bigImage), base);
    assert.equal(assembled.body?.length, 2 * 1024 * 1024);
    const decoded = await fetchPage(at(HOSTILE_PATHS.gzip), base);
    assert.deepEqual(decoded.body, HOSTILE_PAGE);
    releaseBody(assembled);
    releaseBody(decoded);
    assert.equal(assembled.body?.buffer.byteLength, 0, 'the 2 MiB body is freed (its buffer detached)');
    assert.equal(decoded.body?.buffer.byteLength, 0, "zlib's output buffer is freed");
  });

  test("releaseBody leaves alone a body that is a view of a socket read, which is not the fetcher's to free", async () => {
    const result = await fetchPage(at(HOSTILE_PATHS.ok), base);
    releaseBody(result);
    assert.deepEqual(result.body, HOSTILE_PAGE);
  });

  test('zlib-wrapped deflate whose first byte arrives alone is still recognised', async () => {
    const result = await fetchPage(at(HOSTILE_PATHS.deflateSplit), { ...base, keepRawBody: true });
    assert.deepEqual(result.body, HOSTILE_PAGE);
    assert.deepEqual(result.rawBody, ENCODED_PAGES.deflateZlib);
  });

  test('keepRawBody on an identity body returns the same bytes', async () => {
    const result = await fetchPage(at(HOSTILE_PATHS.ok), { ...base, keepRawBody: true });
    assert.deepEqual(result.rawBody, HOSTILE_PAGE);
    assert.deepEqual(result.body, HOSTILE_PAGE);
  });

  test('an empty body labelled gzip is an empty page, not an error', async () => {
    const result = await fetchPage(at(HOSTILE_PATHS.emptyGzip), base);
    assert.equal(result.contentEncoding, 'gzip');
    assert.equal(result.body?.length, 0);
  });

  test('a corrupt gzip stream: bad-encoding', async () => {
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.corruptGzip), base), 'bad-encoding', 1000);
    assert.equal(err.retryable, false);
  });

  test('two stacked codings are decoded', async () => {
    const result = await fetchPage(at(HOSTILE_PATHS.gzipThenBrotli), base);
    assert.deepEqual(result.body, HOSTILE_PAGE);
  });

  test('200 stacked gzip codings: bad-encoding, nothing decoded', async () => {
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.stackedGzip), base), 'bad-encoding', 1000);
    assert.match(err.message, /more than 2 codings/);
  });

  test('an unknown content-encoding: bad-encoding', async () => {
    await expectFailure(() => fetchPage(at(HOSTILE_PATHS.unknownEncoding), base), 'bad-encoding', 1000);
  });

  test('100 KiB of headers: too-large:headers', async () => {
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.hugeHeaders), base), 'too-large:headers', 1000);
    assert.equal(err.retryable, false);
  });

  test('a reset in the middle of the headers: connection-reset', async () => {
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.resetInHeaders), base), 'connection-reset', 1000);
    assert.equal(err.retryable, true);
  });

  test('a close in the middle of a Content-Length body: connection-reset', async () => {
    await expectFailure(() => fetchPage(at(HOSTILE_PATHS.closeInBody), base), 'connection-reset', 1000);
  });

  test('a reset in the middle of a chunked body: connection-reset', async () => {
    await expectFailure(() => fetchPage(at(HOSTILE_PATHS.resetInBody), base), 'connection-reset', 1000);
  });

  test('a redirect is returned with its resolved Location, not followed', async () => {
    const before = server.requestLog.length;
    const result = await fetchPage(at(HOSTILE_PATHS.redirect), base);
    assert.equal(result.status, 302);
    assert.equal(result.location, at(HOSTILE_PATHS.ok));
    assert.equal(result.headers.location, HOSTILE_PATHS.ok);
    assert.deepEqual(
      server.requestLog.slice(before).map((entry) => entry.path),
      [HOSTILE_PATHS.redirect],
    );
  });

  test('a lying content type: the bytes come back untouched', async () => {
    const result = await fetchPage(at(HOSTILE_PATHS.lyingType), base);
    assert.equal(result.contentType, 'text/html');
    assert.deepEqual(result.body, PNG_BYTES);
  });

  test('bodyLimits null skips a large body quickly', async () => {
    const seen: [number, string | undefined][] = [];
    const result = await timed(
      () =>
        fetchPage(at(HOSTILE_PATHS.bigImage), {
          ...base,
          bodyLimits: (status, contentType) => {
            seen.push([status, contentType]);
            return contentType?.startsWith('text/html') === true ? { maxBodyBytes: 1 << 20, maxDecodedBytes: 1 << 20 } : null;
          },
        }),
      1000,
    );
    assert.deepEqual(seen, [[200, 'image/png']]);
    assert.equal(result.bodySkipped, true);
    assert.equal(result.body, undefined);
    assert.ok(result.bytesReceived < 2 * 1024 * 1024);
  });

  test('a skipped small body is drained and its connection reused', async () => {
    const first = server.requestLog.length;
    const skipped = await fetchPage(at(HOSTILE_PATHS.smallImage), { ...base, bodyLimits: () => null });
    assert.equal(skipped.bodySkipped, true);
    assert.equal(skipped.bytesReceived, PNG_BYTES.length);
    await fetchPage(at(HOSTILE_PATHS.ok), base);
    const [a, b] = server.requestLog.slice(first);
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(a.connection, b.connection);
  });

  test('a reply that is not HTTP: protocol', async () => {
    const err = await expectFailure(() => fetchPage(at(HOSTILE_PATHS.garbage), base), 'protocol', 1000);
    assert.equal(err.retryable, false);
  });

  test('nothing listening: connection-refused', async () => {
    const port = await unusedPort();
    const err = await expectFailure(() => fetchPage(`http://127.0.0.1:${port}/`, base), 'connection-refused', 1000);
    assert.equal(err.retryable, true);
  });

  test('TLS spoken to a plain HTTP server: tls', async () => {
    const err = await expectFailure(() => fetchPage(`https://127.0.0.1:${server.port}/ok`, base), 'tls', 1000);
    assert.equal(err.retryable, false);
  });

  test('the caller aborting mid-body: aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const err = await expectFailure(
      () => fetchPage(at(HOSTILE_PATHS.slowloris), { ...base, bodyIdleTimeoutMs: 2000 }, controller.signal),
      'aborted',
      800,
    );
    assert.equal(err.retryable, false);
  });

  test('an already aborted signal sends nothing', async () => {
    const before = server.connectionCount();
    const logged = server.requestLog.length;
    await expectFailure(() => fetchPage(at(HOSTILE_PATHS.ok), base, AbortSignal.abort()), 'aborted', 250);
    assert.equal(server.connectionCount(), before);
    assert.equal(server.requestLog.length, logged);
  });

  test('a URL that is not http(s): invalid-request', async () => {
    await expectFailure(() => fetchPage('ftp://127.0.0.1/file', base), 'invalid-request', 250);
    await expectFailure(() => fetchPage('not a url', base), 'invalid-request', 250);
  });
});

describe('fetchPage over TLS', () => {
  const certificate = selfSignedCertificate();

  test('an untrusted self-signed certificate: tls', { skip: certificate === undefined ? 'openssl is not available' : false }, async () => {
    const server = await start({ tls: certificate as { key: string; cert: string } });
    const dispatcher = createDispatcher({ policy: { allowPrivate: true, allowedHosts: new Set() } });
    try {
      const err = await expectFailure(() => fetchPage(`${server.origin}${HOSTILE_PATHS.ok}`, { dispatcher, userAgent: USER_AGENT }), 'tls', 2000);
      assert.equal(err.retryable, false);
      assert.equal(server.requestLog.length, 0);
      assert.equal(server.connectionCount(), 1);
    } finally {
      await dispatcher.destroy();
      await server.close();
    }
  });
});

describe('SSRF guard at connect time', () => {
  let server: HostileServer;

  before(async () => {
    server = await start();
  });

  after(async () => {
    await server.close();
  });

  async function withDispatcher(options: Parameters<typeof createDispatcher>[0], run: (base: FetchOptions) => Promise<void>): Promise<void> {
    const dispatcher = createDispatcher(options);
    try {
      await run({ dispatcher, userAgent: USER_AGENT, headersTimeoutMs: 500, bodyIdleTimeoutMs: 500, totalTimeoutMs: 3000 });
    } finally {
      await dispatcher.destroy();
    }
  }

  test('a hostname resolving to loopback is refused and no connection is made', async () => {
    const calls: string[] = [];
    const resolve = resolverFor({ 'rebound.test': ['127.0.0.1'] }, calls);
    await withDispatcher({ policy: { allowPrivate: false, allowedHosts: new Set() }, resolve }, async (base) => {
      const connections = server.connectionCount();
      const err = await expectFailure(() => fetchPage(`http://rebound.test:${server.port}/ok`, base), 'ssrf:blocked', 1000);
      assert.equal(err.retryable, false);
      assert.equal(err.context.address, '127.0.0.1');
      assert.deepEqual(err.context.kinds, ['loopback']);
      assert.deepEqual(calls, ['rebound.test'], 'the refusal came from the resolved address');
      assert.equal(server.connectionCount(), connections);
    });
  });

  test('an IP literal is refused before connecting, without DNS', async () => {
    const calls: string[] = [];
    await withDispatcher({ policy: { allowPrivate: false, allowedHosts: new Set() }, resolve: resolverFor({}, calls) }, async (base) => {
      const connections = server.connectionCount();
      const v4 = await expectFailure(() => fetchPage(`http://127.0.0.1:${server.port}/ok`, base), 'ssrf:blocked', 1000);
      assert.equal(v4.context.address, '127.0.0.1');
      const v6 = await expectFailure(() => fetchPage(`http://[::1]:${server.port}/ok`, base), 'ssrf:blocked', 1000);
      assert.equal(v6.context.address, '::1');
      const mapped = await expectFailure(() => fetchPage(`http://[::ffff:127.0.0.1]:${server.port}/ok`, base), 'ssrf:blocked', 1000);
      assert.deepEqual(mapped.context.kinds, ['loopback']);
      assert.deepEqual(calls, []);
      assert.equal(server.connectionCount(), connections);
    });
  });

  test('a seed host in allowedHosts is let through, and the policy is read live', async () => {
    const allowedHosts = new Set<string>();
    const resolve = resolverFor({ 'seed.test': ['127.0.0.1'] });
    await withDispatcher({ policy: { allowPrivate: false, allowedHosts }, resolve }, async (base) => {
      const url = `http://seed.test:${server.port}/ok`;
      await expectFailure(() => fetchPage(url, base), 'ssrf:blocked', 1000);
      allowedHosts.add('seed.test');
      const logged = server.requestLog.length;
      const result = await fetchPage(url, base);
      assert.equal(result.status, 200);
      assert.deepEqual(result.body, HOSTILE_PAGE);
      assert.equal(server.requestLog[logged]?.headers.host, `seed.test:${server.port}`);
    });
  });

  test('allowPrivate lifts the guard for every host', async () => {
    const resolve = resolverFor({ 'intranet.test': ['127.0.0.1'] });
    await withDispatcher({ policy: { allowPrivate: true, allowedHosts: new Set() }, resolve }, async (base) => {
      const result = await fetchPage(`http://intranet.test:${server.port}/ok`, base);
      assert.equal(result.status, 200);
    });
  });

  test('a name that does not resolve: dns, retryable', async () => {
    await withDispatcher({ policy: { allowPrivate: true, allowedHosts: new Set() }, resolve: resolverFor({}) }, async (base) => {
      const err = await expectFailure(() => fetchPage('http://nowhere.test/', base), 'dns', 1000);
      assert.equal(err.retryable, true);
      assert.equal(err.context.code, 'ENOTFOUND');
    });
  });

  test('a connect phase that never completes: timeout:connect', async () => {
    const hang: HostResolver = () => new Promise(() => {});
    await withDispatcher({ policy: { allowPrivate: true, allowedHosts: new Set() }, resolve: hang, connectTimeoutMs: 200 }, async (base) => {
      const err = await expectFailure(() => fetchPage('http://hang.test/', base), 'timeout:connect', UNDICI_TIMER_SLACK_MS + 200);
      assert.equal(err.retryable, true);
    });
  });
});
