import type { CrawlStats } from '../protocol/crawl-stats.ts';
import type { CrawlCounts } from '../store/crawl-counts.ts';
import { UrlState, type UrlStateValue } from '../store/url-state.ts';

/** What was fetched over a span of time: one live run's, or all stored runs' together. */
export interface FetchFigures {
  /** Fetches made (a live run counts its revisits too). */
  fetches: number;
  bytes: number;
  elapsedMs: number;
  seenLookups: number;
  seenHits: number;
}

/** The counts a collection's stats are figured from. */
export interface StatsCounts {
  /** The pages stored, and the hot, rendered and document pages among them. */
  pages: CrawlCounts;
  /** URLs per state. */
  urls: ReadonlyMap<UrlStateValue, number>;
  /** URLs being fetched. */
  inflight: number;
  hosts: number;
  fetched: FetchFigures;
}

/**
 * CrawlStats from counts: one rule for the engine's live figures and for a collection's
 * at rest (`forager stats`, the dashboard), so that the two say the same of the same crawl.
 */
export function crawlStats({ pages, urls, inflight, hosts, fetched }: StatsCounts): CrawlStats {
  const n = (state: UrlStateValue): number => urls.get(state) ?? 0;
  return {
    fetched: pages.pages,
    hot: pages.hot,
    harvestRate: ratio(pages.hot, pages.pages),
    queued: n(UrlState.queued) + n(UrlState.inflight),
    inflight,
    failed: n(UrlState.failed),
    robotsBlocked: n(UrlState.robotsBlocked),
    skipped: n(UrlState.skipped),
    hosts,
    seenCacheHitRate: ratio(fetched.seenHits, fetched.seenLookups),
    pagesPerSecond: ratio(fetched.fetches, fetched.elapsedMs / 1000),
    bytesFetched: fetched.bytes,
    elapsedMs: fetched.elapsedMs,
    rendered: pages.rendered,
    documents: pages.documents,
  };
}

/** part / whole; 0 when there is no whole yet. */
function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}
