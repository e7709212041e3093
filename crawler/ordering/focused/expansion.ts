/*
 * Damped pseudo-relevance feedback: a few terms that the pages judged hot use far more
 * than the rest of the site, to recognise anchors and URLs that name the topic in words
 * the query lacks ("wal" for write-ahead logging, "vtab" for virtual tables). Unbounded
 * expansion drifts off topic, so a term must be in at least MIN_HOT_PAGES hot pages and
 * in under MAX_SHARE of all fetched pages, and at most MAX_TERMS are kept, each ranked by
 * its contribution to the divergence of hot pages' terms from the site's,
 * p(t|hot) · ln(p(t|hot) / p(t)).
 */

export const MAX_TERMS = 5;
const MIN_HOT_PAGES = 2;
const MAX_SHARE = 0.2;
/** Terms counted; past it the ones seen on the fewest pages are forgotten. */
const MAX_TRACKED = 200_000;
/**
 * A term's share of all pages is estimated from one page in SAMPLE_EVERY (hot pages are
 * all counted): the share only has to tell common words from rare ones, and counting
 * every word of every page cost more than the rest of the strategy's per-page work.
 */
const SAMPLE_EVERY = 4;

export class ExpansionTerms {
  readonly #query: ReadonlySet<string>;
  /** Sampled pages each term was on. */
  readonly #pages = new Map<string, number>();
  readonly #hotPages = new Map<string, number>();
  #fetched = 0;
  #sampled = 0;
  #hot = 0;
  #terms: readonly string[] = [];

  constructor(queryTerms: readonly string[]) {
    this.#query = new Set(queryTerms);
  }

  /** The current expansion terms (Porter stems), best first. */
  get terms(): readonly string[] {
    return this.#terms;
  }

  observe(pageTerms: readonly string[], hot: boolean): void {
    const sampled = this.#fetched++ % SAMPLE_EVERY === 0;
    if (sampled) {
      this.#sampled++;
      for (const term of pageTerms) this.#pages.set(term, (this.#pages.get(term) ?? 0) + 1);
      if (this.#pages.size > MAX_TRACKED) this.#forgetRarest();
    }
    if (!hot) return;
    this.#hot++;
    for (const term of pageTerms) this.#hotPages.set(term, (this.#hotPages.get(term) ?? 0) + 1);
  }

  /** Chooses the terms again from the pages seen so far. */
  refresh(): void {
    if (this.#hot < MIN_HOT_PAGES) return;
    const ranked: [string, number][] = [];
    for (const [term, hot] of this.#hotPages) {
      if (hot < MIN_HOT_PAGES || this.#query.has(term)) continue;
      const share = Math.max(hot / this.#fetched, (this.#pages.get(term) ?? 0) / Math.max(1, this.#sampled));
      if (share >= MAX_SHARE) continue;
      const pHot = hot / this.#hot;
      if (pHot <= share) continue;
      ranked.push([term, pHot * Math.log(pHot / share)]);
    }
    ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    this.#terms = ranked.slice(0, MAX_TERMS).map(([term]) => term);
  }

  #forgetRarest(): void {
    const target = Math.floor(MAX_TRACKED * 0.75);
    for (let cut = 1; this.#pages.size > target; cut++) {
      for (const [term, n] of this.#pages) {
        if (n <= cut) {
          this.#pages.delete(term);
          this.#hotPages.delete(term);
        }
      }
    }
  }
}
