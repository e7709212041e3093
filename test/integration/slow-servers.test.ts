/*
 * A server that takes seconds to answer holds one request, not the crawl: past the slow
 * threshold its request steps aside and other hosts are fetched meanwhile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SLOW_REQUEST_MS } from '../../crawler/engine/request-slots.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { crawlOnce, tempDir, testSettings, urlRecord } from '../support/crawl-harness.ts';
import { html, startTestSite } from '../support/test-site.ts';

test('with concurrency 1, a tarpit answering after 4 s does not hold up another host', async () => {
  const answerAfterMs = SLOW_REQUEST_MS + 2_000;
  let tarpitAnsweredAt = 0;
  const fastRequestedAt: number[] = [];
  const fast = await startTestSite({
    '/': html('<a href="/1">one</a> <a href="/2">two</a> <a href="/3">three</a>'),
  }, (req, res) => {
    fastRequestedAt.push(Date.now());
    html(`<p>${req.url ?? ''}</p>`)(req, res);
  });
  const tarpit = await startTestSite({
    '/': html(`<a href="/slow">slow</a> <a href="${fast.origin}/">elsewhere</a>`),
    '/slow': (_req, res) => {
      setTimeout(() => {
        tarpitAnsweredAt = Date.now();
        html('<p>at last</p>')(_req, res);
      }, answerAfterMs);
    },
  });
  const dir = tempDir('forager-slow-servers-');
  try {
    const settings = testSettings([`${tarpit.origin}/`], {
      allowPrivate: true, scope: 'any', concurrency: 1, strategy: 'bfs', headersTimeoutMs: answerAfterMs + 2_000, totalTimeoutMs: answerAfterMs + 4_000,
    });
    const run = await crawlOnce(dir.dir, settings);
    assert.equal(urlRecord(run.db, `${tarpit.origin}/slow`)?.state, UrlState.fetched, 'the slow page is still fetched');
    for (const page of ['/1', '/2', '/3']) assert.equal(urlRecord(run.db, `${fast.origin}${page}`)?.state, UrlState.fetched, page);
    const pages = fastRequestedAt.filter((at) => at > 0);
    assert.ok(pages.length >= 3, `${pages.length} requests to the other host`);
    assert.ok(Math.max(...pages) < tarpitAnsweredAt, `the other host's pages came ${Math.max(...pages) - tarpitAnsweredAt} ms after the tarpit answered`);
    run.db.close();
  } finally {
    await tarpit.close();
    await fast.close();
    dir.cleanup();
  }
});
