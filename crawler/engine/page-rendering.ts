import { hostRenderModes, type CrawlSettings, type RenderMode } from '../protocol/settings.ts';
import { contentTerms } from '../relevance/text.ts';
import type { SubresourceFetcher } from '../render/page-renderer.ts';
import type { ClosableRenderer } from '../render/render-gate.ts';
import { RenderPolicy } from '../render/render-policy.ts';
import { RENDER_CONTEXTS, SharedRendering } from '../render/shared-rendering.ts';
import { RenderStage, type RenderStageDeps } from './render-stage.ts';

/** Pages waiting for or in the browser, at most: beyond it, hosts whose pages go to the browser wait their turn. */
const RENDER_BACKLOG = RENDER_CONTEXTS * 2;

export interface PageRenderingDeps extends Pick<RenderStageDeps, 'analyseDom' | 'wouldBeHot'> {
  settings: Pick<CrawlSettings, 'render' | 'renderHostModes' | 'browserPath' | 'renderTimeoutMs' | 'query' | 'maxDecodedBytes'>;
  /** What fetches a render's scripts and API calls. */
  subresources: SubresourceFetcher;
  /** Pages fetched this run: with those rendered, how much work the CPU is busy with. */
  pagesFetched(): number;
  /** The browser of several crawls in this process (a cluster worker's shards); by default the crawl starts its own. */
  shared: SharedRendering | undefined;
  /** Aborted with the run: renders under way are cancelled (their pages stay queued), the shared browser left to the others. */
  signal: AbortSignal;
}

/**
 * A crawl's rendering of pages built by scripts: whether a page is rendered (learnt per host
 * and path, and kept without a browser too, for the hosts' modes the UI shows), and its way
 * into a browser with its render stage, opened once any page may be rendered. The browser is
 * the crawl's own, or one shared by the crawls of a cluster worker (shared-rendering.ts).
 */
export class PageRendering {
  readonly policy: RenderPolicy;
  readonly #deps: PageRenderingDeps;
  /** The browser: the shared one, or the crawl's own (made here, closed with the crawl). */
  readonly #browser: SharedRendering;
  #stage: RenderStage | undefined;
  #renderer: ClosableRenderer | undefined;
  /** Set when no browser was found for a crawl that renders (see notice). */
  #noBrowser: string | undefined;

  constructor(deps: PageRenderingDeps) {
    const { settings } = deps;
    this.#deps = deps;
    this.#browser = deps.shared ?? new SharedRendering(settings);
    deps.signal.addEventListener('abort', () => void this.#renderer?.close(), { once: true });
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

  /** Cancels the crawl's renders still open, and ends its browser unless it is shared. */
  async close(): Promise<void> {
    await this.#renderer?.close();
    if (this.#browser !== this.#deps.shared) await this.#browser.close();
  }

  /** A way into a browser for pages built by scripts; without one, a notice and no rendering. */
  #start(): void {
    if (this.#stage !== undefined) return;
    const { settings } = this.#deps;
    const lane = this.#browser.lane(this.#deps.subresources, () => this.#deps.pagesFetched() - (this.#stage?.rendered ?? 0) - (this.#stage?.failed ?? 0));
    if (lane.kind === 'missing') {
      this.#noBrowser = lane.message;
      return;
    }
    this.#renderer = lane.renderer;
    // A run aborted before its first render: nothing is rendered.
    if (this.#deps.signal.aborted) void lane.renderer.close();
    this.#stage = new RenderStage({
      policy: this.policy,
      queryTerms: [...new Set(contentTerms(settings.query))],
      renderer: lane.renderer,
      analyseDom: this.#deps.analyseDom,
      wouldBeHot: this.#deps.wouldBeHot,
      // The decoded-size cap of any page, in characters.
      maxDomChars: settings.maxDecodedBytes,
    }, RENDER_BACKLOG);
  }
}
