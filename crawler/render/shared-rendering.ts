import { CpuPressure } from './cpu-pressure.ts';
import { findBrowser } from './find-browser.ts';
import type { RenderedPage, RenderInput, SubresourceFetcher } from './page-renderer.ts';
import { RenderGate, type ClosableRenderer } from './render-gate.ts';
import { RenderProcess } from './render-process.ts';

/** Pages rendered at once: each context is a renderer's worth of memory on a small machine. */
export const RENDER_CONTEXTS = 2;
/** While the crawl keeps the CPU busy, one render still starts this often (render-gate.ts). */
const RENDER_TRICKLE_MS = 5000;
const RENDER_GATE_POLL_MS = 100;

export interface SharedRenderingSettings {
  /** Where the browser is ('' to look for one). */
  browserPath: string;
  renderTimeoutMs: number;
}

/** A crawl's way into the browser, or why it has none. */
export type RenderLaneOrMissing = { kind: 'ready'; renderer: ClosableRenderer } | { kind: 'missing'; message: string };

/**
 * The browser of the crawls in this process: one render process (its RENDER_CONTEXTS pages
 * at once) behind one gate that holds renders back while the crawls keep the CPU busy with
 * pages that need no browser. A plain crawl has one of its own; a cluster worker has one for
 * all its shards, so that a worker runs one browser however many shards render.
 *
 * Each crawl renders through a lane of its own: its renders' subresources go through its own
 * fetcher (its robots.txt, politeness, SSRF guard and store), and closing the lane cancels
 * its renders, waiting or under way, without touching the browser. Nothing starts before the
 * first lane is opened, nor the browser before the first render.
 */
export class SharedRendering {
  readonly #settings: SharedRenderingSettings;
  #gate: RenderGate | undefined;
  #missing: string | undefined;
  readonly #lanes = new Set<RenderLane>();
  /** Pages stored without a browser by crawls whose lanes are closed: the pressure's count goes on from them. */
  #retiredPages = 0;
  #closed = false;

  constructor(settings: SharedRenderingSettings) {
    this.#settings = settings;
  }

  /** Whether the browser's process and gate were set up (a lane was opened and a browser found). */
  get started(): boolean {
    return this.#gate !== undefined;
  }

  /**
   * A lane for one crawl: `fetch` serves its renders' subresources; `pagesWithoutBrowser`
   * counts the pages it stored without rendering them (what tells the gate the crawl is busy).
   */
  lane(fetch: SubresourceFetcher, pagesWithoutBrowser: () => number): RenderLaneOrMissing {
    if (this.#missing !== undefined) return { kind: 'missing', message: this.#missing };
    const gate = this.#gate ?? this.#start();
    if (gate === undefined) return { kind: 'missing', message: this.#missing ?? 'no browser' };
    const lane = new RenderLane(gate, fetch, pagesWithoutBrowser, (closed) => {
      this.#lanes.delete(closed);
      this.#retiredPages += closed.pagesWithoutBrowser();
    });
    this.#lanes.add(lane);
    return { kind: 'ready', renderer: lane };
  }

  /** Ends the browser: renders still open fail (their pages are stored as their HTML gave them), as when a crawl's own browser closes. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#gate?.close();
  }

  #start(): RenderGate | undefined {
    if (this.#closed) {
      this.#missing = 'the renderer is closed';
      return undefined;
    }
    const browser = findBrowser(this.#settings.browserPath);
    if (browser.kind === 'missing') {
      this.#missing = browser.message;
      return undefined;
    }
    const process = new RenderProcess({ executablePath: browser.path, contexts: RENDER_CONTEXTS, timeoutMs: this.#settings.renderTimeoutMs });
    const pressure = new CpuPressure(() => this.#pagesWithoutBrowser());
    this.#gate = new RenderGate(process, pressure, { slots: RENDER_CONTEXTS, trickleMs: RENDER_TRICKLE_MS, pollMs: RENDER_GATE_POLL_MS });
    return this.#gate;
  }

  #pagesWithoutBrowser(): number {
    let pages = this.#retiredPages;
    for (const lane of this.#lanes) pages += lane.pagesWithoutBrowser();
    return pages;
  }
}

/** One crawl's renders in the shared browser, with its own subresource fetcher. */
class RenderLane implements ClosableRenderer {
  readonly #gate: RenderGate;
  readonly #fetch: SubresourceFetcher;
  readonly pagesWithoutBrowser: () => number;
  readonly #closed: (lane: RenderLane) => void;
  readonly #cancel = new AbortController();

  constructor(gate: RenderGate, fetch: SubresourceFetcher, pagesWithoutBrowser: () => number, closed: (lane: RenderLane) => void) {
    this.#gate = gate;
    this.#fetch = fetch;
    this.pagesWithoutBrowser = pagesWithoutBrowser;
    this.#closed = closed;
  }

  get unavailable(): Error | undefined {
    return this.#gate.unavailable;
  }

  render(input: RenderInput): Promise<RenderedPage> {
    return this.#gate.render(input, { fetch: this.#fetch, signal: this.#cancel.signal });
  }

  /** Cancels this crawl's renders (its fetcher is asked nothing more); the browser goes on for the others. */
  async close(): Promise<void> {
    if (this.#cancel.signal.aborted) return;
    this.#cancel.abort();
    this.#closed(this);
  }
}
