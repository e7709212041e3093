import type { Frontier } from '../frontier/crawl-frontier.ts';
import { freeWholeView } from '../memory/free-buffer.ts';
import { releaseBody, type FetchResult } from '../net/fetch-page.ts';
import type { RevisitOrdering } from '../ordering/revisit-ordering.ts';
import type { ResponseAnalysis } from '../parse/analyse-response.ts';
import type { Simhash } from '../relevance/simhash.ts';
import type { RenderPlan } from '../render/render-policy.ts';
import type { HostStore } from '../store/host-store.ts';
import { storeErrorOf } from '../store/store-error.ts';
import { UrlState } from '../store/url-state.ts';
import type { QueuedUrl, UrlStore } from '../store/url-store.ts';
import type { PageEvent } from './engine-types.ts';
import type { FetchRetries, ReleaseHost } from './fetch-retries.ts';
import type { HostState } from './host-state.ts';
import type { PageRecorder, RecordedPage } from './page-recorder.ts';
import type { PageRendering } from './page-rendering.ts';
import type { RequisiteFetcher } from './requisite-fetcher.ts';
import type { RunFigures } from './run-figures.ts';
import type { RunPolicy } from './run-policy.ts';
import type { VerdictRevision } from './verdict-revision.ts';

/** What fetching new pages needs of the engine: its stores, ordering and frontier, and where side work goes. */
export interface PageFetchContext {
  urls: UrlStore;
  hosts: HostStore;
  strategy: RevisitOrdering;
  frontier: Frontier<HostState, QueuedUrl>;
  recorder: PageRecorder;
  retries: FetchRetries;
  rendering: PageRendering;
  requisites: RequisiteFetcher | undefined;
  revision: VerdictRevision;
  /** The run's policy: a page holds a page of its budget until stored. */
  policy: RunPolicy;
  figures: RunFigures;
  /** Aborted when the crawl's requests are cancelled. */
  signal: AbortSignal;
  /** The request, in a request slot, cancelled with the crawl. */
  fetch(host: HostState, task: QueuedUrl): Promise<FetchResult>;
  /** The soft-404 signature a page of the host is compared with. */
  soft404For(host: HostState, url: string): Simhash | null;
  /** Work beside the HTTP loop (a render, a page's requisites), which holds no request slot. */
  beside(work: Promise<void>): void;
  /** The run's counters changed: its row is written. */
  saveCounters(): void;
  page(event: PageEvent): void;
}

/** A page between its fetch and its store: whether it was stored decides what the policy's budget gets back. */
interface PageInProgress {
  stored: boolean;
}

/**
 * Fetches of new pages: the request, its retry, the render when the page needs one (beside
 * the HTTP loop), the store, and what follows it for the ordering and the listeners.
 */
export class PageFetches {
  readonly #c: PageFetchContext;
  #tasks = 0;

  constructor(context: PageFetchContext) {
    this.#c = context;
  }

  /** Pages being fetched, rendered or stored now. */
  get inProgress(): number {
    return this.#tasks;
  }

  async fetch(host: HostState, task: QueuedUrl, release: ReleaseHost): Promise<void> {
    const c = this.#c;
    this.#tasks++;
    const page = this.#start();
    let handedOn = false;
    const started = Date.now();
    try {
      const result = await c.fetch(host, task);
      const answer = c.retries.afterAnswer(host, task, result, release);
      if (answer.retried) return;
      c.frontier.pageFetched(host);
      const afterWrite = (): void => {
        page.stored = true;
        c.hosts.countPageFetched(host.id);
        c.figures.pages++;
        c.figures.bytes += result.bytesReceived;
        c.saveCounters();
      };
      const failure = answer.failure;
      const raw = await c.recorder.analyse(task, result);
      const stage = c.rendering.stage;
      const plan = failure === null && stage !== undefined ? stage.plan(task, result, raw) : 'skip';
      host.rendersPages = plan !== 'skip';
      if (plan !== 'skip') {
        // The render and the storing go on beside the HTTP loop; the page counts against the budget until stored.
        this.#tasks++;
        handedOn = true;
        c.beside(this.#renderAndRecord(host, task, result, raw, afterWrite, plan, page));
        return;
      }
      this.#afterRecorded(host, task, await c.recorder.record(task, result, afterWrite, failure, c.soft404For(host, task.url), { raw }));
      releaseStoredResponse(result, raw);
    } catch (err) {
      c.retries.afterError(host, task, err, Date.now() - started, release, (reason) => c.urls.finish(task.id, UrlState.failed, reason));
    } finally {
      this.#tasks--;
      if (!handedOn) this.#end(page);
    }
  }

  /** A page fetch starts: it holds a page of the policy's budget until stored. */
  #start(): PageInProgress {
    this.#c.policy.pageStarted();
    return { stored: false };
  }

  /** A page fetch ended, stored or not: the policy gets a page not stored back. */
  #end(page: PageInProgress): void {
    if (!page.stored) this.#c.policy.pageNotStored();
  }

  async #renderAndRecord(host: HostState, task: QueuedUrl, result: FetchResult, raw: ResponseAnalysis, afterWrite: () => void, plan: Exclude<RenderPlan, 'skip'>, page: PageInProgress): Promise<void> {
    const c = this.#c;
    try {
      const rendered = await c.rendering.stage?.render(task, result, raw, plan);
      this.#afterRecorded(host, task, await c.recorder.record(task, result, afterWrite, null, c.soft404For(host, task.url), rendered === undefined ? { raw } : { raw, rendered }));
      releaseStoredResponse(result, raw, rendered?.analysis);
      if (rendered !== undefined) c.figures.rendered++;
    } catch (err) {
      if (storeErrorOf(err) !== undefined || !c.signal.aborted) throw err;
      c.retries.requeueQuietly(task.id);
    } finally {
      this.#tasks--;
      this.#end(page);
    }
  }

  /** What follows a stored page: the strategy learns of it, the frontier re-orders, listeners hear of it. */
  #afterRecorded(host: HostState, task: QueuedUrl, recorded: RecordedPage): void {
    const c = this.#c;
    if (recorded.document) c.figures.documents++;
    const orderingStarted = performance.now();
    // A site resource's evidence about the URLs it listed, after their linked() and before fetched().
    for (const hint of recorded.hints) c.strategy.hinted(hint);
    c.strategy.fetched({
      id: task.id,
      relevance: recorded.relevance ?? 0,
      hot: recorded.hot,
      grade: recorded.grade,
      terms: recorded.terms,
      outlinks: recorded.outlinks,
      ...(recorded.acronyms === undefined ? {} : { acronyms: recorded.acronyms }),
    });
    c.frontier.reprioritise();
    c.figures.orderingMs += performance.now() - orderingStarted + recorded.judgeMs;
    if (recorded.hot) c.figures.hot++;
    c.figures.hot += c.revision.afterPage();
    c.page({ ...recorded, url: task.url, depth: task.depth });
    host.feedsRequisites = c.requisites !== undefined && recorded.requisites !== null;
    if (c.requisites !== undefined && recorded.requisites !== null) c.beside(c.requisites.fetchFor(recorded.seq, task.url, recorded.requisites));
  }
}

/**
 * Frees a stored response's body, payload and gzipped copies now rather than at V8's next full
 * collection: nothing reads them once the page is stored, and bodies that waited for their
 * parse and store had lived long enough to wait for one.
 */
function releaseStoredResponse(result: FetchResult, ...analyses: (ResponseAnalysis | undefined)[]): void {
  releaseBody(result);
  for (const analysis of analyses) freeWholeView(analysis?.storedBody);
}
