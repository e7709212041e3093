/*
 * The one API the user interface speaks. Two transports carry exactly this API: the
 * loopback HTTP server of `forager serve` (service/http) and Electron's preload bridge
 * (electron/). Every method takes one plain JSON object and returns plain JSON, so
 * both transports can validate what comes in (schema.ts) and pass results through as is.
 */
import type { ClusterStatusAnswer } from './cluster-status.ts';
import type { CrawlStats, HarvestPoint, RevisitCounts } from './crawl-stats.ts';
import type { LabReport } from './lab-report.ts';
import type { ErrorCode } from './error-codes.ts';
import type { SignalExplanation } from './explanation.ts';
import type { CrawlSettings, NewCrawlSettingKey, RenderMode } from './settings.ts';

// This file is imported by the renderer too, so it imports nothing that needs Node.
export type { HarvestPoint, RevisitCounts };
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
  /** The logged-in session the collection holds (its cookie jar, never a value), or null when it holds none. */
  session: SessionInfo | null;
}

/** A collection's cookie jar as the app shows it: how many cookies, for which domains. */
export interface SessionInfo {
  cookies: number;
  domains: string[];
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
  /**
   * A Netscape cookies.txt's text (protocol/cookies-txt.ts), imported into the new collection's
   * cookie jar before its crawl starts: a logged-in session. Kept only in the jar, never in the settings.
   */
  cookies?: string;
}

export interface CollectionRef {
  collection: string;
}

/** The New crawl form's live check of its include and exclude rules: would this URL be crawled? */
export interface UrlRulesCheckInput extends Pick<CrawlSettings, 'seeds' | 'scope' | 'include' | 'exclude'> {
  /** The URL to judge as a link found in the crawl; '' to check only the patterns. */
  url: string;
}

/** A pattern the crawl would refuse, with why. */
export interface UrlPatternProblem {
  list: 'include' | 'exclude';
  pattern: string;
  why: string;
}

/** What the crawl would do with a URL found on a page, by the seeds, the scope and the rules (robots.txt and depth are judged while crawling). */
export type UrlRulesVerdict =
  | { crawled: true; url: string; why: 'seed' | 'admitted' }
  | { crawled: false; url: string; why: 'invalid-url' | 'no-seeds' | 'scope'; detail: string }
  | { crawled: false; url: string; why: 'rule:exclude'; pattern: string }
  | { crawled: false; url: string; why: 'rule:not-included'; includes: number };

export interface UrlRulesCheck {
  problems: UrlPatternProblem[];
  /** null when no URL was given, or while a pattern cannot be used. */
  verdict: UrlRulesVerdict | null;
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

/** How lastOutcome starts when a run paused because its proxy failed every request; the message (naming the proxy, its password masked) follows. */
export const PROXY_UNREACHABLE_OUTCOME = 'proxy-unreachable: ';

/** A refresh: stored pages revisited with conditional requests, new versions kept, pages found gone marked. */
export interface RefreshInfo {
  /** ISO time the refresh began (a stopped refresh started again goes on from there). */
  since: string;
  /** Fetches it may make: revisits and the new pages changed ones link to. */
  maxFetches: number;
  /** The origins whose pages it revisits; empty for every host. */
  origins: string[];
}

export interface CrawlStatus {
  collection: string;
  state: CrawlState;
  /** The refresh running now, or the last run's when it was a refresh; null for a crawl. */
  refresh: RefreshInfo | null;
  /** Why the last run ended, when it did ('budget', 'exhausted', 'stopped', STORE_ERROR_OUTCOME or PROXY_UNREACHABLE_OUTCOME + reason, or an error message). */
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

/** The documents Forager reads besides web pages (see --documents). */
export type DocumentType = 'pdf' | 'text';

/** What a stored response is: a document of one of those types, or else a web page ('html'). */
export type PageType = 'html' | DocumentType;

/** The library's filter by type: one type, or every document whatever its type. */
export type PageTypeFilter = PageType | 'document';

export interface PageListInput extends CollectionRef {
  sort?: PageSort;
  hotOnly?: boolean;
  /** Only pages of this type. */
  type?: PageTypeFilter;
  /** Only pages whose URL or title contains this text. */
  filter?: string;
  /** Only pages whose latest version replaced an earlier one at or after this time (epoch ms). */
  changedSince?: number;
  /** Only pages first fetched at or after this time (epoch ms). */
  newSince?: number;
  /** Only pages a revisit found gone (404, 410, a soft 404), or only those it did not. */
  gone?: boolean;
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
  type: PageType;
  /** Bytes of the body as received (0 when none was stored). */
  bodyBytes: number;
  /** The pages a document has; null for a web page. */
  pageCount: number | null;
  /** The earlier page this one repeats: the same body ('exact') or nearly the same text ('near'). */
  duplicate: { kind: 'exact' | 'near'; of: string } | null;
  /** A 200 that looks like the host's answer for a page that does not exist. */
  soft404: boolean;
  /** Versions stored: 1 until a revisit finds the page changed. */
  version: number;
  /** When the first version was fetched (fetchedAt is the latest version's). */
  firstFetchedAt: string;
  /** When a revisit last found it changed (the latest version's fetch), or null while it has one version. */
  lastChangedAt: string | null;
  /** Since when a revisit finds it gone (404, 410, a soft 404), or null while it is there. */
  goneAt: string | null;
}

export interface PageList {
  total: number;
  offset: number;
  pages: PageRow[];
}

export interface SearchInput extends CollectionRef {
  text: string;
  limit?: number;
  /** Search the earlier versions of pages too (by default only each page's latest). */
  allVersions?: boolean;
}

export interface SearchResult {
  seq: number;
  url: string;
  title: string | null;
  /** Plain text with the matched words between U+E000 and U+E001 (never HTML: the UI marks them). */
  snippet: string;
  relevance: number | null;
  hot: boolean;
  /** The version the words were found in, and whether it is the page's latest. */
  version: number;
  latest: boolean;
  /** When that version was fetched. */
  fetchedAt: string;
  type: PageType;
  /** The page of a PDF (from 1) the snippet is on; null for any other hit, and for an earlier version's. */
  documentPage: number | null;
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
  /** The server's last answer about the page: its latest fetch or revisit. */
  checkedAt: string;
  /** What was read from a document besides its text; null for a web page. */
  document: DocumentInfo | null;
  /** Where a document's bytes as received can be downloaded (an attachment), as viewPath is; null for a web page. */
  filePath: string | null;
}

/** A document's reading, as the viewer shows it beside the file. */
export interface DocumentInfo {
  type: DocumentType;
  pageCount: number;
  /** Pages whose text was read: fewer than pageCount when the page or time cap stopped the reading. */
  pagesRead: number;
  /** The document's own metadata, as text (title, author, created…). */
  metadata: Record<string, string>;
}

/** The largest document whose bytes readDocument hands to the app's own viewer; a larger one is saved or opened elsewhere. */
export const MAX_SHOWN_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** A stored document's bytes and text for the app's own viewer (PDF.js draws a PDF in the UI, never in the stored-page frame). */
export interface DocumentContent {
  seq: number;
  type: DocumentType;
  /** The bytes as received, base64; null when they are over MAX_SHOWN_DOCUMENT_BYTES. */
  data: string | null;
  /** Bytes of the document as received. */
  bytes: number;
  /** The extracted text, its pages joined by blank lines. */
  text: string;
  /** Where each page read starts in `text` (UTF-16 offsets, ascending, the first 0). */
  pageStarts: number[];
}

/** What a revisit found: a 304, a 200 with the same payload, a new version, or the page gone. */
export type RevisitOutcome = 'not-modified' | 'identical' | 'changed' | 'gone';

export interface PageRevisit {
  at: string;
  outcome: RevisitOutcome;
  /** The HTTP status the server answered. */
  status: number;
}

export interface PageVersion {
  /** 1 for the first version fetched. */
  version: number;
  fetchedAt: string;
  status: number;
  title: string | null;
  contentType: string | null;
  relevance: number | null;
  hot: boolean;
  latest: boolean;
  /** Where this version's HTML can be shown (sanitised), as PageDetail.viewPath; null when it is not HTML. */
  viewPath: string | null;
  /**
   * The revisits of this version, oldest first: each found it unchanged ('not-modified',
   * 'identical'), gone, or 'changed' (that revisit fetched the next version).
   */
  revisits: PageRevisit[];
}

export type VersionOrder = 'newest-first' | 'oldest-first';

export interface PageVersionsInput extends PageRef {
  /** Default 'newest-first'. */
  order?: VersionOrder;
}

export interface PageVersions {
  seq: number;
  url: string;
  versions: PageVersion[];
  goneAt: string | null;
}

export interface VersionDiffInput extends PageRef {
  /** The version compared from (usually the older) and to. */
  from: number;
  to: number;
}

/** A run of words of a diff: in both versions, only in `to` (inserted) or only in `from` (deleted). */
export interface DiffPart {
  op: 'same' | 'inserted' | 'deleted';
  text: string;
}

/**
 * One block of a text diff, in text order: an unchanged line, unchanged lines left out
 * between changes, or a changed stretch with its words marked.
 */
export type DiffBlock = { kind: 'same'; text: string } | { kind: 'skipped'; lines: number } | { kind: 'changed'; parts: DiffPart[] };

export interface VersionStamp {
  version: number;
  fetchedAt: string;
  title: string | null;
}

export interface VersionDiff {
  seq: number;
  url: string;
  from: VersionStamp;
  to: VersionStamp;
  /** The title's change in words, or null when it did not change. */
  title: DiffPart[] | null;
  /** The stored text's change; empty when the texts are the same. */
  blocks: DiffBlock[];
  insertedWords: number;
  deletedWords: number;
  /** True when the versions differ too much for a word-level diff: changed stretches are shown as replaced whole. */
  coarse: boolean;
}

/** A host of a collection, with its pages' versions, for refreshing it. */
export interface CollectionHost {
  origin: string;
  pages: number;
  /** Pages stored in more than one version. */
  changed: number;
  gone: number;
  /** The last answer from the host about any of its pages, or null when none was stored. */
  lastCheckedAt: string | null;
}

export interface RefreshInput extends CollectionRef {
  /** Revisit only this host's pages: a host name or an origin as CollectionHost gives it. */
  host?: string;
  /** Fetches the refresh may make (revisits and new pages); by default every page due once, and a tenth as many new pages. */
  maxPages?: number;
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
  /** Whether everything served is only read (`serve --shards DIR`): no crawl, label or deletion; `location` says what is shown. */
  readOnly: boolean;
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
  /** Checks the New crawl form's include and exclude patterns, and judges one URL by them as the crawl would. */
  checkUrlRules(input: UrlRulesCheckInput): Promise<UrlRulesCheck>;
  deleteCollection(input: CollectionRef): Promise<void>;
  /** Forgets the collection's logged-in session (its whole cookie jar); refused while it crawls. */
  forgetSession(input: CollectionRef): Promise<CollectionInfo>;

  startCrawl(input: CollectionRef & { maxPages?: number }): Promise<CrawlStatus>;
  /** Revisits the collection's stored pages (all hosts, or one), keeping new versions; its status shows the revisits' outcomes. */
  refreshCollection(input: RefreshInput): Promise<CrawlStatus>;
  pauseCrawl(input: CollectionRef): Promise<CrawlStatus>;
  resumeCrawl(input: CollectionRef): Promise<CrawlStatus>;
  stopCrawl(input: CollectionRef): Promise<CrawlStatus>;
  crawlStatus(input: CollectionRef): Promise<CrawlStatus>;
  frontier(input: FrontierInput): Promise<FrontierItem[]>;
  /** The collection's hosts with their page counts, most pages first. */
  collectionHosts(input: CollectionRef): Promise<CollectionHost[]>;

  listPages(input: PageListInput): Promise<PageList>;
  searchPages(input: SearchInput): Promise<SearchResult[]>;
  getPage(input: PageRef): Promise<PageDetail>;
  /** A document's bytes and extracted text, for the app's own viewer. */
  readDocument(input: PageRef): Promise<DocumentContent>;
  /**
   * Opens a document in the system's own viewer, from a temporary copy. Only the desktop app
   * does (its main process answers this call); `forager serve` refuses it: save the file instead.
   */
  openDocument(input: PageRef): Promise<void>;
  /** A page's versions with their dates and the revisits that checked each. */
  pageVersions(input: PageVersionsInput): Promise<PageVersions>;
  /** A word-level diff of the stored text of two versions of a page. */
  versionDiff(input: VersionDiffInput): Promise<VersionDiff>;
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
