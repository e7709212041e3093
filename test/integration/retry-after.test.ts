/*
 * 429 and 503 with Retry-After: the host is left alone as long as the server asks (within
 * maxRetryAfterMs), then the URL is tried again; a longer wait is recorded as a failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UrlState } from '../../crawler/store/url-state.ts';
import { crawlOnce, tempDir, testSettings, urlRecord } from '../support/crawl-harness.ts';
import { html, startTestSite, type Handler } from '../support/test-site.ts';

test('a 429 with Retry-After: 1 is retried after a second, and the host waits meanwhile', async () => {
  const times: Record<string, number[]> = {};
  let limited = 0;
  const timed = (path: string, handler: Handler): Handler => (req, res) => {
    (times[path] ??= []).push(Date.now());
    handler(req, res);
  };
  const site = await startTestSite({
    '/': html('<a href="/busy">busy</a> <a href="/other">other</a>'),
    '/busy': timed('/busy', (req, res) => {
      if (limited++ === 0) res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down');
      else html('<p>now</p>')(req, res);
    }),
    '/other': timed('/other', html('<p>other</p>')),
  });
  const dir = tempDir('forager-retry-after-');
  try {
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { allowPrivate: true, maxRetries: 2, maxRetryAfterMs: 5_000, strategy: 'bfs' }));
    assert.equal(urlRecord(run.db, `${site.origin}/busy`)?.state, UrlState.fetched);
    const [first, second] = times['/busy'] ?? [];
    assert.ok(first !== undefined && second !== undefined, JSON.stringify(times));
    assert.ok(second - first >= 950, `retried after ${second - first} ms`);
    const other = times['/other']?.[0] ?? 0;
    assert.ok(other < first || other >= first + 950, 'no other URL of the host was fetched during the wait');
    run.db.close();
  } finally {
    await site.close();
    dir.cleanup();
  }
});

test('a Retry-After longer than maxRetryAfterMs is a failure, not a wait', async () => {
  let asked = 0;
  const site = await startTestSite({
    '/': html('<a href="/down">down</a>'),
    '/down': (_req, res) => {
      asked++;
      res.writeHead(503, { 'retry-after': '3600', 'content-type': 'text/plain' }).end('maintenance');
    },
  });
  const dir = tempDir('forager-retry-after-');
  try {
    const started = Date.now();
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { allowPrivate: true, maxRetries: 2, maxRetryAfterMs: 5_000 }));
    assert.equal(asked, 1);
    assert.deepEqual(urlRecord(run.db, `${site.origin}/down`), { url: `${site.origin}/down`, state: UrlState.failed, reason: 'http:503:retry-after-too-long', depth: 1 });
    // The host's other URLs (its /sitemap.xml) wait the cap, as the server asked for longer; nothing waits the hour.
    assert.ok(Date.now() - started < 10_000, 'the crawl did not wait the hour');
    run.db.close();
  } finally {
    await site.close();
    dir.cleanup();
  }
});
