/*
 * The one API the user interface speaks. Two transports carry exactly this API: the
 * loopback HTTP server of `forager serve` (service/http) and Electron's preload bridge
 * (electron/). Every method takes one plain JSON object and returns plain JSON, so
 * both transports can validate what comes in (schema.ts) and pass results through as is.
 */
import type { ClusterStatusAnswer } from './cluster-status.ts';
import type { CrawlStats, HarvestPoint } from './crawl-stats.ts';
import type { LabReport } from './lab-report.ts';
import type { ErrorCode } from './error-codes.ts';
import type { SignalExplanation } from './explanation.ts';
import type { CrawlSettings, NewCrawlSettingKey, RenderMode } from './settings.ts';

// This file is imported by the renderer too, so it imports nothing that needs Node.
export type { HarvestPoint };
export type { ClusterRunState, ClusterStatusAnswer, ClusterStatusView, ClusterWorkerView } from './cluster-status.ts';
export type { BudgetResult as LabBudgetResult, LabReport, LabStrategyReport as LabStrategyResult } from './lab-report.ts';

/** A collection is one SQLite file; its id is the file name without `.forager`. */
export interface CollectionInfo {
  id: string;
  /** The driving query, or null for a file that holds no crawl yet. */
  query: string | null;
  seeds: string[];
  pages: number;
  hot: number;
  bytesOnDisk: number;
  createdAt: string | null;
  lastCrawledAt: string | null;
  /** Whether a crawl of it runs in this service now. */
  crawl: CrawlState;
  /** Why the file cannot be used (corrupt, not a collection, newer schema), in words; null when it is fine. */
  problem: string | null;
}

export type CrawlState = 'idle' | 'running' | 'paused' | 'stopping';

/**
 * What the "New crawl" form sends: the query, the seeds and the settings of NEW_CRAWL_SETTINGS
 * (protocol/settings.ts, whose schema gives their types and limits); every setting left out
 * has its default.
 */
export interface NewCollectionInput extends Pick<CrawlSettings, 'query' | 'seeds'>, Partial<Pick<CrawlSettings, NewCrawlSettingKey>> {
  /** File name to use; derived from the query when omitted. Letters, digits, '-', '_' and spaces. */
  name?: string;
  /** Start crawling at once (default true). */
  start?: boolean;
}

export interface CollectionRef {
  collection: string;
}

/** A crawl's figures as the dashboard shows them: the engine's stats less its diagnostics. */
export type CrawlFigures = Omit<CrawlStats, 'hosts' | 'seenCacheHitRate' | 'orderingMs'>;

export interface HostActivity {
  origin: string;
  queued: number;
  /** The ordering's priority of the host's best queued URL (as explain gives it), or null when none is queued. */
  bestPriority: number | null;
  pagesFetched: number;
  /** The host's share of the pages fetched from every host the crawl knows, in [0, 1]. */
  fetchShare: number;
  /** ISO time before which the host may not be asked again (politeness), or null when it may be now. */
  nextAllowedAt: string | null;
  inFlight: boolean;
  /** The render mode set for this host, or null when it has the crawl's own. */
  render: RenderMode | null;
}

export interface CrawlProblem {
  at: string;
  url: string;
  /** 'failure' (network, HTTP), 'robots' (blocked by robots.txt) or 'skipped' (scope, traps). */
  kind: 'failure' | 'robots' | 'skipped';
  reason: string;
}

/** How lastOutcome starts when a run paused because the collection could not be written; the reason follows. */
export const STORE_ERROR_OUTCOME = 'store-error: ';

export interface CrawlStatus {
  collection: string;
  state: CrawlState;
  /** Why the last run ended, when it did ('budget', 'exhausted', 'stopped', STORE_ERROR_OUTCOME + reason, or an error message). */
  lastOutcome: string | null;
  maxPages: number;
  figures: CrawlFigures;
  /** Harvest rate and hot pages over pages fetched, for the live chart. */
  series: HarvestPoint[];
  hosts: HostActivity[];
  problems: CrawlProblem[];
}

export interface FrontierInput extends CollectionRef {
  limit?: number;
}

export interface FrontierItem {
  url: string;
  priority: number;
  depth: number;
  signals: SignalExplanation[];
}

export type PageSort = 'relevance' | 'time' | 'url';

export interface PageListInput extends CollectionRef {
  sort?: PageSort;
  hotOnly?: boolean;
  /** Only pages whose URL or title contains this text. */
  filter?: string;
  offset?: number;
  limit?: number;
}

export type LabelValue = 'relevant' | 'irrelevant' | null;

export interface PageRow {
  seq: number;
  url: string;
  title: string | null;
  status: number;
  relevance: number | null;
  hot: boolean;
  label: LabelValue;
  depth: number;
  fetchedAt: string;
  contentType: string | null;
  /** The earlier page this one repeats: the same body ('exact') or nearly the same text ('near'). */
  duplicate: { kind: 'exact' | 'near'; of: string } | null;
  /** A 200 that looks like the host's answer for a page that does not exist. */
  soft404: boolean;
}

export interface PageList {
  total: number;
  offset: number;
  pages: PageRow[];
}

export interface SearchInput extends CollectionRef {
  text: string;
  limit?: number;
}

export interface SearchResult {
  seq: number;
  url: string;
  title: string | null;
  /** Plain text with the matched words between U+E000 and U+E001 (never HTML: the UI marks them). */
  snippet: string;
  relevance: number | null;
  hot: boolean;
}

export interface PageRef extends CollectionRef {
  seq: number;
}

export interface PageDetail extends PageRow {
  /** Where the page's HTML can be shown (sanitised), relative to the transport's page origin. */
  viewPath: string | null;
  outlinks: number;
  inCollectionOutlinks: number;
  note: string | null;
}

export interface HostRenderInput extends CollectionRef {
  /** The host name (as in a URL, without scheme or port). */
  host: string;
  /** null gives the host the crawl's own mode again. */
  mode: RenderMode | null;
}

export interface LabelInput extends PageRef {
  /** null clears the label: the judge's own verdict stands again. */
  label: 'relevant' | 'irrelevant' | null;
}

/** A mirror is delivered as a zip of the pages' sanitised HTML with an index.html. */
export type ExportFormat = 'warc' | 'wacz' | 'jsonl' | 'csv' | 'mirror';

/** Which pages an export takes. Every condition given must hold. */
export interface ExportFilter {
  hotOnly?: boolean;
  minRelevance?: number;
  /** Only pages the user labelled relevant. */
  labelledRelevant?: boolean;
  /** A full-text query over titles and text. */
  text?: string;
  /** A host name ("docs.python.org"), matched on any scheme and port. */
  host?: string;
  /** Leave out exact and near-duplicates of earlier pages, and soft 404s. */
  skipDuplicates?: boolean;
}

export interface ExportInput extends CollectionRef {
  format: ExportFormat;
  filter?: ExportFilter;
}

export interface ExportResult {
  /** Handle for fetching the file from the transport (download in a browser, save dialog in Electron). */
  exportId: string;
  fileName: string;
  format: ExportFormat;
  pages: number;
  bytes: number;
}

export interface LabInput extends CollectionRef {
  strategies: string[];
  budgets: number[];
  hot?: string;
  /** What the strategies learn from: the hot pages ('truth', the default) or the collection's own judge ('live'). */
  judge?: 'truth' | 'live';
}

export interface ServiceInfo {
  version: string;
  strategies: string[];
  exportFormats: ExportFormat[];
  /** Where collections live (a directory), or the one file `forager serve --db` opened. */
  location: string;
  /** Whether collections can be created and deleted (false for `serve --db FILE`). */
  canManageCollections: boolean;
  /** The crawl cluster this service watches (`serve --redis URL --cluster NAME`), or null. */
  cluster: { name: string } | null;
}

/** Events pushed to the UI as they happen. */
export type ServiceEvent =
  | { type: 'status'; status: CrawlStatus }
  | { type: 'collections'; collections: CollectionInfo[] };

/** The service API. Every method is async over both transports. */
export interface ForagerApi {
  info(): Promise<ServiceInfo>;
  listCollections(): Promise<CollectionInfo[]>;
  createCollection(input: NewCollectionInput): Promise<CollectionInfo>;
  deleteCollection(input: CollectionRef): Promise<void>;

  startCrawl(input: CollectionRef & { maxPages?: number }): Promise<CrawlStatus>;
  pauseCrawl(input: CollectionRef): Promise<CrawlStatus>;
  resumeCrawl(input: CollectionRef): Promise<CrawlStatus>;
  stopCrawl(input: CollectionRef): Promise<CrawlStatus>;
  crawlStatus(input: CollectionRef): Promise<CrawlStatus>;
  frontier(input: FrontierInput): Promise<FrontierItem[]>;

  listPages(input: PageListInput): Promise<PageList>;
  searchPages(input: SearchInput): Promise<SearchResult[]>;
  getPage(input: PageRef): Promise<PageDetail>;
  labelPage(input: LabelInput): Promise<PageRow>;
  /** Sets how one host's pages are rendered, stored with the collection and applied to a running crawl at once. */
  setHostRender(input: HostRenderInput): Promise<void>;

  exportCollection(input: ExportInput): Promise<ExportResult>;
  runLab(input: LabInput): Promise<LabReport>;

  /** The watched cluster's live status, read from its Redis (read-only); { configured: false } without one. */
  clusterStatus(): Promise<ClusterStatusAnswer>;
}

export type ApiMethod = keyof ForagerApi;

/** Snippet marks: private-use characters that cannot occur in stored text by accident. */
export const MARK_START = '\uE000';
export const MARK_END = '\uE001';

/** An error as it crosses a transport: a stable code and a sentence for the user. */
export interface ApiErrorBody {
  code: ErrorCode;
  message: string;
}
