import { QueryAcronyms, type Acronym } from '../relevance/acronyms.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { textsMayDefine } from '../store/verdict-store.ts';

/** Stored texts read per acronym of the query: a definition is on the first few that name it in parentheses. */
const MAX_DEFINING_TEXTS = 20;

/**
 * The acronyms of the query's phrases that the collection's pages define, for a crawl that
 * resumes (its judge and ordering carry on with them) and for explain: a few stored texts
 * per candidate are read again, not the whole collection.
 */
export function storedAcronyms(db: ReadonlyDb, query: string): readonly Acronym[] {
  const acronyms = new QueryAcronyms(query);
  for (const letters of acronyms.waitingLetters) {
    for (const text of textsMayDefine(db, letters, MAX_DEFINING_TEXTS)) acronyms.observe(text);
  }
  return acronyms.confirmed;
}
