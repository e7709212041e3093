import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crawlStats, type StatsCounts } from '../../../../crawler/library/crawl-stats.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';

const COUNTS: StatsCounts = {
  pages: { pages: 40, hot: 10, rendered: 3, documents: 2 },
  urls: new Map([
    [UrlState.queued, 7],
    [UrlState.inflight, 2],
    [UrlState.fetched, 40],
    [UrlState.failed, 4],
    [UrlState.robotsBlocked, 5],
    [UrlState.skipped, 6],
  ]),
  inflight: 2,
  hosts: 3,
  fetched: { fetches: 30, bytes: 9_000, elapsedMs: 12_000, seenLookups: 80, seenHits: 20 },
};

test('the stats are figured from the counts', () => {
  assert.deepEqual(crawlStats(COUNTS), {
    fetched: 40,
    hot: 10,
    harvestRate: 0.25,
    queued: 9,
    inflight: 2,
    failed: 4,
    robotsBlocked: 5,
    skipped: 6,
    hosts: 3,
    seenCacheHitRate: 0.25,
    pagesPerSecond: 2.5,
    bytesFetched: 9_000,
    elapsedMs: 12_000,
    rendered: 3,
    documents: 2,
  });
});

test('with nothing fetched yet the rates are 0, not NaN', () => {
  const stats = crawlStats({
    pages: { pages: 0, hot: 0, rendered: 0, documents: 0 },
    urls: new Map(),
    inflight: 0,
    hosts: 0,
    fetched: { fetches: 0, bytes: 0, elapsedMs: 0, seenLookups: 0, seenHits: 0 },
  });
  assert.deepEqual([stats.harvestRate, stats.seenCacheHitRate, stats.pagesPerSecond, stats.queued], [0, 0, 0, 0]);
});
