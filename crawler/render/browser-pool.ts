import type { Browser, BrowserContext } from 'playwright-core';
import { descendantPids, descendantsMemoryMb } from './browser-memory.ts';
import { lowerPriority } from './process-priority.ts';
import { BrowserUnavailableError } from '../errors.ts';

/** Pages a context renders before it is closed and made afresh (its caches and leaks go with it). */
const PAGES_PER_CONTEXT = 50;
/** Pages the browser renders before it is restarted, which bounds its memory on a long crawl. */
const PAGES_PER_BROWSER = 500;
/** The browser is also restarted when its processes hold more than this (looked at every MEMORY_CHECK_EVERY pages). */
const BROWSER_MEMORY_MB = 450;
const MEMORY_CHECK_EVERY = 25;
/** Launches that fail in a row before the pool gives up: a browser that cannot start would otherwise be tried for every page. */
const MAX_LAUNCH_FAILURES = 3;

const LAUNCH_ARGS = [
  '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-extensions', '--mute-audio', '--disable-features=Translate,MediaRouter,OptimizationHints',
  // Every request a page makes is answered by Forager (page-renderer.ts); anything that slips
  // past would go to a proxy that does not exist, loopback included, so nothing reaches the network.
  '--proxy-bypass-list=<-loopback>',
  // Nor does anything reach DNS (a <link rel=dns-prefetch> or preconnect would resolve a name
  // here, beside the crawl's proxy) or UDP (WebRTC's STUN, which no HTTP proxy carries).
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

export interface BrowserPoolOptions {
  executablePath: string;
  /** Contexts open at once: the most pages rendered at the same time. */
  contexts: number;
}

interface Slot {
  context: BrowserContext | undefined;
  pages: number;
}

/**
 * One browser process and a few contexts, lent one render at a time. Contexts are recycled
 * by page count, and the browser restarted by page count or by the memory its processes
 * hold, between renders; a browser that died is launched again on the next render.
 */
export class BrowserPool {
  readonly #options: BrowserPoolOptions;
  #browser: Promise<Browser> | undefined;
  #browserPages = 0;
  #memoryCheckedAt = 0;
  readonly #free: Slot[] = [];
  readonly #waiting: ((slot: Slot) => void)[] = [];
  #closed = false;
  #launchFailures = 0;
  #launching: Promise<void> | undefined;
  #unavailable: BrowserUnavailableError | undefined;

  constructor(options: BrowserPoolOptions) {
    this.#options = options;
    for (let i = 0; i < options.contexts; i++) this.#free.push({ context: undefined, pages: 0 });
  }

  /** Why the pool gave up on its browser (it failed to start MAX_LAUNCH_FAILURES times in a row), if it did. */
  get unavailable(): BrowserUnavailableError | undefined {
    return this.#unavailable;
  }

  /** Runs `work` with a context of its own; the context is given back (or recycled) after. */
  async withContext<T>(prepare: (context: BrowserContext) => Promise<void>, work: (context: BrowserContext) => Promise<T>): Promise<T> {
    const slot = await this.#take();
    try {
      if (this.#unavailable !== undefined) throw this.#unavailable;
      if (slot.context === undefined || slot.pages >= PAGES_PER_CONTEXT || !(await this.#browserAlive())) {
        await slot.context?.close().catch(() => undefined);
        slot.context = await this.#newContext();
        slot.pages = 0;
        await prepare(slot.context);
      }
      slot.pages++;
      this.#browserPages++;
      return await work(slot.context);
    } finally {
      // A context's first page starts the processes it needs (a renderer, the GPU process, which
      // Chromium raises itself): they are lowered once it is done, so the crawler's own work goes first.
      if (slot.pages === 1) lowerPriority(descendantPids() ?? []);
      this.#give(slot);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const browser = this.#browser;
    this.#browser = undefined;
    if (browser !== undefined) await (await browser.catch(() => undefined))?.close().catch(() => undefined);
  }

  async #browserAlive(): Promise<boolean> {
    if (this.#browser === undefined) return false;
    const browser = await this.#browser.catch(() => undefined);
    if (browser?.isConnected() !== true) return false;
    // A restart waits until no other render is open, so that it cuts none short.
    if (this.#free.length < this.#options.contexts - 1) return true;
    if (this.#browserPages >= PAGES_PER_BROWSER) return false;
    if (this.#browserPages - this.#memoryCheckedAt < MEMORY_CHECK_EVERY) return true;
    this.#memoryCheckedAt = this.#browserPages;
    return (descendantsMemoryMb() ?? 0) <= BROWSER_MEMORY_MB;
  }

  async #newContext(): Promise<BrowserContext> {
    // Renders that find the browser gone at once share one launch (and one failure).
    if (!(await this.#browserAlive())) await (this.#launching ??= this.#restart().finally(() => (this.#launching = undefined)));
    const browser = await (this.#browser as Promise<Browser>);
    return browser.newContext({ serviceWorkers: 'block', acceptDownloads: false, javaScriptEnabled: true, bypassCSP: false, viewport: { width: 1280, height: 900 } });
  }

  async #restart(): Promise<void> {
    if (this.#closed) throw new Error('the browser pool is closed');
    // A render that got past withContext's check while the last allowed launch was failing.
    if (this.#unavailable !== undefined) throw this.#unavailable;
    const old = this.#browser;
    this.#browser = undefined;
    // Contexts of the old browser die with it: every slot makes a new one on its next render.
    for (const slot of this.#free) slot.context = undefined;
    if (old !== undefined) await (await old.catch(() => undefined))?.close().catch(() => undefined);
    this.#browserPages = 0;
    this.#memoryCheckedAt = 0;
    // Loaded on the first render only: a crawl that renders nothing does not carry playwright's modules.
    const { chromium } = await import('playwright-core');
    this.#browser = chromium.launch({
      executablePath: this.#options.executablePath,
      headless: true,
      args: [...LAUNCH_ARGS, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      proxy: { server: 'http://127.0.0.1:9' },
      timeout: 30_000,
    });
    try {
      await this.#browser;
      this.#launchFailures = 0;
    } catch (err) {
      this.#launchFailures++;
      const cause = err instanceof Error ? err.message.split('\n')[0] : String(err);
      const failure = new BrowserUnavailableError(`the browser ${this.#options.executablePath} could not be started (${cause})`, { executablePath: this.#options.executablePath, attempts: this.#launchFailures }, { cause: err });
      if (this.#launchFailures >= MAX_LAUNCH_FAILURES) this.#unavailable = failure;
      throw failure;
    }
  }

  #take(): Promise<Slot> {
    const slot = this.#free.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #give(slot: Slot): void {
    const waiter = this.#waiting.shift();
    if (waiter !== undefined) waiter(slot);
    else this.#free.push(slot);
  }
}
