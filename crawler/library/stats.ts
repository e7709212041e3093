import { crawlCounts } from '../store/crawl-counts.ts';
import { crawlStats } from './crawl-stats.ts';
import { OUT_OF_SCOPE_ORIGIN } from '../store/host-store.ts';
import type { CrawlStats, HarvestPoint, RevisitCounts } from '../protocol/crawl-stats.ts';
import { hasVersions } from '../store/stored-body.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { UrlState, type UrlStateValue } from '../store/url-state.ts';

/*
 * A collection's figures at rest, from what is stored: the stats (`forager stats`, the
 * dashboard of a collection that is not crawling), the harvest series, the runs' totals,
 * and the summary the collection list shows.
 */

export interface RunTotals {
  pages: number;
  bytes: number;
  seconds: number;
  seenLookups: number;
  seenHits: number;
}

/** The runs' counters added up. */
export function runTotals(db: ReadonlyDb): RunTotals {
  const row = db
    .prepare(
      `SELECT coalesce(sum(pages), 0) AS pages, coalesce(sum(bytes), 0) AS bytes,
              coalesce(sum(max(coalesce(ended_at, started_at) - started_at, 0)), 0) / 1000.0 AS seconds,
              coalesce(sum(seen_lookups), 0) AS seenLookups, coalesce(sum(seen_hits), 0) AS seenHits FROM runs`,
    )
    .get() as RunTotals;
  return row;
}

/** URLs per state, counted from the table (a full scan). */
function urlCountsByState(db: ReadonlyDb): Map<UrlStateValue, number> {
  const rows = db.prepare('SELECT state, count(*) AS n FROM urls GROUP BY state').all() as { state: UrlStateValue; n: number }[];
  return new Map(rows.map((r) => [r.state, r.n]));
}

/**
 * Every revisit the collection's refreshes made, by outcome (all runs together, where
 * CrawlStats.revisits is one run's), and the revisits still waiting (a stopped refresh's);
 * undefined for a collection never refreshed (or older than versions).
 */
export function storedRevisitCounts(db: ReadonlyDb): RevisitCounts | undefined {
  if (!hasVersions(db)) return undefined;
  const rows = db.prepare('SELECT outcome, count(*) AS n FROM revisits GROUP BY outcome').all() as { outcome: string; n: number }[];
  const queued = db.prepare(`SELECT count(*) FROM urls WHERE state IN (${UrlState.queued}, ${UrlState.inflight}) AND id IN (SELECT url_id FROM pages)`).pluck().get() as number;
  if (rows.length === 0 && queued === 0) return undefined;
  const n = (outcome: string): number => rows.find((row) => row.outcome === outcome)?.n ?? 0;
  return { notModified: n('not-modified'), identical: n('identical'), changed: n('changed'), gone: n('gone'), queued };
}

/** Stats of a collection at rest, from what is stored. */
export function collectionStats(db: ReadonlyDb): CrawlStats {
  const urls = urlCountsByState(db);
  const totals = runTotals(db);
  const hosts = db.prepare('SELECT count(*) FROM hosts WHERE origin <> ?').pluck().get(OUT_OF_SCOPE_ORIGIN) as number;
  return crawlStats({
    pages: crawlCounts(db),
    urls,
    inflight: urls.get(UrlState.inflight) ?? 0,
    hosts,
    fetched: { fetches: totals.pages, bytes: totals.bytes, elapsedMs: Math.round(totals.seconds * 1000), seenLookups: totals.seenLookups, seenHits: totals.seenHits },
  });
}

/** Hot pages and harvest rate over pages fetched, sampled at no more than `points` places. */
export function harvestSeries(db: ReadonlyDb, points = 50): HarvestPoint[] {
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

export interface CollectionSummary {
  pages: number;
  hot: number;
  /** Epoch ms of the first run's start, or of the first page when no run is recorded (an import); null for neither. */
  createdAt: number | null;
  /** Epoch ms of the last page fetched; null before any. */
  lastCrawledAt: number | null;
}

/** What the collection list shows of a collection. */
export function collectionSummary(db: ReadonlyDb): CollectionSummary {
  const counts = db.prepare('SELECT count(*) AS pages, coalesce(sum(hot), 0) AS hot, min(fetched_at) AS first, max(fetched_at) AS last FROM pages').get() as { pages: number; hot: number; first: number | null; last: number | null };
  const created = db.prepare('SELECT min(started_at) FROM runs').pluck().get() as number | null;
  return { pages: counts.pages, hot: counts.hot, createdAt: created ?? counts.first, lastCrawledAt: counts.last };
}

export interface LastRun {
  startedAt: number;
  /** When its counters were last saved; null before the first save. */
  endedAt: number | null;
  /** How it ended; null while it runs (or when it was killed). */
  outcome: string | null;
}

/** The latest engine run, if any. */
export function lastRun(db: ReadonlyDb): LastRun | undefined {
  return db.prepare('SELECT ended_at AS endedAt, started_at AS startedAt, outcome FROM runs ORDER BY id DESC LIMIT 1').get() as LastRun | undefined;
}
