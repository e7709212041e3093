import { EventEmitter } from 'node:events';
import type { FetchError, StoreError } from '../errors.ts';
import { SessionJar } from '../net/cookie-jar.ts';
import { storedCookies } from '../store/cookie-store.ts';
import type { Simhash } from '../relevance/simhash.ts';
import { CrawlFrontier, type Frontier, type FrontierReadiness } from '../frontier/crawl-frontier.ts';
import type { HostActivity } from '../protocol/api.ts';
import type { PolitenessSettings } from '../frontier/politeness.ts';
import { createStrategy, orderingContextOf } from '../ordering/registry.ts';
import type { LinkEvent, OrderingStrategy } from '../ordering/strategy.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';
import { ResponseReader } from '../parse/response-reader.ts';
import { productToken } from '../robots/index.ts';
import type { CrawlSettings, RenderMode } from '../protocol/settings.ts';
import { liveProgress, RunFigures } from './run-figures.ts';
import type { Db } from '../store/database.ts';
import { HostStore } from '../store/host-store.ts';
import { PageStore } from '../store/page-store.ts';
import { RunStore } from '../store/run-store.ts';
import { storeErrorOf } from '../store/store-error.ts';
import { indexMissedPages, TextIndexQueue } from '../store/text-index-queue.ts';
import { WriterLock } from '../store/writer-lock.ts';
import { UrlState } from '../store/url-state.ts';
import { UrlStore, type QueuedUrl } from '../store/url-store.ts';
import { createScope } from '../url/scope.ts';
import { frontierStore } from './frontier-store.ts';
import { frontierPreparationSteps } from './frontier-preparation.ts';
import { TimeSlicer } from './time-slices.ts';
import { admitIncoming } from './incoming-links.ts';
import { crawlStats } from '../library/crawl-stats.ts';
import type { HostState } from './host-state.ts';
import type { PageJudge } from '../relevance/judge.ts';
import { createPageJudge, knownLabels } from './relevance-judge.ts';
import { VerdictRevision } from './verdict-revision.ts';
import { HttpClient } from './http-client.ts';
import { PageRecorder } from './page-recorder.ts';
import { PageFetches } from './page-fetches.ts';
import { pickSettings } from './pick-settings.ts';
import type { RequestGate } from './request-gate.ts';
import { RobotsGate } from './robots-gate.ts';
import { seedOriginsOf, sitemapUrls } from './robots-sitemaps.ts';
import type { CrawlStats } from '../protocol/crawl-stats.ts';
import { UrlAdmission, type NewUrlPlacement } from './url-admission.ts';
import type { SubresourceFetcher } from '../render/page-renderer.ts';
import { RenderStore } from '../store/render-store.ts';
import { PageRendering } from './page-rendering.ts';
import type { SharedRendering } from '../render/shared-rendering.ts';
import { subresourceFetcher } from './subresource-fetcher.ts';
import { RequisiteFetcher } from './requisite-fetcher.ts';
import { RevisitOrdering } from '../ordering/revisit-ordering.ts';
import { Soft404Store } from '../store/soft404-store.ts';
import { VersionStore } from '../store/version-store.ts';
import { RevisitRecorder } from './revisit-recorder.ts';
import { FetchRetries, PROXY_RETRY_MS } from './fetch-retries.ts';
import { Revisits } from './revisits.ts';
import { CrawlPolicy, type RunPolicy, type RunProgress } from './run-policy.ts';
import type { CrawlEngineEvents, IncomingLink, RunOutcome } from './engine-types.ts';
import { Soft404Folders } from './soft404-folders.ts';
import { Soft404Probe } from './soft404-probe.ts';
import { cookieSink } from './cookie-sink.ts';
import { documentTypesOf } from '../parse/documents/document-facts.ts';
import { isProxyOutage } from '../net/proxy-failure.ts';

export type { BlockedEvent, CrawlEngineEvents, EngineState, FailureEvent, IncomingLink, PageEvent, RevisitEvent, RunOutcome } from './engine-types.ts';

/** The engine's collaborators, and the policy that says what the run is. */
export interface EngineOptions {
  /** What the run is (a crawl, a refresh, a cluster's shard); by default a crawl of the settings that locks the collection. */
  policy?: RunPolicy;
  /** Entries in the in-memory seen cache (Broder et al.: ~50,000 hit ~80% on a large crawl). */
  seenCacheSize?: number;
  /** Worker threads for parsing; 0 parses on the main thread. Default: one per spare core. */
  parseWorkers?: number;
  /** Parses on this pool instead of one of the engine's own (several engines in one process share one); the caller closes it. */
  parser?: ResponseReader;
  /** Judges fetched pages (relevance and hot); by default the query's relevance model and hot rule. */
  judge?: PageJudge;
  /** Orders the frontier; by default the strategy the settings name. */
  strategy?: OrderingStrategy;
  /** Who crawls, in words, for the collection's writer lock ("forager crawl"): a second writer is told. */
  writer?: string;
  /** Renders in this browser, shared with other engines in the process (a cluster worker's shards); the caller closes it. */
  rendering?: SharedRendering;
}

/** How soon a run whose policy held its requests back (mayDispatch) looks again. */
const HELD_BACK_RECHECK_MS = 100;

/**
 * The crawl loop: dispatches hosts' turns from the frontier, fetches, stores, retries, and
 * tells the ordering strategy what it learnt. The frontier (CrawlFrontier) keeps the queues
 * and decides which host and URL come next; the run's policy (RunPolicy) says what the run
 * is: a crawl, a refresh or a cluster's shard.
 */
export class CrawlEngine extends EventEmitter<CrawlEngineEvents> {
  readonly settings: CrawlSettings;
  readonly #db: Db;
  readonly #urls: UrlStore;
  readonly #hostStore: HostStore;
  readonly #frontier: Frontier<HostState, QueuedUrl>;
  readonly #politeness: PolitenessSettings;
  readonly #robots: RobotsGate;
  readonly #admission: UrlAdmission;
  readonly #recorder: PageRecorder;
  readonly #judge: PageJudge;
  readonly #revision: VerdictRevision;
  readonly #http: HttpClient;
  readonly #parser: ResponseReader;
  readonly #strategy: RevisitOrdering;
  readonly #revisits: Revisits;
  readonly #pages: PageFetches;
  readonly #progress: RunProgress;
  readonly #retries: FetchRetries;
  readonly #folders: Soft404Folders;
  readonly #soft404Probe: Soft404Probe;
  /** What the run is: its budget, when it ends, how it starts. */
  readonly #policy: RunPolicy;
  readonly #tasks = new Set<Promise<void>>();
  /** The request slots #tasks take (the run's own, or a cluster worker's shared by its shards); slow requests step aside. */
  readonly #requests: RequestGate;
  /** Renders and requisite fetches: beside the HTTP loop, so they hold no request slot. */
  readonly #beside = new Set<Promise<void>>();
  /** Hosts held back while renders or requisites catch up; offered again as each piece of that work ends. */
  readonly #parked = new Set<HostState>();
  readonly #rendering: PageRendering;
  readonly #requisites: RequisiteFetcher | undefined;
  readonly #abort = new AbortController();
  /** Aborted when the crawl loop ends (or the crawl is aborted): side work then stops waiting for host turns no loop will give. */
  readonly #sideAbort = new AbortController();
  #run: RunStore | undefined;
  readonly #figures = new RunFigures();
  #paused = false;
  #stopping = false;
  /** Whether the frontier is ready (run() prepared it): labels wait for it, as the strategy is rebuilt until then. */
  #ready = false;
  #storeError: StoreError | undefined;
  /** New pages' text, indexed for search in batches. */
  readonly #textIndex: TextIndexQueue;
  #proxyError: FetchError | undefined;
  readonly #writer: string;
  /** The seeds as stored (canonical): always fetched, whatever the include and exclude rules say. */
  readonly #seeds: ReadonlySet<string>;
  /** Whether the parse pool is the engine's own, to close at the end. */
  readonly #ownsParser: boolean;
  #lock: WriterLock | undefined;
  /** An error that is neither the web's nor the store's: run() stops and rethrows it. */
  #fault: unknown;
  #wake: (() => void) | undefined;

  constructor(db: Db, settings: CrawlSettings, options: EngineOptions = {}) {
    super();
    this.settings = settings;
    this.#db = db;
    this.#writer = options.writer ?? 'a Forager crawl';
    this.#policy = options.policy ?? new CrawlPolicy(settings);
    this.#requests = this.#policy.requestGate(settings.concurrency, () => this.#wake?.());
    this.#seeds = new Set(settings.seeds);
    this.#urls = new UrlStore(db);
    this.#hostStore = new HostStore(db);
    const seedHosts = new Set(settings.seeds.map((s) => new URL(s).hostname));
    this.#http = new HttpClient(
      pickSettings(settings, 'userAgent', 'proxy', 'connectTimeoutMs', 'headersTimeoutMs', 'bodyIdleTimeoutMs', 'totalTimeoutMs', 'maxBodyBytes', 'maxDecodedBytes', 'documents', 'maxDocumentBytes'),
      { allowPrivate: settings.allowPrivate, allowedHosts: seedHosts },
      new SessionJar(storedCookies(db), cookieSink(db, (err) => this.#onTaskError(err))),
      (error) => this.#onProxyDown(error),
    );
    const seedOrigins = seedOriginsOf(settings);
    this.#robots = new RobotsGate(
      pickSettings(settings, 'userAgent', 'robotsRetryMs', 'robotsMaxAttempts'),
      this.#hostStore,
      (origin) => this.#http.fetchRobots(origin, this.#abort.signal),
      (host) => this.#admitSitemaps(host, seedOrigins.has(host.origin)),
    );
    this.#strategy = new RevisitOrdering(options.strategy ?? createStrategy(settings.strategy, orderingContextOf(settings)));
    this.#folders = new Soft404Folders(new Soft404Store(db));
    this.#politeness = pickSettings(settings, 'delayMs', 'delayFactor', 'maxCrawlDelayMs');
    this.#frontier = new CrawlFrontier<HostState, QueuedUrl>({
      settings: pickSettings(settings, 'delayMs', 'delayFactor', 'maxCrawlDelayMs', 'maxPagesPerHost'),
      ordering: this.#strategy,
      store: frontierStore(db, this.#urls, (task) => this.#mayTake(task), (task) => this.#ruleRefusal(task.url)),
      policy: {
        robotsBlockReason: (host, url) => this.#robots.blockReason(host, url),
        crawlDelaySeconds: (host) => this.#robots.crawlDelaySeconds(host),
        blocked: (task, reason) => this.emit('blocked', { url: task.url, reason }),
      },
      extendHost: (host) => ({ ...host, robots: { kind: 'unknown' } }),
      tally: this.#requests.queuedTally,
    });
    this.#retries = new FetchRetries({
      settings,
      politeness: this.#politeness,
      urls: this.#urls,
      frontier: this.#frontier,
      signal: this.#abort.signal,
      onTaskError: (err) => this.#onTaskError(err),
      failed: (failure) => this.emit('failure', failure),
    });
    const partition = this.#policy.partition;
    this.#admission = new UrlAdmission(
      pickSettings(settings, 'maxUrlLength', 'maxDepth', 'include', 'exclude'),
      { urls: this.#urls, hosts: this.#hostStore },
      createScope(settings.scope, settings.seeds),
      {
        robotsBlockReason: (hostId, origin, url) => this.#robots.blockReason(this.#frontier.host(hostId, origin), url),
        linked: (link, placement) => this.#onLink(link, placement),
        ...(partition === undefined ? {} : { elsewhere: (url: string) => partition.elsewhere(url) }),
      },
      options.seenCacheSize ?? 65_536,
    );
    // The judge can refuse the settings, so it is made before the parse workers, which would keep the process alive.
    const judge = options.judge ?? createPageJudge(db, settings);
    this.#judge = judge;
    this.#revision = new VerdictRevision(db, judge);
    this.#ownsParser = options.parser === undefined;
    this.#parser = options.parser ?? new ResponseReader(options.parseWorkers === undefined ? {} : { parseWorkers: options.parseWorkers });
    this.#soft404Probe = new Soft404Probe({
      settings,
      parser: this.#parser,
      hosts: this.#hostStore,
      folders: this.#folders,
      refusal: (host, url) => this.#robots.blockReason(host, url) ?? this.#ruleRefusal(url),
      fetch: (url) => this.#requests.waitFor(this.#http.fetchPage(url, this.#abort.signal)),
      signal: this.#abort.signal,
    });
    this.#textIndex = new TextIndexQueue(db, (err) => this.#onTaskError(err));
    const versions = new VersionStore(db, this.#textIndex);
    this.#recorder = new PageRecorder(db, { pages: new PageStore(db, this.#textIndex), urls: this.#urls, versions }, this.#admission, this.#parser, judge, {
      agentToken: productToken(settings.userAgent),
      maxLinks: settings.maxLinksPerPage,
      maxDecodedBytes: settings.maxDecodedBytes,
      fetchesRequisites: settings.requisites !== 'none',
      documents: documentTypesOf(settings.documents),
    });
    this.#revisits = this.#revisitsOf(new RevisitRecorder(db, { versions, urls: this.#urls }, this.#recorder));
    const renders = new RenderStore(db);
    const subresources = this.#subresourceFetcher(renders);
    if (settings.requisites !== 'none') this.#requisites = new RequisiteFetcher(subresources, renders, settings.requisites, AbortSignal.any([this.#abort.signal, this.#sideAbort.signal]));
    this.#rendering = new PageRendering({
      settings,
      subresources,
      analyseDom: (task, dom) => this.#recorder.analyseRendered(task, dom),
      wouldBeHot: (task, analysis) => this.#recorder.wouldBeHot(task, analysis),
      pagesFetched: () => this.#figures.pages,
      shared: options.rendering,
      signal: this.#abort.signal,
    });
    this.#pages = this.#pageFetchesOf();
    this.#progress = liveProgress(this.#figures, this.#revisits, this.#strategy, () => this.pagesInProgress);
  }

  /** The revisits' room, wired to this engine's fetching and figures. */
  #revisitsOf(recorder: RevisitRecorder): Revisits {
    return new Revisits({
      db: this.#db,
      urls: this.#urls,
      strategy: this.#strategy,
      frontier: this.#frontier,
      judge: this.#judge,
      recorder,
      retries: this.#retries,
      ruleRefusal: (url) => this.#ruleRefusal(url),
      fetch: (host, task, headers) => this.#requests.waitFor(this.#http.fetchPage(task.url, this.#abort.signal, task.kind, headers), () => this.#frontier.stalled(host)),
      analyse: (task, result) => this.#recorder.analyse(task, result),
      soft404For: (host, url) => this.#soft404For(host, url),
      render: () => this.#rendering.stage,
      stored: (bytes) => {
        this.#figures.bytes += bytes;
        this.#saveRunCounters();
      },
      rendered: () => this.#figures.rendered++,
      changed: (page) => {
        if (page.hot) this.#figures.hot++;
        this.emit('page', page);
      },
      revisited: (event) => this.emit('revisit', event),
    });
  }

  /** The room of new pages' fetches, wired to this engine. */
  #pageFetchesOf(): PageFetches {
    return new PageFetches({
      urls: this.#urls,
      hosts: this.#hostStore,
      strategy: this.#strategy,
      frontier: this.#frontier,
      recorder: this.#recorder,
      retries: this.#retries,
      rendering: this.#rendering,
      requisites: this.#requisites,
      revision: this.#revision,
      policy: this.#policy,
      figures: this.#figures,
      signal: this.#abort.signal,
      fetch: (host, task) => this.#requests.waitFor(this.#http.fetchPage(task.url, this.#abort.signal, task.kind), () => this.#frontier.stalled(host)),
      soft404For: (host, url) => this.#soft404For(host, url),
      beside: (work) => this.#trackBeside(work),
      saveCounters: () => this.#saveRunCounters(),
      page: (event) => this.emit('page', event),
    });
  }

  /** What fetches a page's subresources: its requisites, and a render's scripts and API calls. */
  #subresourceFetcher(renders: RenderStore): SubresourceFetcher {
    return subresourceFetcher({
      http: this.#http,
      robots: this.#robots,
      renders,
      hostFor: (origin) => this.#frontier.host(this.#hostStore.idFor(origin), origin),
      requestTurn: (host, signal) => {
        const turn = this.#frontier.requestTurn(host, signal);
        // The loop may be asleep with nothing to do: the new turn is something to do.
        this.#wake?.();
        return turn;
      },
      allowHosts: this.settings.renderAllowHosts,
    });
  }

  /** Crawls until the page budget is reached, the frontier is empty, or stop() is called. */
  async run(): Promise<RunOutcome> {
    this.#figures.startedAt = Date.now();
    try {
      // One writer per collection: a second crawl on the file is refused, naming the first.
      if (!this.#db.memory && this.#policy.locksCollection) this.#lock = WriterLock.acquire(this.#db.name, this.#writer);
      this.#run = new RunStore(this.#db, this.#figures.startedAt);
      // What a killed run left out of the full-text index (text-index-queue.ts): this run holds the collection now.
      indexMissedPages(this.#db);
      if (await this.#prepareFrontier()) this.#resumeRequisites();
    } catch (err) {
      await this.#closeResources();
      if (storeErrorOf(err) === undefined) throw err;
      this.#onTaskError(err);
      return 'store-error';
    }
    let outcome: RunOutcome = 'stopped';
    try {
      for (;;) {
        if (this.#stopping) break;
        const scanAt = this.#policy.revisitAfterMs === undefined ? undefined : this.#revisits.scan(this.#policy.revisitAfterMs);
        const dispatchedWake = this.#paused ? undefined : this.#dispatch();
        const wakeAt = scanAt === undefined ? dispatchedWake : Math.min(scanAt, dispatchedWake ?? Number.POSITIVE_INFINITY);
        if (this.#tasks.size === 0 && this.#beside.size === 0 && !this.#paused && this.#policy.endsWhenIdle) {
          if (this.#budgetLeft() <= 0) {
            outcome = 'budget';
            break;
          }
          if (wakeAt === undefined) {
            outcome = 'exhausted';
            break;
          }
        }
        await this.#sleep(wakeAt);
      }
      this.#sideAbort.abort();
      await Promise.allSettled([...this.#tasks, ...this.#beside]);
    } finally {
      this.#finishRun(outcome);
      await this.#closeResources();
    }
    if (this.#fault !== undefined) throw this.#fault;
    return this.#endedAs(outcome);
  }

  /** Why the crawl paused on its store, when run() returned 'store-error'. */
  get storeError(): StoreError | undefined {
    return this.#storeError;
  }

  /** Why the crawl paused on its proxy, when run() returned 'proxy-unreachable': the error names the proxy, its password masked. */
  get proxyError(): FetchError | undefined {
    return this.#proxyError;
  }

  #endedAs(outcome: RunOutcome): RunOutcome {
    if (this.#storeError !== undefined) return 'store-error';
    return this.#proxyError !== undefined ? 'proxy-unreachable' : outcome;
  }

  /**
   * A proxy that fails every request pauses the crawl, as a store error does: requests in
   * flight are cancelled and their URLs stay queued, none recorded as failed because of it.
   */
  #onProxyDown(error: FetchError): void {
    this.#proxyError ??= error;
    this.#abort.abort();
    this.stop();
  }

  /** The run's last writes; when the store refuses them, the run ends as a store error. */
  #finishRun(outcome: RunOutcome): void {
    try {
      this.#textIndex.flush();
      this.#saveRunCounters();
      // A refresh that ended (not stopped or killed) leaves no revisit waiting, as its policy says: the next one decides afresh.
      if (this.#policy.unqueuesRevisitsAtEnd && (outcome === 'budget' || outcome === 'exhausted') && this.#storeError === undefined) this.#revisits.unqueueAll();
      this.#figures.hot += this.#revision.revise();
      this.#run?.finish(this.#endedAs(outcome));
    } catch (err) {
      this.#onTaskError(err);
    }
  }

  async #closeResources(): Promise<void> {
    this.#lock?.release();
    this.#frontier.leaveTally();
    await Promise.all([this.#http.close(), this.#ownsParser ? this.#parser.close() : undefined, this.#rendering.close()]);
  }

  /**
   * A store error pauses the crawl: nothing more is dispatched and requests in flight are
   * cancelled (their URLs stay queued); `resume` goes on once the store can be written. Any
   * other unexpected error stops the crawl too, and run() rethrows it.
   */
  #onTaskError(err: unknown): void {
    const storeError = storeErrorOf(err);
    if (storeError !== undefined) this.#storeError ??= storeError;
    else this.#fault ??= err;
    this.#abort.abort();
    this.stop();
  }

  pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.emit('state', 'paused');
    this.#wake?.();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.emit('state', 'running');
    this.#wake?.();
  }

  /** Stops dispatching; requests in flight finish and are stored, then run() returns. */
  stop(): void {
    this.#stopping = true;
    this.#wake?.();
  }

  /** Like stop(), but also cancels requests in flight: they stay queued for the next run. */
  abort(): void {
    this.#abort.abort();
    this.stop();
  }

  /** Why pages are not rendered although the settings ask for it (no browser found, or it would not start), for the CLI and the UI. */
  get renderNotice(): string | undefined {
    return this.#rendering.notice;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** Live figures: URL states kept current by the store, rates for this run. */
  stats(): CrawlStats {
    const figures = this.#figures;
    const { cache } = this.#admission;
    const fetched = {
      // Revisits are fetches too: a refresh's rate is its revisits' and new pages'.
      fetches: figures.pages + this.#revisits.done,
      bytes: figures.bytes,
      elapsedMs: figures.elapsedMs(),
      seenLookups: cache.lookups,
      seenHits: cache.hits,
    };
    return {
      ...crawlStats({ pages: figures.collection(), urls: this.#urls.tally(), inflight: this.pagesInProgress, hosts: this.#frontier.hostCount, fetched }),
      ...(this.renderNotice !== undefined ? { renderNotice: this.renderNotice } : {}),
      orderingMs: Math.round(figures.orderingMs),
      ...(this.#policy.reportsRevisits ? { revisits: this.#revisits.counts() } : {}),
    };
  }

  /** The `limit` queued URLs the strategy ranks highest, best first (a scan of the frontier: for the UI, not the crawl loop). */
  frontierTop(limit: number): { urlId: number; priority: number }[] {
    return this.#frontier.top(limit);
  }

  /**
   * The user labelled a fetched page (the caller stored it; `hotChange` is +1, −1 or 0 for
   * its verdict): the judge takes the labels as they now are, and the ordering learns from
   * it at once, with more weight than from the judge's verdicts.
   */
  applyLabel(urlId: number, relevant: boolean | null, hotChange: number): void {
    // Stored before the run's figures are counted, so the verdict's change is counted there.
    if (!this.#ready) return void this.once('ready', () => this.applyLabel(urlId, relevant, 0));
    this.#judge.useLabels?.(knownLabels(this.#db));
    this.#strategy.labelled?.(urlId, relevant);
    this.#frontier.reprioritise();
    this.#figures.hot += hotChange;
  }

  /** Why the strategy gives a URL its priority. */
  explain(urlId: number): PriorityExplanation {
    return this.#strategy.explain(urlId);
  }

  /** When the last of the crawl's hosts may be asked again (epoch ms): a cluster hands a partition on with it. */
  politeUntil(): number {
    return this.#frontier.politeUntil();
  }

  /** What waits to be fetched now, read by a cluster worker for its crawl-wide cut-off. */
  get readiness(): FrontierReadiness {
    return this.#frontier;
  }

  /** Hosts with queued URLs or a request in flight, busiest first. */
  hostActivity(limit: number): HostActivity[] {
    return this.#frontier.activity(limit).map((host) => ({ ...host, render: this.#rendering.policy.hostMode(new URL(host.origin).hostname) }));
  }

  /** Sets how one host's pages are rendered from now on (null: the crawl's own mode); a crawl that rendered nothing yet finds its browser now. */
  setHostRenderMode(host: string, mode: RenderMode | null): void {
    this.#rendering.setHostMode(host, mode);
  }

  /** Requisites that a paused or killed run left unfetched are sought again, beside the crawl. */
  #resumeRequisites(): void {
    const requisites = this.#requisites;
    if (requisites === undefined) return;
    for (const errand of requisites.pending()) this.#trackBeside(requisites.fetchFor(errand.pageSeq, errand.pageUrl, errand.requisites));
  }

  /**
   * Makes the frontier ready (frontier-preparation.ts) in slices between turns of the event
   * loop, so that a long history holds no timer up; then says it is ready. False when stopped before.
   */
  async #prepareFrontier(): Promise<boolean> {
    const slicer = new TimeSlicer(() => this.#stopping);
    const seeds = this.#policy.admitsSeeds ? this.settings.seeds : undefined;
    const admitSeeds = seeds && (() => seeds.forEach((seed) => this.#admission.admit(seed, seed, { depth: 0, parentId: null, redirects: 0, anchor: '', context: '', isSeed: true })));
    const parts = { db: this.#db, urls: this.#urls, hosts: this.#hostStore, frontier: this.#frontier, robots: this.#robots, strategy: this.#strategy, revisits: this.#revisits };
    const [pageIndexes, counts] = [this.#recorder.duplicateIndexSteps(), this.#figures.countSteps(this.#db)];
    const ready = await slicer.run(frontierPreparationSteps({ ...parts, pageIndexes, counts, acronyms: this.#judge.acronyms?.() ?? [], plan: this.#policy.frontier, admitSeeds }));
    // Stopped before: the figures still count on from what the collection holds.
    if (!ready) this.#figures.countFrom(this.#db);
    this.#ready = ready;
    if (ready) this.emit('ready', slicer.cpuMs);
    return ready;
  }

  /**
   * The sitemaps a host's robots.txt names, admitted each time it is read and usable (depth
   * 1, no parent, the ordinary scope, robots and trap rules); a seed origin that names none
   * gets its /sitemap.xml tried. The seen test keeps this idempotent: a URL already known
   * (after a resume, or when robots.txt is read again a day later) is only linked again.
   */
  #admitSitemaps(host: HostState, isSeedOrigin: boolean): void {
    for (const url of sitemapUrls(host, isSeedOrigin)) {
      this.#admission.admit(url, url, { depth: 1, parentId: null, redirects: 0, anchor: '', context: '', isSeed: false, kind: 'sitemap' });
    }
  }

  /**
   * Admits links from outside the crawl loop (another shard's pages, seeds sent to this
   * partition) in one transaction, and looks for work again. Returns how many were new here.
   */
  admitLinks(links: readonly IncomingLink[]): number {
    const { added } = admitIncoming(this.#db, this.#admission, this.#judge, links);
    this.nudge();
    return added;
  }

  /** Something outside the engine changed (links admitted, budget given): look for work again. */
  nudge(): void {
    this.#wake?.();
  }

  /** Pages being fetched or stored now (each holds a page of the budget). */
  get pagesInProgress(): number {
    return this.#pages.inProgress + this.#revisits.inProgress;
  }

  /**
   * Whether the frontier may hand this queued URL to this run: a revisit always; a new URL
   * as the policy says (a crawl's page budget may be spent while it goes on revisiting).
   */
  #mayTake(task: QueuedUrl): boolean {
    if (task.revisit === true) return this.#strategy.isRevisit(task.id);
    return this.#policy.mayTakeNew(this.#progress);
  }

  /**
   * Why the include and exclude rules refuse a URL queued before they changed (a crawl
   * continued with new rules), or null: it is recorded so when taken from its queue, never
   * requested. Seeds are always fetched.
   */
  #ruleRefusal(url: string): string | null {
    const rules = this.#admission.rules;
    return rules.empty || this.#seeds.has(url) ? null : rules.refusal(url);
  }

  /** Every admitted link goes to the strategy; a new queued URL joins its host's queue. */
  #onLink(link: LinkEvent, placement: NewUrlPlacement | undefined): void {
    const started = performance.now();
    if (link.srcId !== null) this.#forwardIfForeign(link, link.srcId);
    this.#strategy.linked(link);
    if (placement !== undefined && placement.state === UrlState.queued) this.#frontier.add(link.dstId, placement.hostId, placement.origin);
    this.#figures.orderingMs += performance.now() - started;
  }

  /** A link from a page of this shard to a URL another partition owns goes to that partition. */
  #forwardIfForeign(link: LinkEvent, parentId: number): void {
    const partition = this.#policy.partition;
    if (partition === undefined || partition.elsewhere(link.url) === null) return;
    partition.forward({ url: link.url, parentId, depth: link.depth, anchor: link.anchor, context: link.context });
  }

  /** Fetches this run may still start, by its policy. */
  #budgetLeft(): number {
    return this.#policy.budgetLeft(this.#progress);
  }

  /** Starts as many host requests as concurrency and politeness allow. Returns when to look again, if ever. */
  #dispatch(): number | undefined {
    const now = Date.now();
    if (!this.#policy.mayDispatch()) {
      this.#requests.withdraw();
      return now + HELD_BACK_RECHECK_MS;
    }
    const admit = this.#requests.admit;
    while (this.#requests.hasRoom(this.#tasks.size)) {
      // With the page budget spent, hosts are still asked for the turns renders and requisites wait for.
      const budgetLeft = this.#budgetLeft();
      const next = budgetLeft > 0 ? this.#frontier.next(now, this.#turnWindow(budgetLeft), admit) : this.#frontier.nextLentTurn(now, admit);
      // Held for another run's better URL: the gate wakes this one when its turn comes (and the recheck is a safety net).
      if (next.kind === 'held') return now + HELD_BACK_RECHECK_MS;
      if (next.kind !== 'host') this.#requests.withdraw();
      if (next.kind === 'idle') return undefined;
      if (next.kind === 'wait') return next.until;
      this.#requests.started();
      this.#trackIn(this.#tasks, this.#serveHost(next.host), () => this.#requests.ended());
    }
    // All slots busy: a finishing task wakes the loop.
    return this.#frontier.hasScheduledHosts ? Number.POSITIVE_INFINITY : undefined;
  }

  /**
   * How high a host's best URL must rank, among every queued URL, for the host to get a turn.
   * Spending pages: among the `concurrency` best, the URLs a crawl without hosts would be
   * fetching at once. Spending time: any URL the remaining budget reaches, so an idle turn
   * costs nothing the budget would not spend anyway.
   */
  #turnWindow(budgetLeft: number): number {
    return this.settings.spend === 'time' ? Math.max(this.settings.concurrency, budgetLeft) : this.settings.concurrency;
  }

  /** Keeps `work` in `set` until it ends; its error ends the crawl as any task's does, and its end wakes the loop. */
  #trackIn(set: Set<Promise<void>>, work: Promise<void>, onEnd?: () => void): void {
    set.add(work);
    work.then(
      () => undefined,
      (err: unknown) => this.#onTaskError(err),
    ).finally(() => {
      set.delete(work);
      onEnd?.();
      this.#wake?.();
    });
  }

  #sleep(until: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      this.#wake = () => {
        if (timer !== undefined) clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      if (until !== undefined && Number.isFinite(until)) timer = setTimeout(() => this.#wake?.(), Math.max(0, until - Date.now()));
    });
  }

  /**
   * One turn of a host (the frontier handed it out in flight): fetch its robots.txt if due,
   * else lend the turn to a render waiting for one of the host's subresources, else fetch
   * its best URL. The host is released as soon as the response is in, so its next
   * request can be scheduled while this page is parsed and stored.
   */
  async #serveHost(host: HostState): Promise<void> {
    let released = false;
    const release = (responseMs: number, backoffMs = 0): void => {
      if (released) return;
      released = true;
      this.#frontier.release(host, responseMs, backoffMs);
      this.#wake?.();
    };
    try {
      if (this.#robots.needsFetch(host, Date.now())) {
        const outcome = await this.#requests.waitFor(this.#robots.refresh(host), () => this.#frontier.stalled(host));
        if (outcome.kind === 'failure' && outcome.reason === 'ssrf:blocked') {
          // Our own policy refused the address: retrying cannot help.
          this.#frontier.close(host, 'failed', 'ssrf:blocked');
        } else if (this.#robots.givenUp(host)) {
          this.#frontier.close(host, 'robots-blocked', this.#robots.unavailableReason(host));
        }
        const proxyOutage = outcome.kind === 'failure' && isProxyOutage(outcome.reason);
        release(outcome.responseMs, proxyOutage ? PROXY_RETRY_MS : this.#robots.awaitingRetry(host) ? this.settings.robotsRetryMs : 0);
        return;
      }
      if (this.#robots.awaitingRetry(host)) return;
      const lent = this.#frontier.lendTurn(host);
      if (lent !== undefined) {
        release(await lent);
        return;
      }
      // Asked for a lent turn that was given up meanwhile: no page fetch past the budget.
      if (this.#budgetLeft() <= 0) return;
      if (this.settings.probeSoft404 && host.soft404 === undefined) {
        release(await this.#soft404Probe.probe(host));
        return;
      }
      // Pages that would join a full render or requisite queue wait: the queues stay bounded, turns lent
      // to renders and requisites (above) still go on, and hosts whose pages join neither are not held.
      if ((host.rendersPages === true && this.#rendering.stage?.saturated === true) || (host.feedsRequisites === true && this.#requisites?.saturated === true)) {
        released = true;
        this.#frontier.park(host);
        this.#parked.add(host);
        return;
      }
      const task = this.#frontier.take(host);
      if (task === undefined) return;
      const folder = this.settings.probeSoft404 && task.kind === 'page' ? this.#folders.folderToProbe(host.id, task.url) : undefined;
      if (folder !== undefined) {
        // The page waits for the host's next turn; this one asks its folder for a name that cannot exist.
        this.#urls.returnToQueue(task.id);
        this.#frontier.reclaim(host, task.id);
        release(await this.#soft404Probe.probe(host, folder));
        return;
      }
      if (task.revisit === true) await this.#revisits.revisit(host, task, release);
      else await this.#pages.fetch(host, task, release);
    } finally {
      release(0);
    }
  }

  /** The soft-404 signature a page of the host is compared with: its folder's, else the host root's. */
  #soft404For(host: HostState, url: string): Simhash | null {
    return this.#folders.signatureFor(host.id, url, host.soft404 ?? null);
  }

  /** Side work (a render, a page's requisites) holds no request slot; as it ends, hosts parked for it are offered again. */
  #trackBeside(work: Promise<void>): void {
    this.#trackIn(this.#beside, work, () => {
      for (const host of this.#parked) this.#frontier.unpark(host);
      this.#parked.clear();
    });
  }

  #saveRunCounters(): void {
    this.#run?.update(Date.now(), {
      pages: this.#figures.pages,
      bytes: this.#figures.bytes,
      seenLookups: this.#admission.cache.lookups,
      seenHits: this.#admission.cache.hits,
    });
  }
}
