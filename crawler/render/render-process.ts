import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BrowserUnavailableError, RenderCancelledError } from '../errors.ts';
import type { RenderedPage, Renderer, RenderInput, RenderJob, SubresourceFetcher, SubresourceOutcome } from './page-renderer.ts';
import type { FromRenderHost, RenderHostOptions, ToRenderHost } from './render-messages.ts';

const HOST_FILE = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './render-host.ts' : './render-host.js', import.meta.url));
/** The CLI's heap flags (bin/forager.js says why): the render process holds little but messages. */
const HOST_EXEC_ARGV = ['--max-semi-space-size=2', '--heap-growing-percent=100'];
/** Render processes that die in a row, without a page rendered between, before rendering is given up. */
const MAX_CRASHES = 3;

interface PendingRender {
  resolve(page: RenderedPage): void;
  reject(err: Error): void;
  /** The fetcher of the render's crawl. */
  fetch: SubresourceFetcher;
  /** Stops listening for the render's cancellation. */
  done(): void;
}

interface RunningFetch {
  renderId: number;
  abort: AbortController;
}

/** What a request of a render that is over, or that no crawl claims, is told. */
const RENDER_OVER: SubresourceOutcome = { kind: 'blocked', reason: 'render-over' };

/**
 * Renders pages in a process of its own (render-host.ts), started on the first render and
 * again if it dies. The requests its pages make come back here and go through the render's
 * subresource fetcher (its job's, else `fetch`), so robots.txt, politeness, the SSRF guard
 * and the cache stay those of the crawl the page belongs to: one process serves every shard
 * of a cluster worker, each render with its own shard's fetcher.
 */
export class RenderProcess implements Renderer {
  readonly #options: RenderHostOptions;
  readonly #fetch: SubresourceFetcher;
  #child: ChildProcess | undefined;
  readonly #pending = new Map<number, PendingRender>();
  readonly #fetches = new Map<number, RunningFetch>();
  #nextId = 1;
  #crashes = 0;
  #unavailable: BrowserUnavailableError | undefined;
  #closed = false;

  /** `fetch`: serves renders whose job names no fetcher; without it, their requests are refused. */
  constructor(options: RenderHostOptions, fetch: SubresourceFetcher = async () => RENDER_OVER) {
    this.#options = options;
    this.#fetch = fetch;
  }

  get unavailable(): Error | undefined {
    return this.#unavailable;
  }

  render(input: RenderInput, job: RenderJob = {}): Promise<RenderedPage> {
    if (this.#unavailable !== undefined) return Promise.reject(this.#unavailable);
    if (this.#closed) return Promise.reject(new Error('the render process is closed'));
    const { signal } = job;
    if (signal?.aborted === true) return Promise.reject(new RenderCancelledError(input.url));
    const child = this.#child ?? this.#start();
    const id = this.#nextId++;
    return new Promise<RenderedPage>((resolve, reject) => {
      const onCancel = (): void => this.#cancel(id, new RenderCancelledError(input.url));
      signal?.addEventListener('abort', onCancel, { once: true });
      this.#pending.set(id, { resolve, reject, fetch: job.fetch ?? this.#fetch, done: () => signal?.removeEventListener('abort', onCancel) });
      child.send({ type: 'render', id, input } satisfies ToRenderHost);
    });
  }

  /**
   * A render its crawl no longer wants: it fails at once, its crawl's fetcher is asked
   * nothing more (requests under way are aborted, later ones refused), and the render
   * process closes the page.
   */
  #cancel(id: number, error: RenderCancelledError): void {
    const pending = this.#settle(id);
    if (pending === undefined) return;
    for (const [fetchId, fetch] of this.#fetches) {
      if (fetch.renderId !== id) continue;
      fetch.abort.abort();
      this.#fetches.delete(fetchId);
    }
    if (this.#child?.connected === true) this.#child.send({ type: 'cancel', id } satisfies ToRenderHost);
    pending.reject(error);
  }

  /** Ends the process (and its browser with it); renders still open fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Disconnecting asks it to close its browser and exit; a process that does not is killed.
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  #start(): ChildProcess {
    const child = fork(HOST_FILE, [], { execArgv: HOST_EXEC_ARGV, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.send({ type: 'start', options: this.#options } satisfies ToRenderHost);
    child.on('message', (message: FromRenderHost) => this.#onMessage(child, message));
    child.once('exit', (code, signal) => this.#onExit(child, code, signal));
    // A send to a process that is going away fails here; its renders fail with its exit.
    child.on('error', () => undefined);
    this.#child = child;
    return child;
  }

  #onMessage(child: ChildProcess, message: FromRenderHost): void {
    switch (message.type) {
      case 'rendered':
        this.#crashes = 0;
        this.#settle(message.id)?.resolve(message.page);
        break;
      case 'failed':
        if (message.unavailable) this.#unavailable ??= new BrowserUnavailableError(message.message, { executablePath: this.#options.executablePath });
        this.#settle(message.id)?.reject(this.#unavailable ?? new Error(message.message));
        break;
      case 'fetch': {
        const fetch = this.#pending.get(message.renderId)?.fetch;
        const abort = new AbortController();
        if (fetch !== undefined) this.#fetches.set(message.fetchId, { renderId: message.renderId, abort });
        // A render cancelled (or never known) asks its crawl nothing: that crawl may be closed.
        void (fetch === undefined ? Promise.resolve(RENDER_OVER) : fetch(message.url, message.pageUrl, abort.signal))
          .catch((err: unknown): SubresourceOutcome => ({ kind: 'blocked', reason: `error:${err instanceof Error ? err.message : String(err)}` }))
          .then((outcome) => {
            this.#fetches.delete(message.fetchId);
            if (child.connected) child.send({ type: 'fetched', fetchId: message.fetchId, outcome } satisfies ToRenderHost);
          });
        break;
      }
      case 'cancel-fetch':
        this.#fetches.get(message.fetchId)?.abort.abort();
        break;
    }
  }

  #settle(id: number): PendingRender | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.done();
    return pending;
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    for (const fetch of this.#fetches.values()) fetch.abort.abort();
    this.#fetches.clear();
    if (!this.#closed && ++this.#crashes >= MAX_CRASHES) {
      this.#unavailable ??= new BrowserUnavailableError(`the render process stopped ${MAX_CRASHES} times in a row (last: ${signal ?? `exit code ${code}`})`, { executablePath: this.#options.executablePath });
    }
    const failure = this.#unavailable ?? new Error(`the render process stopped (${signal ?? `exit code ${code}`})`);
    for (const pending of this.#pending.values()) {
      pending.done();
      pending.reject(failure);
    }
    this.#pending.clear();
  }
}

