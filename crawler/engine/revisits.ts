import type { Frontier } from '../frontier/crawl-frontier.ts';
import { releaseBody, type FetchResult } from '../net/fetch-page.ts';
import type { RevisitOrdering } from '../ordering/revisit-ordering.ts';
import { pooledRate, type RevisitFacts } from '../ordering/revisit-policy.ts';
import type { ResponseAnalysis } from '../parse/analyse-response.ts';
import type { RevisitCounts } from '../protocol/crawl-stats.ts';
import type { PageJudge } from '../relevance/judge.ts';
import type { Simhash } from '../relevance/simhash.ts';
import { writeTransaction, type Db } from '../store/database.ts';
import { RevisitStore, type RevisitCandidate } from '../store/revisit-store.ts';
import { UrlState } from '../store/url-state.ts';
import type { QueuedUrl, UrlStore } from '../store/url-store.ts';
import type { RevisitOutcome } from '../store/version-store.ts';
import type { PageEvent, RevisitEvent } from './engine-types.ts';
import type { FetchRetries, ReleaseHost } from './fetch-retries.ts';
import type { HostState } from './host-state.ts';
import type { RenderedAnalysis } from './page-recorder.ts';
import type { RenderStage } from './render-stage.ts';
import { conditionalHeaders, type RevisitRecorder } from './revisit-recorder.ts';

/** A run that revisits as it goes looks for pages come due at least this often, and at most once a second. */
const SCAN_MAX_MS = 60_000;
const SCAN_MIN_MS = 1_000;

/** What the revisits need of the engine: its stores, its ordering and frontier, and how it fetches and reports. */
export interface RevisitContext {
  db: Db;
  urls: UrlStore;
  strategy: RevisitOrdering;
  frontier: Frontier<HostState, QueuedUrl>;
  judge: PageJudge;
  recorder: RevisitRecorder;
  retries: FetchRetries;
  /** Why the include and exclude rules refuse a URL now, or null. */
  ruleRefusal(url: string): string | null;
  /** A conditional request for the URL, in a request slot, cancelled with the crawl. */
  fetch(host: HostState, task: QueuedUrl, conditional: Readonly<Record<string, string>> | undefined): Promise<FetchResult>;
  /** The response's analysis, as a fetched page's. */
  analyse(task: QueuedUrl, result: FetchResult): Promise<ResponseAnalysis>;
  /** The soft-404 signature a page of the host is compared with. */
  soft404For(host: HostState, url: string): Simhash | null;
  /** The render stage, when the crawl renders pages (it may start mid-crawl). */
  render(): RenderStage | undefined;
  /** A revisit's response was stored: its bytes count in the run's figures. */
  stored(bytes: number): void;
  /** A revisit's new version was rendered. */
  rendered(): void;
  /** A changed version was stored. */
  changed(page: PageEvent): void;
  revisited(event: RevisitEvent): void;
}

/**
 * Revisits of stored pages: which come due and join the frontier (at the revisit policy's
 * priority), and each one's conditional request and record. A crawl with settings.revisitAfter
 * scans for due pages as it goes; a refresh queues its due pages once, at the start.
 */
export class Revisits {
  readonly #c: RevisitContext;
  readonly #store: RevisitStore;
  readonly #counts: Omit<RevisitCounts, 'queued'> = { notModified: 0, identical: 0, changed: 0, gone: 0 };
  #tasks = 0;
  #nextScan = 0;

  constructor(context: RevisitContext) {
    this.#c = context;
    this.#store = new RevisitStore(context.db);
  }

  /** Revisits under way. */
  get inProgress(): number {
    return this.#tasks;
  }

  /** Revisits done this run, whatever their outcome. */
  get done(): number {
    const c = this.#counts;
    return c.notModified + c.identical + c.changed + c.gone;
  }

  /** This run's revisits by outcome, and how many wait. */
  counts(): RevisitCounts {
    return { ...this.#counts, queued: this.#c.strategy.queuedRevisits };
  }

  /**
   * At a run's start (in its write transaction): the ordering learns how often pages change,
   * and revisits a stopped or killed run left waiting are revisits still, unless rules
   * changed since refuse them.
   */
  restoreWaiting(): void {
    const { strategy } = this.#c;
    strategy.setPooledRate(pooledRate(this.#store.totals()));
    for (const page of this.#store.waiting()) {
      if (this.#refused(page)) this.#store.unqueue(page.urlId);
      else strategy.queue(page.urlId, this.#facts(page), page.kind !== 0);
    }
  }

  /** Stored pages last checked before `since` join the frontier (only these origins' when given); callers hold a write transaction. */
  queueDue(since: number, origins?: readonly string[]): void {
    this.#queue(this.#store.due(since), origins);
  }

  /**
   * Queues the pages come due `afterMs` after their last check, at most once a second and at
   * least once a minute. Returns when to look next.
   */
  scan(afterMs: number): number {
    const now = Date.now();
    if (now < this.#nextScan) return this.#nextScan;
    writeTransaction(this.#c.db, () => this.#queue(this.#store.due(now - afterMs)));
    const oldest = this.#store.oldestCheck();
    const nextDue = oldest === undefined ? now + afterMs : oldest + afterMs;
    this.#nextScan = Math.max(now + SCAN_MIN_MS, Math.min(nextDue, now + Math.min(SCAN_MAX_MS, afterMs / 4)));
    return this.#nextScan;
  }

  /** No revisit is left waiting: the next run decides afresh. */
  unqueueAll(): void {
    this.#store.unqueueAll();
    this.#c.urls.recount();
  }

  /**
   * A revisit of a stored page: a conditional request from the stored validators, retried
   * like a fetch; the revisit recorder stores what it found. A server error that outlasts the
   * retries leaves the stored page as it was. The ordering learns nothing from a revisit but
   * the links of a changed version (through admission, as any page's).
   */
  async revisit(host: HostState, task: QueuedUrl, release: ReleaseHost): Promise<void> {
    const c = this.#c;
    this.#tasks++;
    const started = Date.now();
    try {
      const stored = c.recorder.stored(task);
      if (stored === undefined) {
        this.#end(task, null);
        return;
      }
      const result = await c.fetch(host, task, conditionalHeaders(stored));
      const answer = c.retries.afterAnswer(host, task, result, release);
      if (answer.retried) return;
      if (answer.failure !== null) {
        this.#end(task, `revisit:${answer.failure}`);
        return;
      }
      const revisit = await c.recorder.record(task, stored, result, c.soft404For(host, task.url), () => c.analyse(task, result), () => c.stored(result.bytesReceived), this.#renderFor(task, result));
      if (revisit.rendered === true) c.rendered();
      c.strategy.done(task.id);
      this.#count(revisit.outcome);
      if (revisit.changed !== undefined) {
        // A changed sitemap's lastmods reorder the revisits still waiting.
        for (const hint of revisit.changed.hints) c.strategy.hinted(hint);
        c.changed({ ...revisit.changed, url: task.url, depth: task.depth });
        c.frontier.reprioritise();
      }
      c.revisited({ url: task.url, seq: revisit.seq, outcome: revisit.outcome });
      releaseBody(result);
    } catch (err) {
      // The page stays as stored: a revisit that got no answer says nothing about it.
      c.retries.afterError(host, task, err, Date.now() - started, release, (reason) => this.#end(task, `revisit:${reason}`));
    } finally {
      this.#tasks--;
    }
  }

  /** Stored pages join the frontier for a revisit, at the revisit policy's priority (callers hold a write transaction). */
  #queue(pages: readonly RevisitCandidate[], origins?: readonly string[]): void {
    const { strategy, frontier } = this.#c;
    const only = origins === undefined ? undefined : new Set(origins);
    for (const page of pages) {
      if (only !== undefined && !only.has(page.origin)) continue;
      if (strategy.isRevisit(page.urlId) || this.#refused(page)) continue;
      this.#store.queue(page.urlId);
      strategy.queue(page.urlId, this.#facts(page), page.kind !== 0);
      frontier.add(page.urlId, page.hostId, page.origin);
    }
    this.#c.urls.recount();
  }

  /** What the revisit policy reads of a stored page: its checks and changes, and its graded verdict as what it is worth. */
  #facts(page: RevisitCandidate): RevisitFacts {
    const value = page.hot === 1 ? 1 : page.relevance === null ? 0 : (this.#c.judge.gradeOf?.(page.relevance) ?? Math.min(1, page.relevance));
    return { firstFetchedAt: page.firstFetchedAt, checkedAt: page.checkedAt, revisits: page.revisits, changes: page.changes, value };
  }

  /** A stored page whose URL the rules now refuse is not revisited (a seed always may be). */
  #refused(page: RevisitCandidate): boolean {
    return this.#c.ruleRefusal(page.url) !== null;
  }

  /**
   * How a changed version is rendered, as a crawl would render the page (the render stage's
   * plan for it); undefined when the crawl renders nothing. The revisit's task waits for the
   * render: changed pages that need a browser are few.
   */
  #renderFor(task: QueuedUrl, result: FetchResult): ((raw: ResponseAnalysis) => Promise<RenderedAnalysis | undefined>) | undefined {
    const stage = this.#c.render();
    if (stage === undefined) return undefined;
    return async (raw) => {
      const plan = stage.plan(task, result, raw);
      return plan === 'skip' ? undefined : stage.render(task, result, raw, plan);
    };
  }

  /** A revisit that recorded nothing: its URL is a fetched page again, with why. */
  #end(task: QueuedUrl, reason: string | null): void {
    this.#c.urls.finish(task.id, UrlState.fetched, reason);
    this.#c.strategy.done(task.id);
  }

  #count(outcome: RevisitOutcome): void {
    const c = this.#counts;
    if (outcome === 'not-modified') c.notModified++;
    else if (outcome === 'identical') c.identical++;
    else if (outcome === 'changed') c.changed++;
    else c.gone++;
  }
}
