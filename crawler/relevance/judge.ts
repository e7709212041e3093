import { QueryAcronyms, type Acronym } from './acronyms.ts';
import { BEST_PAGES, createHotRule, RelativeToBestRule, type HotPage, type HotRule } from './hot.ts';
import { blendRelevance, LabelModel, type LabelledText } from './labels.ts';
import { evidenceOfRelevance, RelevanceModel, type QueryTermCounts } from './relevance.ts';
import { TemplateLines } from './template-lines.ts';

/** The verdict on a fetched page: how relevant it is to the driving query, and whether it is hot. */
export interface Judgement {
  /** null when the page had no text to judge (not HTML, an error status). */
  relevance: number | null;
  /** The verdict: the user's label when there is one, else the judge's own. */
  hot: boolean;
  /** The judge's own verdict, whatever the label says. */
  judgedHot: boolean;
  /**
   * The verdict in grades, for learners: 0.5 at the hot bar, towards 1 above it, towards
   * 0 below (S / (S + S_bar) in evidence units); 1 or 0 for a label or a predicate.
   */
  grade: number;
  /** Acronyms of the query's phrases this page defined first (acronyms.ts); absent when none. */
  acronyms?: readonly Acronym[];
}

/** A parsed page as the judge sees it: the hot rule's view of a page, before relevance is known. */
export interface JudgedPage extends Omit<HotPage, 'relevance'> {
  urlId: number;
  /** The page's origin: navigation repeated across a site's pages is not the page's own text. */
  site: string;
  /** lineHashes(text), when the parser made them already. */
  lineHashes?: Uint32Array;
  titleTerms: Map<string, number>;
  bodyTerms: Map<string, number>;
}

/** Judges pages as they are fetched; stateful, since idf is estimated from the pages seen so far. */
export interface PageJudge {
  judge(page: JudgedPage): Judgement;
  /**
   * For a hot rule that is a bar learnt from the crawl: the bar now. Pages judged earlier,
   * against a lower bar, are judged again by it: hot ⇔ relevance ≥ bar, unless labelled.
   */
  movingBar?(): number | null;
  /** Takes the user's labels as they now are (all of them). */
  useLabels?(labels: readonly KnownLabel[]): void;
  /** The judge's own verdict on a page as things stand, learning nothing from it: to compare two versions of one page. */
  wouldBeHot?(page: JudgedPage): boolean;
  /** Acronyms of the query's phrases defined on the pages judged or observed so far. */
  acronyms?(): readonly Acronym[];
  /** What this judge has counted that the shards of a split crawl share (a cluster's). */
  statistics?(): JudgeStatistics;
  /** The statistics of the rest of a split crawl, replacing what it said before. */
  useShared?(rest: JudgeStatistics): void;
  /** A relevance as a grade against the bar now (a page judged elsewhere, such as another shard of a cluster). */
  gradeOf?(relevance: number): number;
}

/**
 * A judge's counts that a crawl split into shards shares: the query terms' document
 * frequencies and burstiness, and the best pages' evidence that sets the hot bar.
 */
export interface JudgeStatistics {
  terms: QueryTermCounts;
  /** The best evidence values, ascending (empty when the hot rule is not relative to the best pages). */
  best: number[];
}

/** Two judges' statistics added, as one judge would have counted them (the best evidence: the top ones of both). */
export function addJudgeStatistics(a: JudgeStatistics, b: JudgeStatistics): JudgeStatistics {
  const add = (x: readonly number[], y: readonly number[]): number[] => x.map((v, i) => v + (y[i] ?? 0));
  return {
    terms: {
      documents: a.terms.documents + b.terms.documents,
      df: add(a.terms.df, b.terms.df),
      pagesMentioning: add(a.terms.pagesMentioning, b.terms.pagesMentioning),
      mentions: add(a.terms.mentions, b.terms.mentions),
    },
    best: [...a.best, ...b.best].sort((x, y) => x - y).slice(-BEST_PAGES),
  };
}

/** What shapes a crawl's judgement: the driving query and the hot rule the user chose, if any. */
export interface JudgeSettings {
  query: string;
  hotPredicate: string | null;
  hotThreshold: number | null;
}

/** A user's label on a page, with the page's words for the label model. */
export interface KnownLabel extends LabelledText {
  urlId: number;
}

/**
 * The crawl's judge: IS'(P,Q) from the relevance model (idf estimated from the pages
 * judged so far, acronyms of the query's phrases counted once a page defines them), blended with the label model once the user has labelled enough pages,
 * then the hot rule. A labelled page's verdict is its label. It holds no database: the
 * engine gives it a collection's history, the lab replays a stored crawl through it.
 */
export class CrawlJudge implements PageJudge {
  readonly #relevance: RelevanceModel;
  readonly #hot: HotRule;
  readonly #templates = new TemplateLines();
  readonly #labels = new LabelModel();
  readonly #labelOf = new Map<number, boolean>();
  readonly #acronyms: QueryAcronyms;

  constructor(settings: JudgeSettings) {
    this.#relevance = new RelevanceModel(settings.query);
    this.#acronyms = new QueryAcronyms(settings.query);
    this.#hot = createHotRule(settings.hotPredicate ?? undefined, settings.hotThreshold ?? undefined);
  }

  /**
   * Counts a page judged in an earlier run towards the idf estimate. Only its stored
   * distinct terms are known (the most frequent ones), so rarer terms count a little low.
   */
  observeStoredTerms(terms: readonly string[]): void {
    this.#relevance.idf.observeDistinct(this.#relevance.queryTerms.filter((q) => terms.includes(q)));
  }

  /** Acronyms the pages of an earlier run defined (library/stored-acronyms.ts). */
  useStoredAcronyms(acronyms: readonly Acronym[]): void {
    for (const acronym of this.#acronyms.adopt(acronyms)) this.#relevance.addSynonym(acronym.term, acronym.longForm);
  }

  acronyms(): readonly Acronym[] {
    return this.#acronyms.confirmed;
  }

  /** A page's relevance from an earlier run, for a hot rule that learns from the crawl (the best pages so far). */
  observeStoredRelevance(relevance: number): void {
    this.#hot.observe?.(relevance);
  }

  /** The user's labels: verdicts for those pages, and training for the label model. */
  useLabels(labels: readonly KnownLabel[]): void {
    this.#labelOf.clear();
    for (const label of labels) this.#labelOf.set(label.urlId, label.relevant);
    this.#labels.train(labels);
  }

  movingBar(): number | null {
    return this.#hot instanceof RelativeToBestRule ? this.#hot.threshold() : null;
  }

  wouldBeHot(page: JudgedPage): boolean {
    const navigation = this.#templates.templateOf(page.site, page.text, page.lineHashes);
    return this.#hot.isHot({ ...page, relevance: this.#relevanceOf(page, navigation) });
  }

  judge(page: JudgedPage): Judgement {
    const acronyms = this.#acronyms.observe(page.text);
    for (const acronym of acronyms) this.#relevance.addSynonym(acronym.term, acronym.longForm);
    const judgement = this.#judge(page);
    return acronyms.length === 0 ? judgement : { ...judgement, acronyms };
  }

  #judge(page: JudgedPage): Judgement {
    const navigation = this.#templates.takePage(page.site, page.text, page.lineHashes);
    const relevance = this.#relevanceOf(page, navigation);
    this.#relevance.observe(page, navigation);
    this.#hot.observe?.(relevance);
    const judgedHot = this.#hot.isHot({ ...page, relevance });
    const label = this.#labelOf.get(page.urlId);
    if (label !== undefined) return { relevance, hot: label, judgedHot, grade: label ? 1 : 0 };
    const bar = this.#hot.threshold?.();
    if (bar === undefined) return { relevance, hot: judgedHot, judgedHot, grade: judgedHot ? 1 : 0 };
    return { relevance, hot: judgedHot, judgedHot, grade: gradeAgainst(relevance, bar) };
  }

  statistics(): JudgeStatistics {
    return { terms: this.#relevance.ownCounts(), best: this.#hot instanceof RelativeToBestRule ? [...this.#hot.ownBest()] : [] };
  }

  useShared(rest: JudgeStatistics): void {
    this.#relevance.useShared(rest.terms);
    if (this.#hot instanceof RelativeToBestRule) this.#hot.useShared(rest.best);
  }

  gradeOf(relevance: number): number {
    const bar = this.#hot.threshold?.();
    return bar === undefined ? relevance : gradeAgainst(relevance, bar);
  }

  #relevanceOf(page: JudgedPage, navigation: ReadonlyMap<string, number>): number {
    const similarity = this.#relevance.score(page, navigation);
    const probability = this.#labels.ready ? this.#labels.probabilityRelevant(page) : undefined;
    return blendRelevance(similarity, probability, this.#labelOf.size);
  }
}

/** 0.5 at the bar, towards 1 above it and 0 below it, in evidence (S) rather than relevance. */
function gradeAgainst(relevance: number, bar: number): number {
  const evidence = evidenceOfRelevance(relevance);
  return evidence === 0 ? 0 : evidence / (evidence + evidenceOfRelevance(bar));
}
