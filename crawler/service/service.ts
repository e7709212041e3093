import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeErrorOf } from '../store/store-error.ts';
import { CollectionError, ForagerError, UsageError } from '../errors.ts';
import { EXPORT_FORMATS, exportCollection as writeExport } from '../export/run-export.ts';
import { runLab as replayLab } from '../lab/run-lab.ts';
import type { RefreshRun } from '../engine/run-policy.ts';
import { startRefresh } from '../engine/refresh-run.ts';
import { checkUrlRules } from '../engine/url-check.ts';
import { collectionHosts } from '../library/host-rows.ts';
import { setLabel } from '../library/labels.ts';
import { pageRow, pageTable, searchTable } from '../library/page-table.ts';
import { versionDiff } from '../library/version-diff.ts';
import { collectionSummary } from '../library/stats.ts';
import { strategyNames } from '../ordering/registry.ts';
import { parseHotPredicate } from '../relevance/hot.ts';
import { DEFAULT_SETTINGS, FORAGER_VERSION, NEW_CRAWL_SETTINGS, withHostRenderMode, type CrawlSettings } from '../protocol/settings.ts';
import { canonicalSeeds, validateNewSettings, validateSettings } from '../settings.ts';
import { openCollection, type Db, type ReadonlyDb } from '../store/database.ts';
import { loadSettings, saveSettings } from '../store/settings-store.ts';
import { clearCookies, importCookies, storedSession } from '../store/cookie-store.ts';
import { parseCookiesTxt, type ImportedCookie } from '../net/cookies-txt.ts';
import { WriterLock } from '../store/writer-lock.ts';
import type {
  ApiErrorBody, ClusterStatusAnswer, CollectionHost, CollectionInfo, CollectionRef, CrawlStatus, DocumentContent, ExportInput, ExportResult, ForagerApi, FrontierInput, FrontierItem,
  LabInput, LabReport, HostRenderInput, LabelInput, NewCollectionInput, PageDetail, PageList, PageListInput, PageRef, PageRow, PageVersions, PageVersionsInput,
  RefreshInput, SearchInput, SearchResult, ServiceEvent, ServiceInfo, VersionDiff, VersionDiffInput,
} from '../protocol/api.ts';
import type { SessionInfo, UrlRulesCheck, UrlRulesCheckInput } from '../protocol/api.ts';
import { MARK_END, MARK_START } from '../protocol/api.ts';
import { ClusterWatch, type ClusterTarget } from './cluster-watch.ts';
import { CollectionFiles } from './collection-files.ts';
import { CrawlSession } from './crawl-session.ts';
import { documentContent, pageDetail, pageVersions, type PageAt } from './page-views.ts';

/** Who writes, as another writer of the collection is told. */
const APP_WRITER = 'the Forager app (forager serve or the desktop app)';

/** Hosts the dashboard lists for refreshing. */
const MAX_LISTED_HOSTS = 50;

/** File extensions of the exports; a mirror travels as a zip. */
const EXTENSIONS: Record<ExportInput['format'], string> = { warc: 'warc.gz', wacz: 'wacz', jsonl: 'jsonl', csv: 'csv', mirror: 'zip' };

export interface ServiceOptions {
  /** A directory of collections (created when missing)… */
  dir?: string;
  /** …or one collection file. */
  db?: string;
  /** How often running crawls push their status. Default 400 ms (the dashboard wants ≥ 2 updates/s). */
  statusIntervalMs?: number;
  /** A crawl cluster to show, read-only (`serve --redis URL --cluster NAME`). */
  cluster?: ClusterTarget;
}

/** The service's events and their arguments: listeners are checked against these. */
export interface ForagerServiceEvents {
  /** What transports push to the UI: a crawl's status, the list of collections. */
  event: [event: ServiceEvent];
  /** `ended:<collection>`: that collection's crawl ended, however it ended (close() waits for it). */
  [ended: `ended:${string}`]: [];
}

/**
 * The service behind the UI: collections in a directory, a crawl engine per collection
 * while it crawls, the library's queries, exports and the lab. Methods throw ForagerErrors;
 * transports turn them into ApiErrorBody replies. Emits ForagerServiceEvents.
 */
export class ForagerService extends EventEmitter<ForagerServiceEvents> implements ForagerApi {
  readonly #files: CollectionFiles;
  readonly #dbs = new Map<string, Db>();
  readonly #sessions = new Map<string, CrawlSession>();
  readonly #exports = new Map<string, { path: string; fileName: string }>();
  readonly #exportDir: string;
  readonly #timer: NodeJS.Timeout;
  readonly #cluster: ClusterWatch | null;
  #closed = false;

  constructor(options: ServiceOptions) {
    super();
    if ((options.dir === undefined) === (options.db === undefined)) throw new UsageError('give either a directory of collections or one collection file', {});
    this.#files = options.db !== undefined ? CollectionFiles.singleFile(options.db) : CollectionFiles.directory(options.dir as string);
    if (options.db !== undefined) this.database(this.#files.ids()[0] as string);
    this.#exportDir = mkdtempSync(join(tmpdir(), 'forager-exports-'));
    this.#timer = setInterval(() => this.#pushStatuses(), options.statusIntervalMs ?? 400);
    this.#timer.unref();
    this.#cluster = options.cluster === undefined ? null : new ClusterWatch(options.cluster);
  }

  /** The read-write connection of a collection, opened on first use and kept. */
  database(collection: string): Db {
    let db = this.#dbs.get(collection);
    if (db === undefined) {
      db = openCollection(this.#files.pathOf(collection), { create: false });
      this.#dbs.set(collection, db);
    }
    return db;
  }

  /**
   * The same connection seen as a reader, for the library's queries and the viewer: they
   * cannot write through it. (Exports and the lab open read-only connections of their own.)
   */
  reader(collection: string): ReadonlyDb {
    return this.database(collection);
  }

  /** The file of a finished export, for the transport to deliver. */
  exportFile(exportId: string): { path: string; fileName: string } | undefined {
    return this.#exports.get(exportId);
  }

  async info(): Promise<ServiceInfo> {
    return { version: FORAGER_VERSION, strategies: strategyNames(), exportFormats: [...EXPORT_FORMATS], location: this.#files.location, canManageCollections: this.#files.canManage, readOnly: false, cluster: this.#cluster === null ? null : { name: this.#cluster.name } };
  }

  async listCollections(): Promise<CollectionInfo[]> {
    return this.#files.ids().map((id) => this.#describe(id));
  }

  async createCollection(input: NewCollectionInput): Promise<CollectionInfo> {
    const settings = newSettings(input);
    const cookies = input.cookies === undefined ? [] : sessionCookies(input.cookies);
    const { id, path } = this.#files.newPath(input.name, input.query);
    const lock = WriterLock.acquire(path, APP_WRITER);
    let db: Db;
    try {
      db = openCollection(path, { create: true });
      try {
        saveSettings(db, settings);
        // In the jar before the crawl starts, so the first request already carries the session.
        if (cookies.length > 0) importCookies(db, cookies);
      } catch (err) {
        db.close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
        throw err;
      }
    } catch (err) {
      lock.release();
      throw err;
    }
    this.#dbs.set(id, db);
    if (input.start !== false) this.#start(id, settings, lock);
    else lock.release();
    this.#pushCollections();
    return this.#describe(id);
  }

  async checkUrlRules(input: UrlRulesCheckInput): Promise<UrlRulesCheck> {
    return checkUrlRules(input);
  }

  async deleteCollection(input: CollectionRef): Promise<void> {
    const session = this.#sessions.get(input.collection);
    if (session !== undefined && session.state !== 'idle') throw new UsageError('this collection is crawling; stop the crawl before deleting it', { collection: input.collection });
    // A collection that another process writes is never deleted under it.
    const lock = this.#lock(input.collection);
    try {
      this.#dbs.get(input.collection)?.close();
      this.#dbs.delete(input.collection);
      this.#sessions.delete(input.collection);
      this.#files.remove(input.collection);
    } finally {
      lock.release();
    }
    this.#pushCollections();
  }

  async forgetSession(input: CollectionRef): Promise<CollectionInfo> {
    // A running crawl holds the jar in memory and would go on sending it: the session is forgotten between crawls.
    if (this.#crawling(input.collection)) throw new UsageError('this collection is crawling; stop the crawl before forgetting its session', { collection: input.collection });
    const db = this.database(input.collection);
    const lock = this.#lock(input.collection);
    try {
      clearCookies(db);
    } finally {
      lock.release();
    }
    this.#pushCollections();
    return this.#describe(input.collection);
  }

  async startCrawl(input: CollectionRef & { maxPages?: number }): Promise<CrawlStatus> {
    const db = this.database(input.collection);
    const stored = loadSettings(db);
    if (stored === undefined) throw new UsageError('this collection holds no crawl settings; create it from the New crawl screen', { collection: input.collection });
    const settings = validateSettings({ ...stored, maxPages: input.maxPages ?? stored.maxPages });
    if (this.#crawling(input.collection)) return this.#status(input.collection);
    const lock = this.#lock(input.collection);
    try {
      if (settings.maxPages !== stored.maxPages) saveSettings(db, settings);
    } catch (err) {
      lock.release();
      throw err;
    }
    this.#start(input.collection, settings, lock);
    return this.#status(input.collection);
  }

  /** Starts a refresh: the stored pages due (of one host, or all) are revisited; a stopped refresh goes on where it was. */
  async refreshCollection(input: RefreshInput): Promise<CrawlStatus> {
    const db = this.database(input.collection);
    const stored = loadSettings(db);
    if (stored === undefined) throw new UsageError('this collection holds no crawl to refresh; create it from the New crawl screen', { collection: input.collection });
    if (this.#crawling(input.collection)) {
      throw new UsageError('this collection is being crawled or refreshed now; let that run end, or stop it, before refreshing', { collection: input.collection });
    }
    const settings = validateSettings(stored);
    // The lock first: a refused refresh must not leave its start behind for the next one to "continue".
    const lock = this.#lock(input.collection);
    let refresh: RefreshRun;
    try {
      refresh = startRefresh(db, {
        ...(input.maxPages === undefined ? {} : { maxFetches: input.maxPages }),
        ...(input.host === undefined ? {} : { hosts: [input.host] }),
      });
    } catch (err) {
      lock.release();
      throw err;
    }
    this.#start(input.collection, settings, lock, refresh);
    return this.#status(input.collection);
  }

  async pauseCrawl(input: CollectionRef): Promise<CrawlStatus> {
    this.#runningSession(input.collection).pause();
    return this.#status(input.collection);
  }

  async resumeCrawl(input: CollectionRef): Promise<CrawlStatus> {
    this.#runningSession(input.collection).resume();
    return this.#status(input.collection);
  }

  async stopCrawl(input: CollectionRef): Promise<CrawlStatus> {
    this.#runningSession(input.collection).stop();
    return this.#status(input.collection);
  }

  async crawlStatus(input: CollectionRef): Promise<CrawlStatus> {
    return this.#status(input.collection);
  }

  async frontier(input: FrontierInput): Promise<FrontierItem[]> {
    this.database(input.collection);
    return this.#sessions.get(input.collection)?.frontier(input.limit ?? 20) ?? [];
  }

  async collectionHosts(input: CollectionRef): Promise<CollectionHost[]> {
    return collectionHosts(this.reader(input.collection), MAX_LISTED_HOSTS);
  }

  async listPages(input: PageListInput): Promise<PageList> {
    return pageTable(this.reader(input.collection), input);
  }

  async searchPages(input: SearchInput): Promise<SearchResult[]> {
    return searchTable(this.reader(input.collection), input.text, { limit: input.limit ?? 50, marks: [MARK_START, MARK_END], allVersions: input.allVersions === true });
  }

  async getPage(input: PageRef): Promise<PageDetail> {
    return pageDetail(this.#pageAt(input));
  }

  async readDocument(input: PageRef): Promise<DocumentContent> {
    return documentContent(this.#pageAt(input));
  }

  /** The desktop app's main process answers this call itself; over HTTP there is no system viewer to open. */
  async openDocument(input: PageRef): Promise<void> {
    throw new UsageError('only the desktop app opens a document in the system\'s viewer; save the file and open it from there', { ...input });
  }

  async pageVersions(input: PageVersionsInput): Promise<PageVersions> {
    return pageVersions(this.#pageAt(input), input.order ?? 'newest-first');
  }

  async versionDiff(input: VersionDiffInput): Promise<VersionDiff> {
    return versionDiff(this.reader(input.collection), input.seq, input.from, input.to);
  }

  /** Labels a page, or clears its label; a running crawl learns from it at once. */
  async labelPage(input: LabelInput): Promise<PageRow> {
    const db = this.database(input.collection);
    const result = this.#writing(input.collection, () => setLabel(db, pageRow(db, input.seq).url, input.label));
    this.#sessions.get(input.collection)?.applyLabel(result.urlId, input.label === null ? null : input.label === 'relevant', Number(result.hot) - Number(result.wasHot));
    return pageRow(db, input.seq);
  }

  async setHostRender(input: HostRenderInput): Promise<void> {
    const db = this.database(input.collection);
    const stored = loadSettings(db);
    if (stored === undefined) throw new UsageError(`the collection "${input.collection}" holds no crawl settings`, { collection: input.collection });
    this.#writing(input.collection, () => saveSettings(db, { ...stored, renderHostModes: withHostRenderMode(stored.renderHostModes, input.host, input.mode) }));
    this.#sessions.get(input.collection)?.setHostRender(input.host, input.mode);
  }

  async exportCollection(input: ExportInput): Promise<ExportResult> {
    const path = this.#files.pathOf(input.collection);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const extension = EXTENSIONS[input.format];
    const fileName = `${input.collection}-${stamp}.${extension}`;
    const exportId = randomBytes(12).toString('hex');
    // A connection of its own: one consistent snapshot, and the crawl's connection is never blocked by a long read.
    const db = openCollection(path, { create: false, readonly: true });
    try {
      const summary = await writeExport(db, input.format, input.filter ?? {}, join(this.#exportDir, `${exportId}.${extension}`));
      this.#exports.set(exportId, { path: summary.path, fileName });
      return { exportId, fileName, format: input.format, pages: summary.pages, bytes: summary.bytes };
    } finally {
      db.close();
    }
  }

  async runLab(input: LabInput): Promise<LabReport> {
    const db = openCollection(this.#files.pathOf(input.collection), { create: false, readonly: true });
    try {
      return replayLab(db, {
        strategies: input.strategies,
        budgets: input.budgets,
        ...(input.hot === undefined || input.hot.trim() === '' ? {} : { hot: input.hot }),
        ...(input.judge === undefined ? {} : { judge: input.judge }),
      });
    } finally {
      db.close();
    }
  }

  /** Read from Redis on every call: the UI polls it, and the workers publish each second. */
  async clusterStatus(): Promise<ClusterStatusAnswer> {
    if (this.#cluster === null) return { configured: false };
    return { configured: true, status: await this.#cluster.status() };
  }

  /** Stops every crawl (requests in flight are cancelled and stay queued), then closes the collections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#cluster?.close();
    const running = [...this.#sessions.values()].filter((s) => s.state !== 'idle');
    await Promise.all(running.map((s) => new Promise<void>((resolve) => {
      this.once(`ended:${s.collection}`, resolve);
      s.abort();
    })));
    for (const db of this.#dbs.values()) db.close();
    this.#dbs.clear();
    rmSync(this.#exportDir, { recursive: true, force: true });
  }

  #pageAt(input: PageRef): PageAt {
    return { db: this.reader(input.collection), seq: input.seq, collection: input.collection, shownSeq: input.seq };
  }

  /** Whether this service is crawling or refreshing the collection now (its session holds the writer lock). */
  #crawling(collection: string): boolean {
    const session = this.#sessions.get(collection);
    return session !== undefined && session.state !== 'idle';
  }

  /** The collection's writer lock, or CollectionLockedError naming the process that writes it. */
  #lock(collection: string): WriterLock {
    return WriterLock.acquire(this.#files.pathOf(collection), APP_WRITER);
  }

  /** A write outside a crawl: under the lock its running crawl holds, or under the lock taken for it. */
  #writing<T>(collection: string, write: () => T): T {
    if (this.#crawling(collection)) return write();
    const lock = this.#lock(collection);
    try {
      return write();
    } finally {
      lock.release();
    }
  }

  /** Starts a crawl or refresh holding `lock`, which the session releases when the run ends (or here, when it cannot start). */
  #start(collection: string, settings: CrawlSettings, lock: WriterLock, refresh?: RefreshRun): void {
    let session = this.#sessions.get(collection);
    if (this.#closed || session?.state === 'running' || session?.state === 'stopping') {
      lock.release();
      if (this.#closed) throw new UsageError('the service is shutting down', {});
      return;
    }
    if (session === undefined) {
      session = new CrawlSession(collection, this.database(collection));
      this.#sessions.set(collection, session);
    }
    session.start(
      settings,
      () => {
        this.emit(`ended:${collection}`);
        this.#emit({ type: 'status', status: this.#status(collection) });
        this.#pushCollections();
      },
      lock,
      refresh,
    );
    this.#pushCollections();
  }

  #runningSession(collection: string): CrawlSession {
    this.database(collection);
    const session = this.#sessions.get(collection);
    if (session === undefined || session.state === 'idle') throw new UsageError('no crawl of this collection is running', { collection });
    return session;
  }

  #status(collection: string): CrawlStatus {
    const db = this.database(collection);
    let session = this.#sessions.get(collection);
    if (session === undefined) {
      session = new CrawlSession(collection, db);
      this.#sessions.set(collection, session);
    }
    return session.status(loadSettings(db)?.maxPages ?? 0);
  }

  #describe(id: string): CollectionInfo {
    let bytesOnDisk = 0;
    try {
      const path = this.#files.pathOf(id);
      bytesOnDisk = statSync(path).size + sizeIfExists(`${path}-wal`);
      const db = this.reader(id);
      const settings = loadSettings(db);
      const summary = collectionSummary(db);
      return {
        id,
        query: settings?.query ?? null,
        seeds: settings?.seeds ?? [],
        pages: summary.pages,
        hot: summary.hot,
        bytesOnDisk,
        createdAt: isoOrNull(summary.createdAt),
        lastCrawledAt: isoOrNull(summary.lastCrawledAt),
        crawl: this.#sessions.get(id)?.state ?? 'idle',
        problem: null,
        session: sessionInfo(db),
      };
    } catch (err) {
      // A damaged file is listed with its problem beside the healthy ones, never in their way.
      const problem = err instanceof CollectionError ? err.message : storeErrorOf(err)?.message;
      if (problem === undefined) throw err;
      return { id, query: null, seeds: [], pages: 0, hot: 0, bytesOnDisk, createdAt: null, lastCrawledAt: null, crawl: 'idle', problem, session: null };
    }
  }

  #pushStatuses(): void {
    for (const session of this.#sessions.values()) {
      if (session.state === 'idle') continue;
      this.#emit({ type: 'status', status: this.#status(session.collection) });
    }
  }

  #pushCollections(): void {
    if (this.listenerCount('event') === 0) return;
    void this.listCollections().then((collections) => this.#emit({ type: 'collections', collections }));
  }

  #emit(event: ServiceEvent): void {
    this.emit('event', event);
  }
}

/** Where the New crawl form's cookies come from, in messages. */
const PASTED_COOKIES = 'the cookies (cookies.txt)';

/**
 * The cookies of a cookies.txt pasted in the New crawl form: its malformed lines refused by
 * number (CookiesFileError, never quoting a line), and a blank text is no session. One that
 * holds no cookie still valid is refused too: the crawl would run without the session meant.
 */
function sessionCookies(text: string): ImportedCookie[] {
  if (text.trim() === '') return [];
  const cookies = parseCookiesTxt(text, PASTED_COOKIES);
  if (cookies.length === 0) throw new UsageError(`${PASTED_COOKIES}: no cookie in it is still valid (they have all expired, or there are only comments)`, { source: PASTED_COOKIES });
  return cookies;
}

/** The collection's session as the app shows it; null without one. */
function sessionInfo(db: ReadonlyDb): SessionInfo | null {
  const summary = storedSession(db).summary();
  return summary.cookies === 0 ? null : summary;
}

function sizeIfExists(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The New crawl settings the form gave (NEW_CRAWL_SETTINGS); each one it left out keeps its default. */
function chosenSettings(input: NewCollectionInput): Partial<CrawlSettings> {
  return Object.fromEntries(NEW_CRAWL_SETTINGS.flatMap((key) => (input[key] === undefined ? [] : [[key, input[key]]])));
}

/** Settings for a new collection from the New crawl form; every refusal names the field. */
export function newSettings(input: NewCollectionInput): CrawlSettings {
  const seeds = canonicalSeeds(input.seeds.map((s) => s.trim()).filter((s) => s !== ''));
  const settings: CrawlSettings = {
    ...DEFAULT_SETTINGS,
    ...chosenSettings(input),
    query: input.query.trim(),
    seeds: [...new Set(seeds)],
    hotPredicate: input.hotPredicate?.trim() ? input.hotPredicate.trim() : null,
    hotThreshold: input.hotThreshold ?? null,
    allowPrivate: input.allowPrivate ?? false,
  };
  if (settings.hotPredicate !== null) parseHotPredicate(settings.hotPredicate);
  return validateNewSettings(settings);
}

export function createForagerService(options: ServiceOptions): ForagerService {
  return new ForagerService(options);
}

/** An error as a transport sends it: ForagerErrors keep their code and words; anything else is an internal error. */
export function errorBody(err: unknown): ApiErrorBody {
  if (err instanceof ForagerError) return { code: err.code, message: err.message };
  return { code: 'INTERNAL', message: `Something went wrong inside Forager: ${err instanceof Error ? err.message : String(err)}` };
}
