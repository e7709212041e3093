import type { Db } from '../store/database.ts';
import { runTotals } from '../store/run-store.ts';
import { UrlState } from '../store/url-state.ts';
import { UrlStore } from '../store/url-store.ts';

/** The figures `forager stats` and `crawl --json` report. */
export interface CrawlStats {
  /** Responses stored (pages rows), whatever their status. */
  fetched: number;
  /** Fetched pages judged hot (on topic). */
  hot: number;
  /** hot / fetched. */
  harvestRate: number;
  /** URLs waiting in the frontier, including any in flight. */
  queued: number;
  inflight: number;
  /** URLs given up on after their attempts (network errors, 5xx). */
  failed: number;
  robotsBlocked: number;
  /** URLs recorded but not fetched: out of scope, too deep, traps, too many redirects. */
  skipped: number;
  hosts: number;
  seenCacheHitRate: number;
  pagesPerSecond: number;
  bytesFetched: number;
  elapsedMs: number;
  /** Of elapsedMs, the time spent judging pages and ordering URLs (live runs only). */
  orderingMs?: number;
}

/** Stats of a collection at rest, from what is stored. */
export function collectionStats(db: Db): CrawlStats {
  const counts = new UrlStore(db).countsByState();
  const n = (s: number): number => counts.get(s as never) ?? 0;
  const totals = runTotals(db);
  const fetched = db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  const hot = db.prepare('SELECT count(*) FROM pages WHERE hot = 1').pluck().get() as number;
  const hosts = db.prepare('SELECT count(*) FROM hosts').pluck().get() as number;
  return {
    fetched,
    hot,
    harvestRate: fetched === 0 ? 0 : hot / fetched,
    queued: n(UrlState.queued) + n(UrlState.inflight),
    inflight: n(UrlState.inflight),
    failed: n(UrlState.failed),
    robotsBlocked: n(UrlState.robotsBlocked),
    skipped: n(UrlState.skipped),
    hosts,
    seenCacheHitRate: totals.seenLookups === 0 ? 0 : totals.seenHits / totals.seenLookups,
    pagesPerSecond: totals.seconds === 0 ? 0 : totals.pages / totals.seconds,
    bytesFetched: totals.bytes,
    elapsedMs: Math.round(totals.seconds * 1000),
  };
}

export interface HarvestPoint {
  fetched: number;
  hot: number;
  harvestRate: number;
}

/** Hot pages and harvest rate over pages fetched, sampled at no more than `points` places. */
export function harvestSeries(db: Db, points = 50): HarvestPoint[] {
  const hotFlags = db.prepare('SELECT hot FROM pages ORDER BY seq').pluck().all() as number[];
  const step = Math.max(1, Math.ceil(hotFlags.length / points));
  const series: HarvestPoint[] = [];
  let hot = 0;
  hotFlags.forEach((flag, i) => {
    hot += flag;
    const fetched = i + 1;
    if (fetched % step === 0 || fetched === hotFlags.length) series.push({ fetched, hot, harvestRate: hot / fetched });
  });
  return series;
}
