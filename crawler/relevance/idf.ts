import { backgroundIdf, type BackgroundIdf } from './background-idf.ts';

/*
 * IS' idf (Cho et al.): idf estimated from the pages crawled so far. With n pages seen
 * and a term in df of them, the chance that a page contains the term is estimated as
 *
 *     p̂ = (df + K·p_bg) / (n + K)
 *
 * the background rate p_bg (SUBTLEX-US, see background-idf.ts) acting as K pages'
 * worth of prior evidence: the same as blending the two rates with weight
 * w = n/(n+K) on the observed df/n. K = 100 pages: a site's own vocabulary takes over
 * within the first few hundred pages, while the first handful of pages cannot make a
 * word look rare or common on their own. Blending rates rather than idfs keeps a term
 * that has not yet appeared from getting the observed idf of "never seen" (which grows
 * without bound) early on.
 *
 *     idf = 1 + ln(1/p̂)
 *
 * The 1 is the usual smoothed-idf floor: a term in every page (the site's own name, a
 * topic word on a focused crawl) keeps a small weight, so a query made of such words
 * does not fade to nothing.
 */

export const DEFAULT_PRIOR_PAGES = 100;
/** About 30 MB of Map at the cap; 100k pages of web text reach a few hundred thousand terms. */
export const DEFAULT_MAX_TERMS = 500_000;

export interface IdfOptions {
  /** K: how many pages the background prior is worth. */
  priorPages?: number;
  /** Distinct terms kept; past it the rarest observed terms are forgotten. */
  maxTerms?: number;
  background?: BackgroundIdf;
}

export class IdfEstimator {
  readonly #background: BackgroundIdf;
  readonly #priorPages: number;
  readonly #maxTerms: number;
  /**
   * Pages each observed term was on. Kept as plain counts: observing a page is then one
   * Map update per term and no logarithm; idf() takes its two logarithms only for the
   * terms asked about (the query's).
   */
  readonly #df = new Map<string, number>();
  #documents = 0;
  /** Pages and document frequencies seen by the rest of a crawl split across shards (a cluster), added to this estimator's own. */
  #sharedDocuments = 0;
  #sharedDf: ReadonlyMap<string, number> = new Map();

  constructor(options: IdfOptions = {}) {
    this.#background = options.background ?? backgroundIdf();
    this.#priorPages = options.priorPages ?? DEFAULT_PRIOR_PAGES;
    this.#maxTerms = options.maxTerms ?? DEFAULT_MAX_TERMS;
  }

  /** Pages observed so far. */
  get documents(): number {
    return this.#documents;
  }

  /** Distinct terms with a document frequency held in memory. */
  get termCount(): number {
    return this.#df.size;
  }

  /** Counts one page: each distinct term once. */
  observe(terms: Iterable<string>): void {
    this.observeDistinct(terms instanceof Set ? (terms as Set<string>) : new Set(terms));
  }

  /** Counts one page whose terms are already distinct (a Map's keys, a Set). */
  observeDistinct(terms: Iterable<string>): void {
    for (const term of terms) this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
    this.#documents++;
    if (this.#df.size > this.#maxTerms) this.#forgetRarest();
  }

  idf(term: string): number {
    const df = (this.#df.get(term) ?? 0) + (this.#sharedDf.get(term) ?? 0);
    return 1 + Math.log(this.#documents + this.#sharedDocuments + this.#priorPages) - Math.log(df + this.#priorMass(term));
  }

  /** This estimator's own counts of some terms (the query's), for the rest of a split crawl. */
  ownCounts(terms: readonly string[]): { documents: number; df: number[] } {
    return { documents: this.#documents, df: terms.map((term) => this.#df.get(term) ?? 0) };
  }

  /** What the rest of a split crawl has seen, replacing what it said before. */
  useShared(documents: number, df: ReadonlyMap<string, number>): void {
    this.#sharedDocuments = documents;
    this.#sharedDf = df;
  }

  #priorMass(term: string): number {
    return this.#priorPages * Math.exp(this.#background.logDocumentRate(term));
  }

  /**
   * Drops the terms seen in the fewest pages until a quarter of the room is free. A
   * forgotten term counts as never seen again, which overstates its idf by a little:
   * it was among the rarest anyway.
   */
  #forgetRarest(): void {
    const target = Math.floor(this.#maxTerms * 0.75);
    for (let cut = 1; this.#df.size > target; cut++) {
      for (const [term, df] of this.#df) if (df <= cut) this.#df.delete(term);
    }
  }
}
