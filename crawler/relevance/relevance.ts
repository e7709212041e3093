import { UsageError } from '../errors.ts';
import { IdfEstimator, type IdfOptions } from './idf.ts';
import { termCounts, termsOfWords } from './text.ts';

/*
 * IS'(P,Q) of Cho et al.: the cosine between tf-idf vectors of page P and driving query
 * Q, with idf estimated from the pages crawled so far (idf.ts).
 *
 * Term weights are damped, tf → 1 + ln tf (SMART "l"): a page that says "socket" 80
 * times is not 80 times as much about sockets as one that says it once, and without
 * damping a long page's few most repeated words would dominate its norm.
 * The page vector is body + TITLE_WEIGHT × title, each damped on its own: a title is
 * the author's own summary, so a word in it weighs like three body words.
 *
 * Query terms are made by text.ts exactly as page terms are. Lemmatising the query
 * first (wink-nlp) left every stem of the benchmark queries unchanged and turned
 * irregular forms into stems that no page has (mice → mous, data → datum), for 37 MB
 * of model in memory.
 */

export const DEFAULT_TITLE_WEIGHT = 3;

export interface PageTerms {
  titleTerms: ReadonlyMap<string, number>;
  bodyTerms: ReadonlyMap<string, number>;
}

export interface RelevanceOptions extends IdfOptions {
  titleWeight?: number;
  /** Share an estimator between models (e.g. several queries over one crawl). */
  idf?: IdfEstimator;
}

function damped(count: number): number {
  return count === 1 ? 1 : count > 1 ? 1 + Math.log(count) : 0;
}

export class RelevanceModel {
  readonly query: string;
  /** The query's distinct content terms (Porter stems, comparable with page terms). */
  readonly queryTerms: readonly string[];
  readonly idf: IdfEstimator;
  readonly #queryWeights: readonly number[];
  readonly #titleWeight: number;

  constructor(query: string, options: RelevanceOptions = {}) {
    const counts = termCounts(query);
    if (counts.size === 0) throw new UsageError(`The query "${query}" has no content words to rank pages by.`, { query });
    this.query = query;
    this.queryTerms = [...counts.keys()];
    this.#queryWeights = [...counts.values()].map(damped);
    this.idf = options.idf ?? new IdfEstimator(options);
    this.#titleWeight = options.titleWeight ?? DEFAULT_TITLE_WEIGHT;
  }

  /**
   * IS'(P,Q) in [0, 1] with the idf as it stands. Call it before observe(page): a page
   * is judged against the pages before it, so its score depends only on what came
   * earlier, and its own rare words do not lower their own idf.
   */
  score(page: PageTerms): number {
    const { titleTerms, bodyTerms } = page;
    let dot = 0;
    let queryNorm = 0;
    for (let i = 0; i < this.queryTerms.length; i++) {
      const term = this.queryTerms[i]!;
      const idf = this.idf.idf(term);
      const q = this.#queryWeights[i]! * idf;
      queryNorm += q * q;
      const w = damped(bodyTerms.get(term) ?? 0) + this.#titleWeight * damped(titleTerms.get(term) ?? 0);
      dot += q * w * idf;
    }
    // Most pages share no term with the query: no need to weigh the whole page.
    if (dot === 0) return 0;
    // |body|² first, then each title term's correction from (b·idf)² to ((b + tw·t)·idf)².
    let pageNorm = 0;
    for (const [term, count] of bodyTerms) {
      const x = damped(count) * this.idf.idf(term);
      pageNorm += x * x;
    }
    for (const [term, count] of titleTerms) {
      const idf = this.idf.idf(term);
      const body = damped(bodyTerms.get(term) ?? 0) * idf;
      const both = body + this.#titleWeight * damped(count) * idf;
      pageNorm += both * both - body * body;
    }
    return Math.min(1, dot / Math.sqrt(queryNorm * pageNorm));
  }

  /**
   * The similarity of the reference page the default hot threshold stands for: a page
   * of typical size (idf.typicalDistinctTerms, D) that contains every query term as
   * prominently as an average one of its terms. Its cosine with the query is
   * sqrt(|Q| / D) whatever the idfs: the query's share of the page's vector is |Q| of
   * D equal parts. A page at or above it is at least as much about the query as a
   * page that uses all of the query's words as ordinary words; pages that merely
   * mention one of them fall below. It follows the site (long pages → lower bar) and
   * the query (more terms → higher bar), with no constant fitted to either.
   */
  referenceSimilarity(): number {
    return Math.min(1, Math.sqrt(this.queryTerms.length / this.idf.typicalDistinctTerms));
  }

  /** Adds the page to the idf estimate (each distinct term counts once). */
  observe(page: PageTerms): void {
    const terms = new Set(page.bodyTerms.keys());
    for (const term of page.titleTerms.keys()) terms.add(term);
    this.idf.observe(terms);
  }

  /**
   * The cosine between a short text and the query, with the same weights and idf as
   * score(): for anchor text, link context, URL tokens. An array holds words as
   * written (they are stemmed and stop words dropped here); a Map holds term counts
   * already made by text.ts (termCounts).
   */
  similarityToText(words: readonly string[] | ReadonlyMap<string, number>): number {
    return this.#cosine(Array.isArray(words) ? countTerms(termsOfWords(words as readonly string[])) : (words as ReadonlyMap<string, number>));
  }

  /** As similarityToText, for terms already made by text.ts (stems, stop words gone): stemming twice would change them. */
  similarityToTerms(terms: readonly string[]): number {
    return this.#cosine(countTerms(terms));
  }

  #cosine(counts: ReadonlyMap<string, number>): number {
    let dot = 0;
    let queryNorm = 0;
    for (let i = 0; i < this.queryTerms.length; i++) {
      const term = this.queryTerms[i]!;
      const idf = this.idf.idf(term);
      const q = this.#queryWeights[i]! * idf;
      queryNorm += q * q;
      dot += q * damped(counts.get(term) ?? 0) * idf;
    }
    if (dot === 0) return 0;
    let textNorm = 0;
    for (const [term, count] of counts) {
      const w = damped(count) * this.idf.idf(term);
      textNorm += w * w;
    }
    return Math.min(1, dot / Math.sqrt(queryNorm * textNorm));
  }
}

function countTerms(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}
