import { UsageError } from '../errors.ts';
import { IdfEstimator, type IdfOptions } from './idf.ts';
import { fileSynonym } from './acronyms.ts';
import { termCounts } from './text.ts';

/*
 * IS'(P,Q), Forager's relevance of page P to the driving query Q: how much the page says
 * about the query's terms, each term weighted by how rare it is on the site.
 *
 *     S(P) = Σ_q w_q · ln(1 + tf_q(P)) / Σ_q w_q
 *     w_q = idf(q)² · ln(1 + b_q)
 *     tf_q(P) = mentions in the body + TITLE_WEIGHT × mentions in the title
 *     relevance = S / (1 + S)                            in [0, 1)
 *
 * S is the weighted mean of the query terms' log mentions, so S = ln 4 means the page
 * mentions the query terms about three times each. It is deliberately not divided by the
 * page's length: a long page that discusses sockets throughout is about sockets, and a
 * user who asks for "sockets" means the pages that talk about them at length as much as
 * the short ones. On full crawls of the tuning half of bench/focus's topics (19 Cho-style
 * topics on nine documentation sites), ranking pages this way found the topics' pages
 * with a mean average precision of 0.76, against 0.53 for the tf-idf cosine it replaced,
 * which let long pages fall below short pages that mention a query word once.
 *
 * Squared idf (as the cosine's q·d product had) lets the query's most specific term
 * carry it: in "sockets and network servers" on a site where every page says "server",
 * the pages about sockets win. idf is estimated from the pages judged so far (idf.ts).
 * b_q is the term's burstiness: its mean mentions on the pages that mention it (Church
 * and Gale 1995: words that carry a topic come in bursts, words like "compared" come
 * once), estimated from the pages judged so far with one page of 2 mentions as a prior.
 * It kept "apt-get compared with aptitude" about apt-get rather than about comparing.
 * Mentions in a site's navigation, repeated on every page, are not the page's own: the
 * judge removes them first (template-lines.ts). Once a page defines an acronym of a query
 * phrase (acronyms.ts: "Write-Ahead Logging (WAL)"), its mentions count as mentions of each
 * of the phrase's terms.
 */

export const DEFAULT_TITLE_WEIGHT = 3;

/**
 * What the relevance model has counted of the query's terms, per term in queryTerms order:
 * the part of it that the shards of a cluster share (idf and burstiness are a crawl's, not a
 * shard's: a shard of one small site would otherwise judge by its own vocabulary alone).
 */
export interface QueryTermCounts {
  documents: number;
  df: number[];
  pagesMentioning: number[];
  mentions: number[];
}

export interface PageTerms {
  titleTerms: ReadonlyMap<string, number>;
  bodyTerms: ReadonlyMap<string, number>;
}

export interface RelevanceOptions extends IdfOptions {
  titleWeight?: number;
  /** Share an estimator between models (e.g. several queries over one crawl). */
  idf?: IdfEstimator;
}

/** relevance = S / (1 + S), and back. */
export function relevanceOfEvidence(evidence: number): number {
  return evidence / (1 + evidence);
}

export function evidenceOfRelevance(relevance: number): number {
  return relevance >= 1 ? Number.POSITIVE_INFINITY : relevance / (1 - relevance);
}

export class RelevanceModel {
  readonly query: string;
  /** The query's distinct content terms (Porter stems, comparable with page terms). */
  readonly queryTerms: readonly string[];
  readonly idf: IdfEstimator;
  readonly #titleWeight: number;
  /** Per query term: pages that mention it in the body, and their mentions in all. */
  readonly #pagesMentioning: Float64Array;
  readonly #mentions: Float64Array;
  /** Per query term: the terms that stand for it too (acronyms of a phrase it is part of). */
  readonly #synonyms: string[][];
  /** Counts of the rest of a split crawl (useShared), added to this model's own. */
  #shared: QueryTermCounts | undefined;

  constructor(query: string, options: RelevanceOptions = {}) {
    const counts = termCounts(query);
    if (counts.size === 0) throw new UsageError(`The query "${query}" has no content words to rank pages by.`, { query });
    this.query = query;
    this.queryTerms = [...counts.keys()];
    this.idf = options.idf ?? new IdfEstimator(options);
    this.#titleWeight = options.titleWeight ?? DEFAULT_TITLE_WEIGHT;
    this.#pagesMentioning = new Float64Array(this.queryTerms.length);
    this.#mentions = new Float64Array(this.queryTerms.length);
    this.#synonyms = this.queryTerms.map(() => []);
  }

  /** From now on, `term` on a page counts as a mention of each of `standsFor` that is a query term. */
  addSynonym(term: string, standsFor: readonly string[]): void {
    fileSynonym(this.queryTerms, this.#synonyms, term, standsFor);
  }

  /**
   * S(P) with the idf as it stands, not counting the body mentions in `discounted` (the
   * page's navigation). Call it before observe(page): a page is judged against the pages
   * before it, and its own rare words do not lower their own idf.
   */
  evidence(page: PageTerms, discounted?: ReadonlyMap<string, number>): number {
    let sum = 0;
    let weights = 0;
    for (let i = 0; i < this.queryTerms.length; i++) {
      const weight = this.#weight(i);
      weights += weight;
      const mentions = this.#bodyMentions(page, i, discounted) + this.#titleWeight * this.#titleMentions(page, i);
      if (mentions > 0) sum += weight * Math.log1p(mentions);
    }
    return sum / weights;
  }

  /** The page's relevance in [0, 1): S / (1 + S). */
  score(page: PageTerms, discounted?: ReadonlyMap<string, number>): number {
    return relevanceOfEvidence(this.evidence(page, discounted));
  }

  /**
   * Adds the page to the query terms' idf estimate and burstiness. Only the query terms'
   * idf is ever asked for, so only they are counted: a page costs |Q| lookups, not one
   * Map update per word.
   */
  observe(page: PageTerms, discounted?: ReadonlyMap<string, number>): void {
    this.idf.observeDistinct(this.queryTerms.filter((term, i) => onPage(page, term) || (this.#synonyms[i] as string[]).some((synonym) => onPage(page, synonym))));
    for (let i = 0; i < this.queryTerms.length; i++) {
      const mentions = this.#bodyMentions(page, i, discounted);
      if (mentions === 0) continue;
      this.#pagesMentioning[i]!++;
      this.#mentions[i]! += mentions;
    }
  }

  #bodyMentions(page: PageTerms, i: number, discounted: ReadonlyMap<string, number> | undefined): number {
    let mentions = bodyMentions(page, this.queryTerms[i] as string, discounted);
    for (const synonym of this.#synonyms[i] as string[]) mentions += bodyMentions(page, synonym, discounted);
    return mentions;
  }

  #titleMentions(page: PageTerms, i: number): number {
    let mentions = page.titleTerms.get(this.queryTerms[i] as string) ?? 0;
    for (const synonym of this.#synonyms[i] as string[]) mentions += page.titleTerms.get(synonym) ?? 0;
    return mentions;
  }

  /** This model's own counts of the query's terms. */
  ownCounts(): QueryTermCounts {
    const { documents, df } = this.idf.ownCounts(this.queryTerms);
    return { documents, df, pagesMentioning: [...this.#pagesMentioning], mentions: [...this.#mentions] };
  }

  /** The counts of the rest of a split crawl (the other shards of a cluster), replacing earlier ones. */
  useShared(counts: QueryTermCounts): void {
    this.#shared = counts;
    this.idf.useShared(counts.documents, new Map(this.queryTerms.map((term, i) => [term, counts.df[i] ?? 0])));
  }

  /** w_q = idf(q)² · ln(1 + b_q), b_q = (mentions + 2) / (pages mentioning q + 1). */
  #weight(i: number): number {
    const idf = this.idf.idf(this.queryTerms[i] as string);
    const mentions = (this.#mentions[i] as number) + (this.#shared?.mentions[i] ?? 0);
    const pages = (this.#pagesMentioning[i] as number) + (this.#shared?.pagesMentioning[i] ?? 0);
    const burstiness = (mentions + 2) / (pages + 1);
    return idf * idf * Math.log1p(burstiness);
  }
}

function onPage(page: PageTerms, term: string): boolean {
  return page.bodyTerms.has(term) || page.titleTerms.has(term);
}

function bodyMentions(page: PageTerms, term: string, discounted: ReadonlyMap<string, number> | undefined): number {
  return Math.max(0, (page.bodyTerms.get(term) ?? 0) - (discounted?.get(term) ?? 0));
}
