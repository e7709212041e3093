import { QueryAcronyms, type Acronym } from '../relevance/acronyms.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { lastPageSeq, textsMayDefine } from '../store/verdict-store.ts';

/** Stored texts read per acronym of the query: a definition is on the first few that name it in parentheses. */
const MAX_DEFINING_TEXTS = 20;

/** Pages whose texts are searched per statement. */
const SEARCH_RANGE = 2000;

/**
 * The acronyms of the query's phrases that the collection's pages define, for a crawl that
 * resumes (its judge and ordering carry on with them) and for explain: a few stored texts
 * per candidate are read again, not the whole collection.
 */
export function storedAcronyms(db: ReadonlyDb, query: string): readonly Acronym[] {
  const steps = storedAcronymSteps(db, query);
  for (let step = steps.next(); ; step = steps.next()) if (step.done === true) return step.value;
}

/** storedAcronyms as steps, a range of pages searched a step: a shard's open runs them between turns of the event loop. */
export function* storedAcronymSteps(db: ReadonlyDb, query: string): Generator<void, readonly Acronym[], undefined> {
  const acronyms = new QueryAcronyms(query);
  const last = acronyms.waitingLetters.length === 0 ? 0 : lastPageSeq(db);
  for (const letters of acronyms.waitingLetters) {
    let read = 0;
    for (let from = 0; from < last && read < MAX_DEFINING_TEXTS; from += SEARCH_RANGE) {
      for (const text of textsMayDefine(db, letters, MAX_DEFINING_TEXTS - read, from, from + SEARCH_RANGE)) {
        acronyms.observe(text);
        read++;
      }
      yield;
    }
  }
  return acronyms.confirmed;
}
