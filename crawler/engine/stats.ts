import type { Db } from '../store/database.ts';
import type { CrawlStats, HarvestPoint } from '../protocol/crawl-stats.ts';
import { runTotals } from '../store/run-store.ts';
import { UrlState } from '../store/url-state.ts';
import { UrlStore } from '../store/url-store.ts';

export type { CrawlStats, HarvestPoint };

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
