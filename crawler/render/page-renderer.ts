import type { BrowserContext, Request, Route } from 'playwright-core';
import { RenderCancelledError } from '../errors.ts';
import { BrowserPool } from './browser-pool.ts';

/** Request types a render may make, through Forager's fetcher. Everything else is blocked. */
const FETCHED_TYPES = new Set(['script', 'stylesheet', 'xhr', 'fetch']);
/**
 * Network quiet for this long, and the DOM unchanged for DOM_QUIET_MS, and the page is done.
 * Every request passes through the route handler, so "quiet" is known exactly, not guessed
 * from sockets: shorter windows than a browser's "network idle" (500 ms) are safe.
 */
const NETWORK_QUIET_MS = 250;
const DOM_QUIET_MS = 200;
const POLL_MS = 50;

export interface SubresourceResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What Forager's fetcher says to a render's request: the response, or why it was not fetched. */
export type SubresourceOutcome = { kind: 'response'; response: SubresourceResponse; fromCache: boolean } | { kind: 'blocked'; reason: string };

/**
 * Fetches one subresource for a page (being rendered, or as its requisite): scope, robots.txt,
 * the SSRF guard and politeness are its business. `anyHost` lifts the same-origin rule (page
 * requisites with `--requisites all`).
 */
export type SubresourceFetcher = (url: string, pageUrl: string, signal: AbortSignal, options?: { anyHost?: boolean }) => Promise<SubresourceOutcome>;

/** One request the page made, and what became of it. */
export interface RenderRequest {
  url: string;
  type: string;
  /** 'fetched', 'cached', or `blocked:<why>`. */
  outcome: string;
}

export interface RenderedPage {
  /** The DOM after scripts ran, serialised. */
  dom: string;
  requests: RenderRequest[];
  ms: number;
  /** The time limit cut the render short; the DOM is what there was by then. */
  timedOut: boolean;
}

/**
 * Whose render it is, when one renderer serves several crawls (a cluster worker's shards):
 * the fetcher of the crawl the page belongs to, and a signal that cancels the render.
 */
export interface RenderJob {
  /** Serves the render's subresources, instead of the renderer's own fetcher. */
  fetch?: SubresourceFetcher;
  /** Aborted: the render ends at once, its promise rejected and its subresource requests refused. */
  signal?: AbortSignal;
}

/** What renders pages: in this process (PageRenderer) or in a process of its own (RenderProcess). */
export interface Renderer {
  render(input: RenderInput, job?: RenderJob): Promise<RenderedPage>;
  /** Why pages can no longer be rendered (the browser would not start), if so. */
  readonly unavailable: Error | undefined;
}

export interface RenderInput {
  url: string;
  status: number;
  contentType: string;
  /** The document exactly as Forager fetched it. */
  body: Buffer;
}

/** Resolves in the page once its DOM has not changed for DOM_QUIET_MS. */
const WAIT_FOR_QUIET_DOM = `new Promise((resolve) => {
  const check = () => {
    const quietFor = performance.now() - (globalThis.__foragerLastMutation ?? 0);
    if (quietFor >= ${DOM_QUIET_MS}) resolve(true);
    else setTimeout(check, ${DOM_QUIET_MS} - quietFor);
  };
  check();
})`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The promise's value, or false once `deadline` (performance.now() time) passes or `signal` aborts first. */
async function beforeDeadline(promise: Promise<boolean>, deadline: number, signal: AbortSignal): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

const WATCH_MUTATIONS = `(() => {
  globalThis.__foragerLastMutation = performance.now();
  new MutationObserver(() => { globalThis.__foragerLastMutation = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})();`;

/**
 * Renders pages in the pool's browser. The document is Forager's own response; every other
 * request the page makes is intercepted: scripts, stylesheets and XHR/fetch go through the
 * SubresourceFetcher, and images, media, fonts, websockets, beacons, frames and service
 * workers are refused. The page is done when its network and its DOM have been quiet for a
 * moment, or when the time limit is reached.
 */
export class PageRenderer implements Renderer {
  readonly #pool: BrowserPool;
  readonly #fetch: SubresourceFetcher;
  readonly #timeoutMs: number;

  constructor(pool: BrowserPool, fetch: SubresourceFetcher, timeoutMs: number) {
    this.#pool = pool;
    this.#fetch = fetch;
    this.#timeoutMs = timeoutMs;
  }

  /** Why pages can no longer be rendered (the browser would not start), if so. */
  get unavailable(): Error | undefined {
    return this.#pool.unavailable;
  }

  render(input: RenderInput, job: RenderJob = {}): Promise<RenderedPage> {
    if (job.signal?.aborted === true) return Promise.reject(new RenderCancelledError(input.url));
    return this.#pool.withContext(prepareContext, (context) => this.#renderIn(context, input, job.fetch ?? this.#fetch, job.signal));
  }

  async #renderIn(context: BrowserContext, input: RenderInput, fetch: SubresourceFetcher, cancel: AbortSignal | undefined): Promise<RenderedPage> {
    const cancelled = (): boolean => cancel?.aborted === true;
    // Cancelled while it waited for a context: no page is opened.
    if (cancelled()) throw new RenderCancelledError(input.url);
    const started = performance.now();
    const deadline = started + this.#timeoutMs;
    // Ends the render's requests when it is done, or cancelled (the page is closed then, its context freed).
    const abort = new AbortController();
    const onCancel = (): void => abort.abort();
    cancel?.addEventListener('abort', onCancel, { once: true });
    const requests: RenderRequest[] = [];
    let pending = 0;
    let lastNetwork = performance.now();
    const page = await context.newPage();
    try {
      await page.route('**/*', async (route: Route) => {
        pending++;
        try {
          await this.#answer(route, route.request(), input, requests, fetch, abort.signal);
        } finally {
          pending--;
          lastNetwork = performance.now();
        }
      });
      await page.goto(input.url, { waitUntil: 'domcontentloaded', timeout: this.#timeoutMs }).catch(() => undefined);
      let timedOut = true;
      while (performance.now() < deadline && !abort.signal.aborted) {
        // The page itself waits for its DOM to be quiet (one round trip, not one per poll); the network is known here.
        const domQuiet = await beforeDeadline(page.evaluate(WAIT_FOR_QUIET_DOM).then(() => true, () => false), deadline, abort.signal);
        const networkQuietFor = performance.now() - lastNetwork;
        if (domQuiet && pending === 0 && networkQuietFor >= NETWORK_QUIET_MS) {
          timedOut = false;
          break;
        }
        await sleep(Math.min(Math.max(POLL_MS, NETWORK_QUIET_MS - networkQuietFor), Math.max(0, deadline - performance.now())));
      }
      if (cancelled()) throw new RenderCancelledError(input.url);
      abort.abort();
      const dom = await page.content().catch(() => '');
      return { dom, requests, ms: performance.now() - started, timedOut };
    } finally {
      cancel?.removeEventListener('abort', onCancel);
      abort.abort();
      await page.close().catch(() => undefined);
    }
  }

  async #answer(route: Route, request: Request, input: RenderInput, log: RenderRequest[], fetch: SubresourceFetcher, signal: AbortSignal): Promise<void> {
    const url = request.url();
    const type = request.resourceType();
    if (type === 'document' && request.isNavigationRequest() && request.frame().parentFrame() === null && url === input.url) {
      await route.fulfill({ status: input.status, headers: { 'content-type': input.contentType }, body: input.body }).catch(() => undefined);
      return;
    }
    const refuse = async (reason: string): Promise<void> => {
      log.push({ url, type, outcome: `blocked:${reason}` });
      await route.abort('blockedbyclient').catch(() => undefined);
    };
    if (!FETCHED_TYPES.has(type)) return refuse(`type:${type}`);
    if (request.method() !== 'GET') return refuse(`method:${request.method()}`);
    if (signal.aborted) return refuse('render-over');
    const outcome = await fetch(url, input.url, signal).catch((err: unknown): SubresourceOutcome => ({ kind: 'blocked', reason: `error:${err instanceof Error ? err.message : String(err)}` }));
    if (outcome.kind === 'blocked') return refuse(outcome.reason);
    log.push({ url, type, outcome: outcome.fromCache ? 'cached' : 'fetched' });
    await route.fulfill({ status: outcome.response.status, headers: outcome.response.headers, body: outcome.response.body }).catch(() => undefined);
  }
}


/** Once per context: no websockets, and the mutation clock every page's "done" test reads. */
async function prepareContext(context: BrowserContext): Promise<void> {
  await context.routeWebSocket(/.*/, (socket) => socket.close());
  await context.addInitScript(WATCH_MUTATIONS);
}
