// Plain data with no imports: the UI's API (service/api.ts) uses these types too.

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
  /** Fetched pages stored with the DOM a browser rendered (see --render). */
  rendered: number;
  /** Of fetched, the documents (PDF, plain text) read as such (see --documents). */
  documents: number;
  /** Why pages are not rendered although the settings ask for it (no browser, or one that would not start); live runs only. */
  renderNotice?: string;
  /** Of elapsedMs, the time spent judging pages and ordering URLs (live runs only). */
  orderingMs?: number;
  /** This run's revisits of stored pages, by what they found (live runs that revisit only). */
  revisits?: RevisitCounts;
}

/** Revisits of stored pages by outcome: a 304, a 200 with the same payload, a new version, a page gone (404, 410, a soft 404). */
export interface RevisitCounts {
  notModified: number;
  identical: number;
  changed: number;
  gone: number;
  /** Revisits still waiting in the frontier. */
  queued: number;
}

export interface HarvestPoint {
  fetched: number;
  hot: number;
  harvestRate: number;
}
