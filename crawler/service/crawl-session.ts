import { CrawlEngine, type RunOutcome } from '../engine/engine.ts';
import { CrawlPolicy, RefreshPolicy, type RefreshRun } from '../engine/run-policy.ts';
import { finishRefresh } from '../engine/refresh-run.ts';
import { urlRows } from '../library/find-url.ts';
import { collectionStats, harvestSeries } from '../library/stats.ts';
import type { CrawlSettings, RenderMode } from '../protocol/settings.ts';
import type { Db } from '../store/database.ts';
import type { WriterLock } from '../store/writer-lock.ts';
import { storeErrorOf } from '../store/store-error.ts';
import {
  PROXY_UNREACHABLE_OUTCOME, STORE_ERROR_OUTCOME, type CrawlProblem, type CrawlState, type CrawlStatus, type FrontierItem, type HarvestPoint, type HostActivity, type RefreshInfo, type RevisitCounts,
} from '../protocol/api.ts';

const MAX_PROBLEMS = 50;
const MAX_SERIES_POINTS = 200;
const MAX_HOSTS = 20;

/**
 * Keeps a harvest series of bounded length while pages stream in: one point every `step`
 * pages; when the series is full, every other point goes and the step doubles.
 */
export class HarvestSeries {
  #points: HarvestPoint[];
  #step: number;
  #fetched: number;
  #hot: number;

  constructor(initial: HarvestPoint[]) {
    this.#points = [...initial];
    const last = initial[initial.length - 1];
    this.#fetched = last?.fetched ?? 0;
    this.#hot = last?.hot ?? 0;
    this.#step = Math.max(1, Math.ceil(this.#fetched / (MAX_SERIES_POINTS / 2)));
  }

  add(hot: boolean): void {
    this.#fetched++;
    if (hot) this.#hot++;
    if (this.#fetched % this.#step !== 0) return;
    this.#points.push({ fetched: this.#fetched, hot: this.#hot, harvestRate: this.#hot / this.#fetched });
    if (this.#points.length >= MAX_SERIES_POINTS) {
      this.#points = this.#points.filter((_, i) => i % 2 === 1);
      this.#step *= 2;
    }
  }

  /** The points, ending with the current count even between steps. */
  points(): HarvestPoint[] {
    const last = this.#points[this.#points.length - 1];
    if (this.#fetched === 0 || last?.fetched === this.#fetched) return [...this.#points];
    return [...this.#points, { fetched: this.#fetched, hot: this.#hot, harvestRate: this.#hot / this.#fetched }];
  }
}

/**
 * One collection's crawl inside the service: the engine while it runs, and what the
 * dashboard shows (figures, series, hosts, recent problems) whether it runs or not.
 */
export class CrawlSession {
  readonly collection: string;
  readonly #db: Db;
  #engine: CrawlEngine | undefined;
  #state: CrawlState = 'idle';
  #lastOutcome: string | null = null;
  /** Why the last run rendered no pages although asked to, kept for the dashboard once it ends. */
  #lastRenderNotice: string | undefined;
  /** Built from the store when first needed, and afresh at each start (labels may have changed hot flags). */
  #series: HarvestSeries | undefined;
  readonly #problems: CrawlProblem[] = [];
  #settings: CrawlSettings | undefined;
  /** The refresh running, or the last run's when it was one. */
  #refresh: RefreshRun | undefined;
  /** The last run's revisit counts, shown once it has ended. */
  #lastRevisits: RevisitCounts | undefined;
  /** The collection's writer lock while a run holds it. */
  #lock: WriterLock | undefined;

  constructor(collection: string, db: Db) {
    this.collection = collection;
    this.#db = db;
  }

  get state(): CrawlState {
    return this.#state;
  }

  /**
   * Starts the engine, for a crawl or the refresh given, holding the collection's writer lock
   * `lock` (released when the run ends); `finished` is called once the run ends, however it ends.
   */
  start(settings: CrawlSettings, finished: () => void, lock: WriterLock, refresh?: RefreshRun): void {
    if (this.#engine !== undefined) {
      lock.release();
      return;
    }
    this.#settings = settings;
    this.#refresh = refresh;
    this.#lastRevisits = undefined;
    let series: HarvestSeries;
    let engine: CrawlEngine;
    try {
      series = this.#storedSeries();
      this.#series = series;
      const policy = refresh === undefined ? new CrawlPolicy(settings, { locksCollection: false }) : new RefreshPolicy(refresh, { locksCollection: false });
      engine = new CrawlEngine(this.#db, settings, { policy });
    } catch (err) {
      lock.release();
      throw err;
    }
    engine.on('page', (page) => series.add(page.hot));
    engine.on('failure', (failure) => {
      if (!failure.willRetry) this.#problem('failure', failure.url, failure.reason);
    });
    engine.on('blocked', (blocked) => this.#problem('robots', blocked.url, blocked.reason));
    engine.on('state', (state) => {
      if (this.#state !== 'stopping') this.#state = state;
    });
    this.#engine = engine;
    this.#lock = lock;
    this.#state = 'running';
    this.#lastOutcome = null;
    this.#lastRenderNotice = undefined;
    engine.run().then(
      (outcome: RunOutcome) => this.#ended(this.#afterRun(outcome, engine), finished),
      (err: unknown) => this.#ended(`the crawl stopped on an error: ${err instanceof Error ? err.message : String(err)}`, finished),
    );
  }

  /** The outcome in words; a refresh that ran to its end is over in the collection too (a stopped one goes on next time). */
  #afterRun(outcome: RunOutcome, engine: CrawlEngine): string {
    if (outcome === 'store-error') return `${STORE_ERROR_OUTCOME}${engine.storeError?.message ?? 'unknown'}`;
    if (outcome === 'proxy-unreachable') return `${PROXY_UNREACHABLE_OUTCOME}${engine.proxyError?.message ?? 'unknown'}`;
    if (this.#refresh === undefined) return outcome;
    try {
      finishRefresh(this.#db, outcome);
    } catch (err) {
      const storeError = storeErrorOf(err);
      if (storeError !== undefined) return `${STORE_ERROR_OUTCOME}${storeError.message}`;
      return `the refresh could not be closed: ${err instanceof Error ? err.message : String(err)}`;
    }
    return outcome;
  }

  pause(): void {
    this.#engine?.pause();
  }

  resume(): void {
    this.#engine?.resume();
  }

  stop(): void {
    if (this.#engine === undefined) return;
    this.#state = 'stopping';
    this.#engine.stop();
  }

  /** Cancels requests in flight too, for shutting the service down. */
  abort(): void {
    if (this.#engine === undefined) return;
    this.#state = 'stopping';
    this.#engine.abort();
  }

  status(maxPages: number): CrawlStatus {
    const engine = this.#engine;
    const stats = engine?.stats() ?? collectionStats(this.#db);
    // The dashboard's figures are the stats less the engine's diagnostics.
    const { hosts: _hosts, seenCacheHitRate: _hitRate, orderingMs: _orderingMs, ...figures } = stats;
    const renderNotice = engine?.renderNotice ?? this.#lastRenderNotice;
    if (renderNotice !== undefined) figures.renderNotice = renderNotice;
    const revisits = figures.revisits ?? this.#lastRevisits;
    if (revisits !== undefined) figures.revisits = revisits;
    const hosts: HostActivity[] = engine?.hostActivity(MAX_HOSTS) ?? [];
    const refresh = this.#refresh;
    const refreshInfo: RefreshInfo | null =
      refresh === undefined ? null : { since: new Date(refresh.since).toISOString(), maxFetches: refresh.maxFetches, origins: [...(refresh.origins ?? [])] };
    return {
      collection: this.collection,
      state: this.#state,
      refresh: refreshInfo,
      lastOutcome: this.#lastOutcome,
      maxPages: this.#settings?.maxPages ?? maxPages,
      figures,
      series: (this.#series ??= this.#storedSeries()).points(),
      hosts,
      problems: [...this.#problems].reverse(),
    };
  }

  /** Tells a running crawl how to render one host from now on. */
  setHostRender(host: string, mode: RenderMode | null): void {
    this.#engine?.setHostRenderMode(host, mode);
  }

  /** Tells a running crawl about a label the service just stored (see CrawlEngine.applyLabel). */
  applyLabel(urlId: number, relevant: boolean | null, hotChange: number): void {
    this.#engine?.applyLabel(urlId, relevant, hotChange);
  }

  /** The best queued URLs with the strategy's explanation; empty when no crawl runs (the frontier lives in the engine). */
  frontier(limit: number): FrontierItem[] {
    const engine = this.#engine;
    if (engine === undefined) return [];
    const top = engine.frontierTop(limit);
    if (top.length === 0) return [];
    const rows = urlRows(this.#db, top.map((t) => t.urlId));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return top.flatMap((t) => {
      const row = byId.get(t.urlId);
      if (row === undefined) return [];
      return [{ url: row.url, depth: row.depth, priority: t.priority, signals: engine.explain(t.urlId).signals }];
    });
  }

  #storedSeries(): HarvestSeries {
    return new HarvestSeries(harvestSeries(this.#db, MAX_SERIES_POINTS / 2));
  }

  #problem(kind: CrawlProblem['kind'], url: string, reason: string): void {
    this.#problems.push({ at: new Date().toISOString(), url, kind, reason });
    if (this.#problems.length > MAX_PROBLEMS) this.#problems.shift();
  }

  #ended(outcome: string, finished: () => void): void {
    this.#lock?.release();
    this.#lock = undefined;
    this.#lastRenderNotice = this.#engine?.renderNotice;
    this.#lastRevisits = this.#engine?.stats().revisits;
    this.#engine = undefined;
    this.#state = 'idle';
    this.#lastOutcome = outcome;
    finished();
  }
}
