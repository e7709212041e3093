import type { HotPage } from '../relevance/hot.ts';

/** The verdict on a fetched page: how relevant it is to the driving query, and whether it is hot. */
export interface Judgement {
  /** null when the page had no text to judge (not HTML, an error status). */
  relevance: number | null;
  hot: boolean;
}

/** A parsed page as the judge sees it: the hot rule's view of a page, before relevance is known. */
export interface JudgedPage extends Omit<HotPage, 'relevance'> {
  urlId: number;
  titleTerms: Map<string, number>;
  bodyTerms: Map<string, number>;
}

/** Judges pages as they are fetched; stateful, since idf is estimated from the pages seen so far. */
export interface PageJudge {
  judge(page: JudgedPage): Judgement;
}
