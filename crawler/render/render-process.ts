import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BrowserUnavailableError } from '../errors.ts';
import type { RenderedPage, Renderer, RenderInput, SubresourceFetcher } from './page-renderer.ts';
import type { FromRenderHost, RenderHostOptions, ToRenderHost } from './render-messages.ts';

const HOST_FILE = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './render-host.ts' : './render-host.js', import.meta.url));
/** The CLI's heap flags (bin/forager.js says why): the render process holds little but messages. */
const HOST_EXEC_ARGV = ['--max-semi-space-size=2', '--heap-growing-percent=100'];
/** Render processes that die in a row, without a page rendered between, before rendering is given up. */
const MAX_CRASHES = 3;

interface PendingRender {
  resolve(page: RenderedPage): void;
  reject(err: Error): void;
}

/**
 * Renders pages in a process of its own (render-host.ts), started on the first render and
 * again if it dies. The requests its pages make come back here and go through `fetch`, the
 * crawler's subresource fetcher, so robots.txt, politeness, the SSRF guard and the cache
 * stay the crawler's.
 */
export class RenderProcess implements Renderer {
  readonly #options: RenderHostOptions;
  readonly #fetch: SubresourceFetcher;
  #child: ChildProcess | undefined;
  readonly #pending = new Map<number, PendingRender>();
  readonly #fetches = new Map<number, AbortController>();
  #nextId = 1;
  #crashes = 0;
  #unavailable: BrowserUnavailableError | undefined;
  #closed = false;

  constructor(options: RenderHostOptions, fetch: SubresourceFetcher) {
    this.#options = options;
    this.#fetch = fetch;
  }

  get unavailable(): Error | undefined {
    return this.#unavailable;
  }

  render(input: RenderInput): Promise<RenderedPage> {
    if (this.#unavailable !== undefined) return Promise.reject(this.#unavailable);
    if (this.#closed) return Promise.reject(new Error('the render process is closed'));
    const child = this.#child ?? this.#start();
    const id = this.#nextId++;
    return new Promise<RenderedPage>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      child.send({ type: 'render', id, input } satisfies ToRenderHost);
    });
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
        const abort = new AbortController();
        this.#fetches.set(message.fetchId, abort);
        void this.#fetch(message.url, message.pageUrl, abort.signal)
          .catch((err: unknown) => ({ kind: 'blocked' as const, reason: `error:${err instanceof Error ? err.message : String(err)}` }))
          .then((outcome) => {
            this.#fetches.delete(message.fetchId);
            if (child.connected) child.send({ type: 'fetched', fetchId: message.fetchId, outcome } satisfies ToRenderHost);
          });
        break;
      }
      case 'cancel-fetch':
        this.#fetches.get(message.fetchId)?.abort();
        break;
    }
  }

  #settle(id: number): PendingRender | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    return pending;
  }

  #onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    for (const abort of this.#fetches.values()) abort.abort();
    this.#fetches.clear();
    if (!this.#closed && ++this.#crashes >= MAX_CRASHES) {
      this.#unavailable ??= new BrowserUnavailableError(`the render process stopped ${MAX_CRASHES} times in a row (last: ${signal ?? `exit code ${code}`})`, { executablePath: this.#options.executablePath });
    }
    const failure = this.#unavailable ?? new Error(`the render process stopped (${signal ?? `exit code ${code}`})`);
    for (const pending of this.#pending.values()) pending.reject(failure);
    this.#pending.clear();
  }
}
