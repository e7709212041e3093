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
  /** ln(df + K·p_bg) per observed term, the log numerator of p̂: one Map lookup and no log per idf. */
  readonly #logMass = new Map<string, number>();
  #documents = 0;
  /** 1 + ln(n + K). */
  #offset: number;
  readonly #logPrior: number;

  constructor(options: IdfOptions = {}) {
    this.#background = options.background ?? backgroundIdf();
    this.#priorPages = options.priorPages ?? DEFAULT_PRIOR_PAGES;
    this.#maxTerms = options.maxTerms ?? DEFAULT_MAX_TERMS;
    this.#logPrior = Math.log(this.#priorPages);
    this.#offset = 1 + this.#logPrior;
  }

  /** Pages observed so far. */
  get documents(): number {
    return this.#documents;
  }

  /** Distinct terms with a document frequency held in memory. */
  get termCount(): number {
    return this.#logMass.size;
  }

  /** Counts one page: each distinct term once. */
  observe(terms: Iterable<string>): void {
    const distinct = terms instanceof Set ? (terms as Set<string>) : new Set(terms);
    for (const term of distinct) {
      const logMass = this.#logMass.get(term);
      this.#logMass.set(term, Math.log(1 + (logMass === undefined ? this.#priorMass(term) : Math.exp(logMass))));
    }
    this.#documents++;
    this.#offset = 1 + Math.log(this.#documents + this.#priorPages);
    if (this.#logMass.size > this.#maxTerms) this.#forgetRarest();
  }

  idf(term: string): number {
    const logMass = this.#logMass.get(term);
    return this.#offset - (logMass === undefined ? this.#logPrior + this.#background.logDocumentRate(term) : logMass);
  }

  #priorMass(term: string): number {
    return Math.exp(this.#logPrior + this.#background.logDocumentRate(term));
  }

  /**
   * Drops the terms seen in the fewest pages until a quarter of the room is free. A
   * forgotten term counts as never seen again, which overstates its idf by a little:
   * it was among the rarest anyway.
   */
  #forgetRarest(): void {
    const target = Math.floor(this.#maxTerms * 0.75);
    for (let df = 1; this.#logMass.size > target; df++) {
      for (const [term, logMass] of this.#logMass) {
        if (Math.exp(logMass) - this.#priorMass(term) < df + 0.5) this.#logMass.delete(term);
      }
    }
  }
}
