import { hostRenderModes, type CrawlSettings, type RenderMode } from '../protocol/settings.ts';
import { contentTerms } from '../relevance/text.ts';
import { CpuPressure } from '../render/cpu-pressure.ts';
import { findBrowser } from '../render/find-browser.ts';
import type { SubresourceFetcher } from '../render/page-renderer.ts';
import { RenderGate } from '../render/render-gate.ts';
import { RenderPolicy } from '../render/render-policy.ts';
import { RenderProcess } from '../render/render-process.ts';
import { RenderStage, type RenderStageDeps } from './render-stage.ts';

/** Pages rendered at once: each context is a renderer's worth of memory on a small machine. */
const RENDER_CONTEXTS = 2;
/** Pages waiting for or in the browser, at most: beyond it, hosts whose pages go to the browser wait their turn. */
const RENDER_BACKLOG = RENDER_CONTEXTS * 2;
/** While the crawl keeps the CPU busy, one render still starts this often (render-gate.ts). */
const RENDER_TRICKLE_MS = 5000;
const RENDER_GATE_POLL_MS = 100;

export interface PageRenderingDeps extends Pick<RenderStageDeps, 'analyseDom' | 'wouldBeHot'> {
  settings: Pick<CrawlSettings, 'render' | 'renderHostModes' | 'browserPath' | 'renderTimeoutMs' | 'query' | 'maxDecodedBytes'>;
  /** What fetches a render's scripts and API calls. */
  subresources: SubresourceFetcher;
  /** Pages fetched this run: with those rendered, how much work the CPU is busy with. */
  pagesFetched(): number;
}

/**
 * A crawl's rendering of pages built by scripts: whether a page is rendered (learnt per host
 * and path, and kept without a browser too, for the hosts' modes the UI shows), and the
 * browser with its render stage, started once any page may be rendered.
 */
export class PageRendering {
  readonly policy: RenderPolicy;
  readonly #deps: PageRenderingDeps;
  #stage: RenderStage | undefined;
  #gate: RenderGate | undefined;
  /** Set when no browser was found for a crawl that renders (see notice). */
  #noBrowser: string | undefined;

  constructor(deps: PageRenderingDeps) {
    const { settings } = deps;
    this.#deps = deps;
    this.policy = new RenderPolicy(settings.render, hostRenderModes(settings.renderHostModes));
    const someRendering = settings.render !== 'never' || settings.renderHostModes.some((entry) => !entry.endsWith('=never'));
    if (someRendering) this.#start();
  }

  /** The render stage; undefined while no page may be rendered or no browser was found. */
  get stage(): RenderStage | undefined {
    return this.#stage;
  }

  /** Why pages are not rendered although the settings ask for it (no browser found, or it would not start). */
  get notice(): string | undefined {
    return this.#noBrowser ?? this.#stage?.unavailable;
  }

  /** Sets how one host's pages are rendered from now on (null: the crawl's own mode); a crawl that rendered nothing yet finds its browser now. */
  setHostMode(host: string, mode: RenderMode | null): void {
    this.policy.setHostMode(host, mode);
    if (mode !== null && mode !== 'never') this.#start();
  }

  async close(): Promise<void> {
    await this.#gate?.close();
  }

  /** A browser for pages built by scripts; without one, a notice and no rendering. */
  #start(): void {
    if (this.#stage !== undefined) return;
    const { settings } = this.#deps;
    const browser = findBrowser(settings.browserPath);
    if (browser.kind === 'missing') {
      this.#noBrowser = browser.message;
      return;
    }
    const renderProcess = new RenderProcess({ executablePath: browser.path, contexts: RENDER_CONTEXTS, timeoutMs: settings.renderTimeoutMs }, this.#deps.subresources);
    const pressure = new CpuPressure(() => this.#deps.pagesFetched() - (this.#stage?.rendered ?? 0) - (this.#stage?.failed ?? 0));
    this.#gate = new RenderGate(renderProcess, pressure, { slots: RENDER_CONTEXTS, trickleMs: RENDER_TRICKLE_MS, pollMs: RENDER_GATE_POLL_MS });
    this.#stage = new RenderStage({
      policy: this.policy,
      queryTerms: [...new Set(contentTerms(settings.query))],
      renderer: this.#gate,
      analyseDom: this.#deps.analyseDom,
      wouldBeHot: this.#deps.wouldBeHot,
      // The decoded-size cap of any page, in characters.
      maxDomChars: settings.maxDecodedBytes,
    }, RENDER_BACKLOG);
  }
}
