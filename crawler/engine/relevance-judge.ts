import { storedLabels } from '../library/labels.ts';
import { createHotRule, type HotRule } from '../relevance/hot.ts';
import { applyLabel, blendRelevance, LabelModel } from '../relevance/labels.ts';
import { RelevanceModel } from '../relevance/relevance.ts';
import type { CrawlSettings } from '../settings.ts';
import type { Db } from '../store/database.ts';
import type { JudgedPage, Judgement, PageJudge } from './page-judge.ts';

/**
 * The crawl's judge: IS'(P,Q) from the relevance model (idf estimated from the pages
 * judged so far), blended with the label model once the user has labelled enough pages,
 * then the hot rule. A labelled page's verdict is its label.
 */
class RelevanceJudge implements PageJudge {
  readonly #relevance: RelevanceModel;
  readonly #hot: HotRule;
  readonly #labels = new LabelModel();
  readonly #labelOf = new Map<number, boolean>();

  constructor(db: Db, settings: CrawlSettings) {
    this.#relevance = new RelevanceModel(settings.query);
    this.#hot = createHotRule(settings.hotPredicate ?? undefined, settings.hotThreshold ?? undefined, this.#relevance);
    // A resumed crawl starts from the document frequencies of the pages already stored
    // (their stored distinct terms: the most frequent ones, so rarer terms count a little low).
    for (const terms of db.prepare('SELECT terms FROM pages WHERE terms IS NOT NULL').pluck().iterate() as IterableIterator<string>) {
      this.#relevance.observe({ titleTerms: new Map(), bodyTerms: new Map(terms.split(' ').map((t) => [t, 1])) });
    }
    const labels = storedLabels(db);
    for (const label of labels) this.#labelOf.set(label.urlId, label.relevant);
    this.#labels.train(labels.map((l) => ({ text: `${l.title}\n${l.text}`, relevant: l.relevant })));
  }

  judge(page: JudgedPage): Judgement {
    const similarity = this.#relevance.score(page);
    this.#relevance.observe(page);
    const probability = this.#labels.ready ? this.#labels.probabilityRelevant(page) : undefined;
    const relevance = blendRelevance(similarity, probability, this.#labelOf.size);
    const label = this.#labelOf.get(page.urlId);
    const hot = applyLabel(this.#hot.isHot({ ...page, relevance }), label === undefined ? undefined : label ? 'relevant' : 'irrelevant');
    return { relevance, hot };
  }
}

export function createPageJudge(db: Db, settings: CrawlSettings): PageJudge {
  return new RelevanceJudge(db, settings);
}
