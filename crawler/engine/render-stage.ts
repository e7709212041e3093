import { RenderCancelledError } from '../errors.ts';
import type { FetchResult } from '../net/fetch-page.ts';
import type { ResponseAnalysis } from '../parse/analyse-response.ts';
import type { Renderer } from '../render/page-renderer.ts';
import type { RenderComparison, RenderPlan, RenderPolicy } from '../render/render-policy.ts';
import type { QueuedUrl } from '../store/url-store.ts';
import type { RenderedAnalysis } from './page-recorder.ts';

export interface RenderStageDeps {
  policy: RenderPolicy;
  /** The driving query's content terms (stems, as text.ts makes them). */
  queryTerms: readonly string[];
  renderer: Renderer;
  /** Rendered DOMs longer than this are dropped (the page is stored as its HTML gave it). */
  maxDomChars: number;
  /** Parses a rendered DOM as a page of the task's URL (a parse worker's job). */
  analyseDom(task: QueuedUrl, dom: string): Promise<ResponseAnalysis>;
  /** The judge's verdict on a version of the page as things stand, learning nothing (undefined: it cannot say). */
  wouldBeHot(task: QueuedUrl, analysis: ResponseAnalysis): boolean | undefined;
}

/**
 * Between fetching a page and storing it: whether to render it (the policy, from the
 * parser's signs), the render itself, and what the render changed, which the policy learns
 * from. A render that fails leaves the page as its HTML gave it. Pages waiting for their
 * group to learn count as held by the stage.
 */
export class RenderStage {
  readonly #deps: RenderStageDeps;
  readonly #capacity: number;
  #pending = 0;
  rendered = 0;
  failed = 0;

  /** `capacity`: pages handed to the stage and not yet done beyond which it reports itself saturated. */
  constructor(deps: RenderStageDeps, capacity: number) {
    this.#deps = deps;
    this.#capacity = capacity;
  }

  /** True while as many pages as the stage holds are waiting for or in the browser. */
  get saturated(): boolean {
    return this.#pending >= this.#capacity;
  }

  /** Why the stage renders nothing any more (its browser would not start), if so. */
  get unavailable(): string | undefined {
    return this.#deps.renderer.unavailable?.message;
  }

  /** Only an HTML page that parsed, only while there is a browser, and what the policy says; 'skip' otherwise. */
  plan(task: QueuedUrl, result: FetchResult, raw: ResponseAnalysis): RenderPlan {
    if (this.unavailable !== undefined) return 'skip';
    if (task.kind !== 'page' || raw.page === null || result.status < 200 || result.status >= 300 || result.body === undefined) return 'skip';
    return this.#deps.policy.plan(task.url, raw.browserNeed);
  }

  /**
   * Renders the page and parses its DOM, after waiting for its group to learn when `plan` says
   * so; undefined when the page is not rendered after all or the render failed (the page is
   * then stored as its HTML gave it). The policy learns from every render, or hears that it
   * gave up, so that pages waiting on its learning go on. A cancelled render throws its
   * RenderCancelledError.
   */
  async render(task: QueuedUrl, result: FetchResult, raw: ResponseAnalysis, plan: Exclude<RenderPlan, 'skip'> = 'render'): Promise<RenderedAnalysis | undefined> {
    this.#pending++;
    try {
      if (plan === 'wait' && (await this.#deps.policy.afterWait(task.url)) === 'skip') return undefined;
      let outcome: { rendered: RenderedAnalysis; comparison: RenderComparison } | undefined;
      try {
        outcome = await this.#render(task, result, raw);
      } finally {
        if (outcome === undefined) this.#deps.policy.giveUp(task.url);
      }
      if (outcome === undefined) {
        this.failed++;
        return undefined;
      }
      this.rendered++;
      this.#deps.policy.learn(task.url, outcome.comparison);
      return outcome.rendered;
    } finally {
      this.#pending--;
    }
  }

  async #render(task: QueuedUrl, result: FetchResult, raw: ResponseAnalysis): Promise<{ rendered: RenderedAnalysis; comparison: RenderComparison } | undefined> {
    let page;
    try {
      page = await this.#deps.renderer.render({
        url: task.url,
        status: result.status,
        contentType: result.headers['content-type'] ?? 'text/html',
        body: Buffer.from(result.body ?? new Uint8Array(0)),
      });
    } catch (err) {
      // A cancelled render (the run was aborted) leaves the page unstored, to be fetched again; a failed one, stored as its HTML gave it.
      if (err instanceof RenderCancelledError) throw err;
      return undefined;
    }
    // A script can build a DOM far larger than any page it came in: such a render is not kept.
    if (page.dom.length > this.#deps.maxDomChars) return undefined;
    const analysis = await this.#deps.analyseDom(task, page.dom);
    if (analysis.page === null || raw.page === null) return undefined;
    const rawLinks = new Set(raw.page.links.map((link) => link.href));
    const comparison: RenderComparison = {
      newLinks: analysis.page.links.filter((link) => !rawLinks.has(link.href)).length,
      rawWords: raw.page.wordCount,
      renderedWords: analysis.page.wordCount,
      queryTermsGained: this.#deps.queryTerms.filter((term) => shows(analysis, term) && !shows(raw, term)).length,
      verdictChanged: this.#deps.wouldBeHot(task, analysis) !== this.#deps.wouldBeHot(task, raw),
    };
    return {
      rendered: {
        analysis,
        record: { dom: page.dom, renderedAt: Date.now(), renderMs: page.ms, timedOut: page.timedOut, requests: page.requests.map((r) => [r.url, r.type, r.outcome]) },
      },
      comparison,
    };
  }
}

function shows(analysis: ResponseAnalysis, term: string): boolean {
  return analysis.bodyTerms.has(term) || analysis.titleTerms.has(term);
}
