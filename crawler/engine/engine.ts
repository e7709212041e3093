import { EventEmitter } from 'node:events';
import { FetchError } from '../errors.ts';
import { HostScheduler } from '../frontier/host-scheduler.ts';
import { QueuedHosts } from '../frontier/queued-hosts.ts';
import { TopEntries } from '../frontier/top-entries.ts';
import { UrlHeap } from '../frontier/url-heap.ts';
import { politeWaitMs, retryBackoffMs } from '../frontier/politeness.ts';
import { createStrategy } from '../ordering/registry.ts';
import type { LinkEvent, OrderingStrategy } from '../ordering/strategy.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';
import { defaultParseWorkers, ParsePool } from '../parse/parse-pool.ts';
import { productToken } from '../robots/index.ts';
import type { CrawlSettings } from '../settings.ts';
import type { Db } from '../store/database.ts';
import { HostStore } from '../store/host-store.ts';
import { PageStore } from '../store/page-store.ts';
import { RunStore } from '../store/run-store.ts';
import { UrlState, type UrlStateValue } from '../store/url-state.ts';
import { UrlStore, type QueuedUrl } from '../store/url-store.ts';
import { createScope } from '../url/scope.ts';
import { replayHistory } from './history-replay.ts';
import type { HostState } from './host-state.ts';
import type { PageJudge } from '../relevance/judge.ts';
import { createPageJudge, knownLabels } from './relevance-judge.ts';
import { VerdictRevision } from './verdict-revision.ts';
import { HttpClient } from './http-client.ts';
import { PageRecorder, type RecordedPage } from './page-recorder.ts';
import { RobotsGate } from './robots-gate.ts';
import { seedOriginsOf, sitemapUrls } from './robots-sitemaps.ts';
import type { CrawlStats } from './stats.ts';
import { UrlAdmission, type NewUrlPlacement } from './url-admission.ts';

export type RunOutcome = 'budget' | 'exhausted' | 'stopped';

export interface HostActivity {
  origin: string;
  queued: number;
  pagesFetched: number;
  /** Epoch ms before which the host may not be asked again, or null when it may be now. */
  nextAllowedAt: number | null;
  inFlight: boolean;
}

export interface EngineOptions {
  /** Entries in the in-memory seen cache (Broder et al.: ~50,000 hit ~80% on a large crawl). */
  seenCacheSize?: number;
  /** Worker threads for parsing; 0 parses on the main thread. Default: one per spare core. */
  parseWorkers?: number;
  /** Judges fetched pages (relevance and hot); by default the query's relevance model and hot rule. */
  judge?: PageJudge;
  /** Orders the frontier; by default the strategy the settings name. */
  strategy?: OrderingStrategy;
}

export interface PageEvent extends RecordedPage {
  url: string;
  depth: number;
}

export interface FailureEvent {
  url: string;
  reason: string;
  willRetry: boolean;
}

/** Events: 'page' (PageEvent), 'failure' (FailureEvent), 'blocked' ({url, reason}), 'state' ('running'|'paused'). */
export class CrawlEngine extends EventEmitter {
  readonly settings: CrawlSettings;
  readonly #db: Db;
  readonly #urls: UrlStore;
  readonly #hostStore: HostStore;
  readonly #hosts = new Map<number, HostState>();
  readonly #scheduler: HostScheduler<HostState>;
  readonly #robots: RobotsGate;
  readonly #admission: UrlAdmission;
  readonly #recorder: PageRecorder;
  readonly #judge: PageJudge;
  readonly #revision: VerdictRevision;
  readonly #http: HttpClient;
  readonly #parser: ParsePool;
  readonly #strategy: OrderingStrategy;
  readonly #queuedHosts = new QueuedHosts();
  readonly #tasks = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #run: RunStore | undefined;
  #startedAt = 0;
  #pagesThisRun = 0;
  #bytesThisRun = 0;
  #pageTasks = 0;
  #pagesAtStart = 0;
  #hotAtStart = 0;
  #hotThisRun = 0;
  /** Time spent judging pages and ordering URLs (the strategy's work), for the overhead figure. */
  #orderingMs = 0;
  #paused = false;
  #stopping = false;
  #wake: (() => void) | undefined;

  constructor(db: Db, settings: CrawlSettings, options: EngineOptions = {}) {
    super();
    this.settings = settings;
    this.#db = db;
    this.#urls = new UrlStore(db);
    this.#hostStore = new HostStore(db);
    const seedHosts = new Set(settings.seeds.map((s) => new URL(s).hostname));
    this.#http = new HttpClient(settings, { allowPrivate: settings.allowPrivate, allowedHosts: seedHosts });
    const seedOrigins = seedOriginsOf(settings);
    this.#robots = new RobotsGate(settings, this.#hostStore, (origin) => this.#http.fetchRobots(origin, this.#abort.signal), (host) =>
      this.#admitSitemaps(host, seedOrigins.has(host.origin)),
    );
    this.#scheduler = new HostScheduler<HostState>();
    this.#strategy = options.strategy ?? createStrategy(settings.strategy, { query: settings.query, randomSeed: settings.randomSeed });
    this.#admission = new UrlAdmission(
      settings,
      { urls: this.#urls, hosts: this.#hostStore },
      createScope(settings.scope, settings.seeds),
      {
        robotsBlockReason: (hostId, origin, url) => this.#robots.blockReason(this.#host(hostId, origin), url),
        linked: (link, placement) => this.#onLink(link, placement),
      },
      options.seenCacheSize ?? 65_536,
    );
    // The judge can refuse the settings, so it is made before the parse workers, which would keep the process alive.
    const judge = options.judge ?? createPageJudge(db, settings);
    this.#judge = judge;
    this.#revision = new VerdictRevision(db, judge);
    this.#parser = new ParsePool(options.parseWorkers ?? defaultParseWorkers());
    this.#recorder = new PageRecorder(db, { pages: new PageStore(db), urls: this.#urls }, this.#admission, this.#parser, judge, {
      agentToken: productToken(settings.userAgent),
      maxLinks: settings.maxLinksPerPage,
      maxDecodedBytes: settings.maxDecodedBytes,
    });
  }

  /** Crawls until the page budget is reached, the frontier is empty, or stop() is called. */
  async run(): Promise<RunOutcome> {
    this.#startedAt = Date.now();
    this.#run = new RunStore(this.#db, this.#startedAt);
    this.#prepareFrontier();
    let outcome: RunOutcome = 'stopped';
    try {
      for (;;) {
        if (this.#stopping) break;
        const wakeAt = this.#paused ? undefined : this.#dispatch();
        if (this.#tasks.size === 0 && !this.#paused) {
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
      await Promise.allSettled([...this.#tasks]);
    } finally {
      this.#saveRunCounters();
      this.#hotThisRun += this.#revision.revise();
      this.#run.finish(outcome);
      await Promise.all([this.#http.close(), this.#parser.close()]);
    }
    return outcome;
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

  get paused(): boolean {
    return this.#paused;
  }

  /** Live figures: URL states kept current by the store, rates for this run. */
  stats(): CrawlStats {
    const tally = this.#urls.tally();
    const n = (state: UrlStateValue): number => tally.get(state) ?? 0;
    const elapsedMs = this.#startedAt === 0 ? 0 : Date.now() - this.#startedAt;
    const fetched = this.#pagesAtStart + this.#pagesThisRun;
    const hot = this.#hotAtStart + this.#hotThisRun;
    return {
      fetched,
      hot,
      harvestRate: fetched === 0 ? 0 : hot / fetched,
      queued: n(UrlState.queued) + n(UrlState.inflight),
      inflight: this.#pageTasks,
      failed: n(UrlState.failed),
      robotsBlocked: n(UrlState.robotsBlocked),
      skipped: n(UrlState.skipped),
      hosts: this.#hosts.size,
      seenCacheHitRate: this.#admission.cache.hitRate,
      pagesPerSecond: elapsedMs === 0 ? 0 : (this.#pagesThisRun * 1000) / elapsedMs,
      bytesFetched: this.#bytesThisRun,
      elapsedMs,
      orderingMs: Math.round(this.#orderingMs),
    };
  }

  /** The `limit` queued URLs the strategy ranks highest, best first (a scan of the frontier: for the UI, not the crawl loop). */
  frontierTop(limit: number): { urlId: number; priority: number }[] {
    const top = new TopEntries(limit);
    this.#queuedHosts.forEachQueued((urlId) => top.offer(urlId, this.#strategy.priority(urlId)));
    return top.best();
  }

  /**
   * The user labelled a fetched page (the caller stored it; `hotChange` is +1, −1 or 0 for
   * its verdict): the judge takes the labels as they now are, and the ordering learns from
   * it at once, with more weight than from the judge's verdicts.
   */
  applyLabel(urlId: number, relevant: boolean | null, hotChange: number): void {
    this.#judge.useLabels?.(knownLabels(this.#db));
    this.#strategy.labelled?.(urlId, relevant);
    this.#applyPriorityChanges();
    this.#hotThisRun += hotChange;
  }

  /** Why the strategy gives a URL its priority. */
  explain(urlId: number): PriorityExplanation {
    return this.#strategy.explain(urlId);
  }

  /** Hosts with queued URLs or a request in flight, busiest first. */
  hostActivity(limit: number): HostActivity[] {
    const queued = new Map<number, number>();
    this.#queuedHosts.forEachQueued((_, hostId) => queued.set(hostId, (queued.get(hostId) ?? 0) + 1));
    const now = Date.now();
    const hosts: HostActivity[] = [];
    for (const host of this.#hosts.values()) {
      const waiting = queued.get(host.id) ?? 0;
      if (waiting === 0 && !host.inflight) continue;
      hosts.push({ origin: host.origin, queued: waiting, pagesFetched: host.pagesFetched, nextAllowedAt: host.nextAllowedAt > now ? host.nextAllowedAt : null, inFlight: host.inflight });
    }
    hosts.sort((a, b) => b.queued - a.queued || a.origin.localeCompare(b.origin));
    return hosts.slice(0, limit);
  }

  #host(hostId: number, origin: string): HostState {
    let host = this.#hosts.get(hostId);
    if (host === undefined) {
      host = { id: hostId, origin, queue: new UrlHeap(), inflight: false, nextAllowedAt: 0, scheduled: false, robots: { kind: 'unknown' }, pagesFetched: 0 };
      this.#hosts.set(hostId, host);
    }
    return host;
  }

  /**
   * Loads hosts, puts URLs that were in flight at a crash back in the queue, replays the
   * stored history into the ordering strategy, queues every waiting URL on its host, and
   * admits the seeds.
   */
  #prepareFrontier(): void {
    this.#db.transaction(() => {
      this.#urls.resetInflight();
      for (const row of this.#hostStore.all()) {
        const host = this.#host(row.id, row.origin);
        host.robots = this.#robots.restore(row);
        host.pagesFetched = row.pagesFetched;
      }
      if (this.#strategy.needsHistory !== false) replayHistory(this.#db, this.#strategy);
      // Every URL's host has a row, so every host of the frontier was loaded just above.
      for (const entry of this.#urls.frontier()) {
        const host = this.#hosts.get(entry.hostId);
        if (host !== undefined) this.#enqueue(host, entry.id);
      }
      for (const seed of this.settings.seeds) {
        this.#admission.admit(seed, seed, { depth: 0, parentId: null, redirects: 0, anchor: '', context: '', isSeed: true });
      }
    })();
    this.#pagesAtStart = this.#db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
    this.#hotAtStart = this.#db.prepare('SELECT count(*) FROM pages WHERE hot = 1').pluck().get() as number;
    for (const host of this.#hosts.values()) this.#scheduler.offer(host);
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

  /** Every admitted link goes to the strategy; a new queued URL joins its host's queue. */
  #onLink(link: LinkEvent, placement: NewUrlPlacement | undefined): void {
    const started = performance.now();
    this.#strategy.linked(link);
    if (placement !== undefined && placement.state === UrlState.queued) {
      const host = this.#host(placement.hostId, placement.origin);
      this.#enqueue(host, link.dstId);
      this.#scheduler.offer(host);
    }
    this.#orderingMs += performance.now() - started;
  }

  #enqueue(host: HostState, urlId: number): void {
    this.#queuedHosts.set(urlId, host.id);
    host.queue.push(urlId, this.#strategy.priority(urlId));
  }

  /** Re-queues the URLs whose priority the strategy changed; their old heap entries go stale. */
  #applyPriorityChanges(): void {
    for (const urlId of this.#strategy.takeChanged()) {
      const hostId = this.#queuedHosts.get(urlId);
      const host = hostId === 0 ? undefined : this.#hosts.get(hostId);
      if (host === undefined) continue;
      this.#enqueue(host, urlId);
      this.#scheduler.offer(host);
    }
  }

  #budgetLeft(): number {
    return this.settings.maxPages - this.#pagesAtStart - this.#pagesThisRun - this.#pageTasks;
  }

  /** Starts as many host requests as concurrency and politeness allow. Returns when to look again, if ever. */
  #dispatch(): number | undefined {
    const now = Date.now();
    while (this.#tasks.size < this.settings.concurrency && this.#budgetLeft() > 0) {
      const next = this.#scheduler.next(now);
      if (next.kind === 'idle') return undefined;
      if (next.kind === 'wait') return next.until;
      this.#track(this.#serveHost(next.host));
    }
    // Budget spent or all slots busy: a finishing task wakes the loop.
    return this.#scheduler.waitingCount + this.#scheduler.readyCount > 0 ? Number.POSITIVE_INFINITY : undefined;
  }

  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    void task.finally(() => {
      this.#tasks.delete(task);
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
   * One turn of a host: fetch its robots.txt if due, else its best URL. The host is
   * released as soon as the response is in, so its next request can be scheduled while
   * this page is parsed and stored.
   */
  async #serveHost(host: HostState): Promise<void> {
    host.inflight = true;
    let released = false;
    const release = (responseMs: number, backoffMs = 0): void => {
      if (released) return;
      released = true;
      host.inflight = false;
      const wait = politeWaitMs(this.settings, responseMs, this.#robots.crawlDelaySeconds(host));
      host.nextAllowedAt = Date.now() + Math.max(wait, backoffMs);
      this.#scheduler.offer(host);
      this.#wake?.();
    };
    try {
      if (this.#robots.needsFetch(host, Date.now())) {
        const outcome = await this.#robots.refresh(host);
        if (outcome.kind === 'failure' && outcome.reason === 'ssrf:blocked') {
          // Our own policy refused the address: retrying cannot help.
          this.#closeHost(host, UrlState.failed, 'ssrf:blocked');
        } else if (this.#robots.givenUp(host)) {
          this.#closeHost(host, UrlState.robotsBlocked, 'robots:unavailable');
        }
        release(outcome.responseMs, this.#robots.awaitingRetry(host) ? this.settings.robotsRetryMs : 0);
        return;
      }
      if (this.#robots.awaitingRetry(host)) return;
      const task = this.#takeUrl(host);
      if (task !== undefined) await this.#fetchAndRecord(host, task, release);
    } finally {
      release(0);
    }
  }

  /** The host's best queued URL that robots.txt and the host budget allow; the others are recorded and passed over. */
  #takeUrl(host: HostState): QueuedUrl | undefined {
    for (let entry = host.queue.popEntry(); entry !== undefined; entry = host.queue.popEntry()) {
      // An entry whose URL left the queue is stale; one whose priority has since dropped goes back at its new place.
      if (this.#queuedHosts.get(entry.id) !== host.id) continue;
      const current = this.#strategy.priority(entry.id);
      if (current < entry.priority) {
        host.queue.push(entry.id, current);
        continue;
      }
      const task = this.#urls.queued(entry.id);
      if (task === undefined) continue;
      this.#queuedHosts.delete(task.id);
      if (this.settings.maxPagesPerHost > 0 && host.pagesFetched >= this.settings.maxPagesPerHost) {
        this.#urls.passOver(task.id, UrlState.skipped, 'host-budget');
        this.#closeHost(host, UrlState.skipped, 'host-budget');
        return undefined;
      }
      const blocked = this.#robots.blockReason(host, task.url);
      if (blocked === null) {
        this.#urls.markInflight(task.id);
        return task;
      }
      this.#urls.passOver(task.id, UrlState.robotsBlocked, blocked);
      this.emit('blocked', { url: task.url, reason: blocked });
    }
    return undefined;
  }

  /** Ends every queued URL of a host at once (robots.txt unavailable, host budget spent, address refused). */
  #closeHost(host: HostState, state: typeof UrlState.robotsBlocked | typeof UrlState.skipped | typeof UrlState.failed, reason: string): void {
    this.#db.transaction(() => {
      for (const id of host.queue.ids()) {
        if (this.#queuedHosts.get(id) !== host.id) continue;
        this.#queuedHosts.delete(id);
        this.#urls.passOver(id, state, reason);
      }
    })();
    host.queue.clear();
  }

  async #fetchAndRecord(host: HostState, task: QueuedUrl, release: (responseMs: number, backoffMs?: number) => void): Promise<void> {
    this.#pageTasks++;
    const started = Date.now();
    try {
      const result = await this.#http.fetchPage(task.url, this.#abort.signal, task.kind);
      const retryable = result.status >= 500 || result.status === 429;
      if (retryable && task.attempts < this.settings.maxRetries) {
        this.#retry(host, task, `http:${result.status}`, result.timings.totalMs, release);
        return;
      }
      release(result.timings.totalMs);
      host.pagesFetched++;
      const afterWrite = (): void => {
        this.#hostStore.countPageFetched(host.id);
        this.#pagesThisRun++;
        this.#bytesThisRun += result.bytesReceived;
        this.#saveRunCounters();
      };
      const recorded = await this.#recorder.record(task, result, afterWrite, retryable ? `http:${result.status}` : null);
      const orderingStarted = performance.now();
      // A site resource's evidence about the URLs it listed, after their linked() and before fetched().
      for (const hint of recorded.hints) this.#strategy.hinted?.(hint);
      this.#strategy.fetched({ id: task.id, relevance: recorded.relevance ?? 0, hot: recorded.hot, grade: recorded.grade, terms: recorded.terms, outlinks: recorded.outlinks });
      this.#applyPriorityChanges();
      this.#orderingMs += performance.now() - orderingStarted + recorded.judgeMs;
      if (recorded.hot) this.#hotThisRun++;
      this.#hotThisRun += this.#revision.afterPage();
      this.emit('page', { ...recorded, url: task.url, depth: task.depth } satisfies PageEvent);
    } catch (err) {
      const responseMs = Date.now() - started;
      if (this.#abort.signal.aborted) {
        this.#urls.returnToQueue(task.id);
        this.#enqueue(host, task.id);
        release(responseMs);
        return;
      }
      const reason = err instanceof FetchError ? err.reason : `error:${err instanceof Error ? err.message : String(err)}`;
      if (err instanceof FetchError && err.retryable && task.attempts < this.settings.maxRetries) {
        this.#retry(host, task, reason, responseMs, release);
        return;
      }
      this.#urls.finish(task.id, UrlState.failed, reason);
      release(responseMs);
      this.emit('failure', { url: task.url, reason, willRetry: false } satisfies FailureEvent);
    } finally {
      this.#pageTasks--;
    }
  }

  #retry(host: HostState, task: QueuedUrl, reason: string, responseMs: number, release: (responseMs: number, backoffMs?: number) => void): void {
    this.#urls.requeueAfterFailure(task.id, reason);
    this.#enqueue(host, task.id);
    release(responseMs, retryBackoffMs(this.settings, task.attempts + 1));
    this.emit('failure', { url: task.url, reason, willRetry: true } satisfies FailureEvent);
  }

  #saveRunCounters(): void {
    this.#run?.update(Date.now(), {
      pages: this.#pagesThisRun,
      bytes: this.#bytesThisRun,
      seenLookups: this.#admission.cache.lookups,
      seenHits: this.#admission.cache.hits,
    });
  }
}
