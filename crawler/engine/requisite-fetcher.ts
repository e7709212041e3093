import { cssReferences } from '../parse/css-references.ts';
import { effectiveBase } from '../parse/extract-html.ts';
import type { RequisiteMode } from '../protocol/settings.ts';
import type { SubresourceFetcher } from '../render/page-renderer.ts';
import type { PageRequisites, RenderStore } from '../store/render-store.ts';

/** References followed per stylesheet, and stylesheets within stylesheets (@import) followed this deep. */
const MAX_CSS_REFERENCES = 64;
const MAX_CSS_DEPTH = 2;
/** Pages whose requisites are being fetched at once; more wait their turn here. */
const MAX_PAGES_AT_ONCE = 8;
/** Pages waiting or being served, beyond which the crawl should fetch no more pages until they catch up. */
const BACKLOG = 64;
/** Stylesheets whose references are remembered: a site's pages share a few, and each was parsed again for every page. */
const REMEMBERED_STYLESHEETS = 1024;
/**
 * Requisites known to be stored, remembered: a site's pages share their stylesheets, scripts
 * and icons, and asking the collection again for each page read each one's body back.
 */
const REMEMBERED_REQUISITES = 4096;

/**
 * Fetches what a stored page needs to be shown as it was: its stylesheets, icons and images,
 * and what its stylesheets refer to (fonts, background images, imported sheets). Each goes
 * through the subresource fetcher (robots.txt, the SSRF guard, size caps, a polite turn of
 * its host, once per crawl) and is recorded as the page's requisite once stored.
 */
export class RequisiteFetcher {
  readonly #fetch: SubresourceFetcher;
  readonly #store: RenderStore;
  readonly #mode: RequisiteMode;
  readonly #signal: AbortSignal;
  #running = 0;
  #backlog = 0;
  readonly #waiting: (() => void)[] = [];
  /** A stored stylesheet's URL → the URLs it refers to, resolved. */
  readonly #stylesheetReferences = new Map<string, string[]>();
  /** Requisites stored (by this run or an earlier one) → whether each is a stylesheet. */
  readonly #storedRequisites = new Map<string, boolean>();

  constructor(fetch: SubresourceFetcher, store: RenderStore, mode: RequisiteMode, signal: AbortSignal) {
    this.#fetch = fetch;
    this.#store = store;
    this.#mode = mode;
    this.#signal = signal;
  }

  /** True while so many pages wait for their requisites that fetching more pages would only lengthen the queue. */
  get saturated(): boolean {
    return this.#backlog >= BACKLOG;
  }

  /** Pages whose requisites an earlier run noted and did not finish fetching. */
  pending(): { pageSeq: number; pageUrl: string; requisites: PageRequisites }[] {
    return this.#store.pendingRequisites();
  }

  /** Fetches the page's requisites and records those stored; the page's pending note is cleared once all were sought. */
  async fetchFor(pageSeq: number, pageUrl: string, requisites: PageRequisites): Promise<void> {
    this.#backlog++;
    if (this.#running >= MAX_PAGES_AT_ONCE) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    const stored: string[] = [];
    let allSought = false;
    try {
      const seen = new Set<string>();
      const fetchOne = async (url: string, depth: number): Promise<void> => {
        if (seen.has(url) || this.#signal.aborted || !this.#inScope(url, pageUrl)) return;
        seen.add(url);
        const storedStylesheet = this.#storedRequisites.get(url);
        const references = storedStylesheet === true ? this.#stylesheetReferences.get(url) : undefined;
        if (storedStylesheet === false || references !== undefined) {
          stored.push(url);
          if (depth < MAX_CSS_DEPTH) for (const ref of references ?? []) await fetchOne(ref, depth + 1);
          return;
        }
        const outcome = await this.#fetch(url, pageUrl, this.#signal, { anyHost: this.#mode === 'all' }).catch(() => undefined);
        if (outcome?.kind !== 'response' || outcome.response.status >= 400) return;
        stored.push(url);
        const stylesheet = /\bcss\b/i.test(outcome.response.headers['content-type'] ?? '');
        this.#rememberStored(url, stylesheet);
        if (depth >= MAX_CSS_DEPTH || !stylesheet) return;
        for (const ref of this.#referencesOf(url, outcome.response.body)) await fetchOne(ref, depth + 1);
      };
      const base = effectiveBase(requisites.pageUrl, requisites.baseHref);
      for (const href of requisites.hrefs) {
        const url = resolve(href, base);
        if (url !== undefined) await fetchOne(url, 0);
      }
      allSought = !this.#signal.aborted;
    } finally {
      // Cut short (a pause, a stop, an error), the errand stays noted for the next run.
      try {
        this.#store.saveRequisites(pageSeq, stored, allSought);
      } finally {
        this.#running--;
        this.#backlog--;
        this.#waiting.shift()?.();
      }
    }
  }

  #rememberStored(url: string, stylesheet: boolean): void {
    if (this.#storedRequisites.size >= REMEMBERED_REQUISITES) this.#storedRequisites.clear();
    this.#storedRequisites.set(url, stylesheet);
  }

  /** The URLs a stylesheet refers to, resolved against it; remembered, as the same few serve every page of a site. */
  #referencesOf(url: string, body: Buffer): string[] {
    let references = this.#stylesheetReferences.get(url);
    if (references === undefined) {
      references = [];
      for (const ref of cssReferences(body.toString('utf8'), MAX_CSS_REFERENCES)) {
        const resolved = resolve(ref, url);
        if (resolved !== undefined) references.push(resolved);
      }
      if (this.#stylesheetReferences.size >= REMEMBERED_STYLESHEETS) this.#stylesheetReferences.clear();
      this.#stylesheetReferences.set(url, references);
    }
    return references;
  }

  /** The scope of `--requisites`: the page's own origin, or any (the subresource fetcher refuses what is not http(s)). */
  #inScope(url: string, pageUrl: string): boolean {
    return this.#mode === 'all' || new URL(url).origin === new URL(pageUrl).origin;
  }
}

/** `ref` against `base`, without its fragment; undefined when it is not a URL. */
function resolve(ref: string, base: string): string | undefined {
  try {
    const url = new URL(ref, base);
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}
