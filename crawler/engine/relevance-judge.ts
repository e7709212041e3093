import { BEST_PAGES } from '../relevance/hot.ts';
import { CrawlJudge, type KnownLabel, type PageJudge } from '../relevance/judge.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { storedLabels } from '../store/label-store.ts';
import { bestRelevances, storedPageTerms } from '../store/verdict-store.ts';
import { storedAcronyms } from '../library/stored-acronyms.ts';

/** The crawl's judge, carrying on from what the collection holds: its pages' terms (for idf) and the user's labels. */
export function createPageJudge(db: ReadonlyDb, settings: CrawlSettings): PageJudge {
  const judge = new CrawlJudge(settings);
  for (const terms of storedPageTerms(db)) {
    judge.observeStoredTerms(terms.split(' '));
  }
  judge.useStoredAcronyms(storedAcronyms(db, settings.query));
  // The best pages so far set the default hot bar; the relevance index finds them.
  for (const relevance of bestRelevances(db, BEST_PAGES)) judge.observeStoredRelevance(relevance);
  judge.useLabels(knownLabels(db));
  return judge;
}

/** The collection's labels as the judge takes them. */
export function knownLabels(db: ReadonlyDb): KnownLabel[] {
  return storedLabels(db).map((l) => ({ urlId: l.urlId, text: `${l.title}\n${l.text}`, relevant: l.relevant }));
}
