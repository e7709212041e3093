import { BEST_PAGES } from '../relevance/hot.ts';
import { CrawlJudge, type KnownLabel, type PageJudge } from '../relevance/judge.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { storedLabels } from '../store/label-store.ts';
import { bestRelevances, storedPageTermsAfter } from '../store/verdict-store.ts';
import { storedAcronymSteps } from '../library/stored-acronyms.ts';

/** Stored pages' terms read per statement. */
const TERMS_CHUNK = 500;

/** The crawl's judge, carrying on from what the collection holds: its pages' terms (for idf) and the user's labels. */
export function createPageJudge(db: ReadonlyDb, settings: CrawlSettings): PageJudge {
  const judge = new CrawlJudge(settings);
  for (const _ of pageJudgeSteps(db, settings, judge));
  return judge;
}

/**
 * What createPageJudge reads into a new judge, as steps: a chunk of stored pages' terms a
 * step (a shard's open runs them between turns of the event loop, engine/time-slices.ts),
 * then the stored acronyms (a range of pages searched a step), the best relevances and the labels.
 */
export function* pageJudgeSteps(db: ReadonlyDb, settings: CrawlSettings, judge: CrawlJudge): Generator<void, void, undefined> {
  for (let chunk = storedPageTermsAfter(db, 0, TERMS_CHUNK); chunk.length > 0; chunk = storedPageTermsAfter(db, chunk[chunk.length - 1]?.seq ?? 0, TERMS_CHUNK)) {
    for (const page of chunk) judge.observeStoredTerms(page.terms.split(' '));
    yield;
  }
  judge.useStoredAcronyms(yield* storedAcronymSteps(db, settings.query));
  // The best pages so far set the default hot bar; the relevance index finds them.
  for (const relevance of bestRelevances(db, BEST_PAGES)) judge.observeStoredRelevance(relevance);
  judge.useLabels(knownLabels(db));
}

/** The collection's labels as the judge takes them. */
export function knownLabels(db: ReadonlyDb): KnownLabel[] {
  return storedLabels(db).map((l) => ({ urlId: l.urlId, text: `${l.title}\n${l.text}`, relevant: l.relevant }));
}
