/**
 * The render process: the browser pool and page renderer, in a process of their own at a
 * lower priority (started by render-process.ts). Talking to the browser (its protocol's
 * JSON, every fulfilled request's body) costs tens of milliseconds of CPU per page; here it
 * is not the crawl loop's, whose static pages then never wait behind a render. Each request
 * a page makes is sent back to the crawler, whose subresource fetcher decides and fetches.
 */
import { BrowserPool } from './browser-pool.ts';
import { PageRenderer, type RenderInput, type SubresourceOutcome } from './page-renderer.ts';
import { lowerPriority } from './process-priority.ts';
import type { FromRenderHost, RenderHostOptions, ToRenderHost } from './render-messages.ts';

const send = (message: FromRenderHost): void => {
  process.send?.(message);
};

const waitingFetches = new Map<number, (outcome: SubresourceOutcome) => void>();
/** Renders under way, by id: a 'cancel' aborts one. */
const cancels = new Map<number, AbortController>();
let nextFetchId = 1;
let pool: BrowserPool | undefined;
let renderer: PageRenderer | undefined;

/**
 * A subresource of render `renderId`, asked of the crawler, which hands it to that render's
 * crawl's fetcher; a render that ends first cancels what it still waits for.
 */
function fetchThroughCrawler(renderId: number, url: string, pageUrl: string, signal: AbortSignal): Promise<SubresourceOutcome> {
  if (signal.aborted) return Promise.resolve({ kind: 'blocked', reason: 'render-over' });
  const fetchId = nextFetchId++;
  return new Promise((resolve) => {
    const onAbort = (): void => {
      waitingFetches.delete(fetchId);
      send({ type: 'cancel-fetch', fetchId });
      resolve({ kind: 'blocked', reason: 'render-over' });
    };
    waitingFetches.set(fetchId, (outcome) => {
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    });
    signal.addEventListener('abort', onAbort, { once: true });
    send({ type: 'fetch', fetchId, renderId, url, pageUrl });
  });
}

function start(options: RenderHostOptions): void {
  pool = new BrowserPool({ executablePath: options.executablePath, contexts: options.contexts });
  // Every render is given its own fetcher (below): this one serves none.
  renderer = new PageRenderer(pool, async () => ({ kind: 'blocked', reason: 'no-render' }), options.timeoutMs);
}

async function render(id: number, input: RenderInput): Promise<void> {
  if (pool === undefined || renderer === undefined) {
    send({ type: 'failed', id, message: 'the render process was not started', unavailable: false });
    return;
  }
  const cancel = new AbortController();
  cancels.set(id, cancel);
  try {
    const page = await renderer.render(input, { fetch: (url, pageUrl, signal) => fetchThroughCrawler(id, url, pageUrl, signal), signal: cancel.signal });
    send({ type: 'rendered', id, page });
  } catch (err) {
    send({ type: 'failed', id, message: err instanceof Error ? err.message : String(err), unavailable: pool.unavailable !== undefined });
  } finally {
    cancels.delete(id);
  }
}

lowerPriority([process.pid]);
process.on('message', (message: ToRenderHost) => {
  if (message.type === 'start') start(message.options);
  else if (message.type === 'render') void render(message.id, message.input);
  else if (message.type === 'cancel') cancels.get(message.id)?.abort();
  else {
    waitingFetches.get(message.fetchId)?.(message.outcome);
    waitingFetches.delete(message.fetchId);
  }
});
// The crawler is gone (it ended, or was killed): the browser goes with this process.
process.once('disconnect', () => {
  void (pool?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
