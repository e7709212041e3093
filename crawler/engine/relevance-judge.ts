import { storedLabels } from '../library/labels.ts';
import { BEST_PAGES } from '../relevance/hot.ts';
import { CrawlJudge, type KnownLabel, type PageJudge } from '../relevance/judge.ts';
import type { CrawlSettings } from '../settings.ts';
import type { Db } from '../store/database.ts';

/** The crawl's judge, carrying on from what the collection holds: its pages' terms (for idf) and the user's labels. */
export function createPageJudge(db: Db, settings: CrawlSettings): PageJudge {
  const judge = new CrawlJudge(settings);
  for (const terms of db.prepare('SELECT terms FROM pages WHERE terms IS NOT NULL').pluck().iterate() as IterableIterator<string>) {
    judge.observeStoredTerms(terms.split(' '));
  }
  // The best pages so far set the default hot bar; the relevance index finds them.
  const best = db.prepare(`SELECT relevance FROM pages WHERE relevance IS NOT NULL ORDER BY relevance DESC LIMIT ${BEST_PAGES}`).pluck().all() as number[];
  for (const relevance of best) judge.observeStoredRelevance(relevance);
  judge.useLabels(knownLabels(db));
  return judge;
}

/** The collection's labels as the judge takes them. */
export function knownLabels(db: Db): KnownLabel[] {
  return storedLabels(db).map((l) => ({ urlId: l.urlId, text: `${l.title}\n${l.text}`, relevant: l.relevant }));
}
