import { RenderCancelledError } from '../errors.ts';
import type { RenderedPage, Renderer, RenderInput, RenderJob } from './page-renderer.ts';
import type { Pressure } from './cpu-pressure.ts';

export interface RenderGateOptions {
  /** Renders handed to the browser at once: its contexts. More would only queue inside it, past the gate. */
  slots: number;
  /** While the crawler is busy, one render still starts this often, so that rendering never stops. */
  trickleMs: number;
  /** How often waiting renders are looked at again. */
  pollMs: number;
}

interface Waiting {
  input: RenderInput;
  job: RenderJob;
  resolve(page: RenderedPage): void;
  reject(err: Error): void;
}

/** The inner renderer: it renders, and it can be shut. */
export interface ClosableRenderer extends Renderer {
  close(): Promise<void>;
}

/**
 * Starts renders only while the crawler's own work leaves the CPU to them. A static page
 * costs about a millisecond, a render hundreds: on a small machine a browser beside a busy
 * crawl slows every static page, even at the lowest priority. So while the crawler is busy
 * (`pressure`), renders wait, one still starting every `trickleMs`; once it is not, they
 * start as fast as the browser takes them. Renders never wait in a crawl that waits for its
 * hosts' politeness, which keeps its CPU mostly idle.
 */
export class RenderGate implements ClosableRenderer {
  readonly #inner: ClosableRenderer;
  readonly #pressure: Pressure;
  readonly #options: RenderGateOptions;
  readonly #waiting: Waiting[] = [];
  #running = 0;
  #lastStart = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(inner: ClosableRenderer, pressure: Pressure, options: RenderGateOptions) {
    this.#inner = inner;
    this.#pressure = pressure;
    this.#options = options;
  }

  get unavailable(): Error | undefined {
    return this.#inner.unavailable;
  }

  /** Renders held back by the gate, not yet handed to the browser. */
  get waiting(): number {
    return this.#waiting.length;
  }

  render(input: RenderInput, job: RenderJob = {}): Promise<RenderedPage> {
    if (this.#closed) return Promise.reject(new Error('the renderer is closed'));
    const { signal } = job;
    if (signal?.aborted === true) return Promise.reject(new RenderCancelledError(input.url));
    return new Promise<RenderedPage>((resolve, reject) => {
      const waiting: Waiting = {
        input,
        job,
        resolve: (page) => {
          signal?.removeEventListener('abort', onCancel);
          resolve(page);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onCancel);
          reject(err);
        },
      };
      // Cancelled while it waits here, a render leaves the queue; once started, the inner renderer hears the signal.
      const onCancel = (): void => {
        const at = this.#waiting.indexOf(waiting);
        if (at < 0) return;
        this.#waiting.splice(at, 1);
        waiting.reject(new RenderCancelledError(input.url));
      };
      signal?.addEventListener('abort', onCancel, { once: true });
      this.#waiting.push(waiting);
      this.#admit();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#pressure.stop();
    const closed = new Error('the renderer is closed');
    for (const waiting of this.#waiting.splice(0)) waiting.reject(closed);
    await this.#inner.close();
  }

  #admit(): void {
    while (this.#waiting.length > 0 && this.#running < this.#options.slots && this.#mayStart()) {
      this.#start(this.#waiting.shift() as Waiting);
    }
    this.#poll();
  }

  #mayStart(): boolean {
    if (!this.#pressure.busy) return true;
    return this.#running === 0 && performance.now() - this.#lastStart >= this.#options.trickleMs;
  }

  #start(waiting: Waiting): void {
    this.#running++;
    this.#lastStart = performance.now();
    this.#inner.render(waiting.input, waiting.job).then(waiting.resolve, waiting.reject).finally(() => {
      this.#running--;
      if (!this.#closed) this.#admit();
    });
  }

  /** Looks again while renders wait; stops looking when none do. */
  #poll(): void {
    if (this.#waiting.length === 0 || this.#closed) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    if (this.#timer !== undefined) return;
    // Not unref'd: a crawl whose last work is a waiting render must not exit under it.
    this.#timer = setInterval(() => this.#admit(), this.#options.pollMs);
  }
}
