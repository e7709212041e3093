import { contentTerms } from '../relevance/text.ts';

/**
 * How close a bag of terms (Porter stems, stop words removed) is to the driving query,
 * in [0, 1]. The focused strategy asks it about anchors, anchor contexts and URL tokens;
 * the tf-idf RelevanceModel can stand in for the default below. It must be 0 for a bag
 * without any query term: the strategy skips such texts (createQueryMentionTest).
 */
export interface TextSimilarity {
  similarity(terms: string[]): number;
}

/**
 * The fraction of the query's distinct terms that occur in the bag. Coverage rather than
 * a cosine because the bags are short (an anchor, a URL) and a cosine would punish a URL
 * for its host words.
 */
export function createQueryTermSimilarity(query: string): TextSimilarity {
  const slots = new Map<string, number>();
  for (const term of contentTerms(query)) if (!slots.has(term)) slots.set(term, slots.size);
  // One stamp per query term, so repeated terms count once without allocating per call.
  const seen = new Uint32Array(slots.size);
  let call = 0;
  return {
    similarity(terms: string[]): number {
      if (slots.size === 0) return 0;
      if (++call === 0xffffffff) {
        seen.fill(0);
        call = 1;
      }
      let hits = 0;
      for (const term of terms) {
        const slot = slots.get(term);
        if (slot !== undefined && seen[slot] !== call) {
          seen[slot] = call;
          hits++;
        }
      }
      return hits / slots.size;
    },
  };
}

/**
 * A cheap test that a text cannot contain any query term, so that its terms need not be
 * computed. A Porter stem differs from the lower-cased word it came from in at most its
 * last two letters (y→i, biliti→ble, an added e), so a text whose lower-cased form
 * contains none of the query stems cut by two letters has no query term.
 */
export function createQueryMentionTest(query: string): (text: string) => boolean {
  const keys = [...new Set(contentTerms(query).map((term) => term.slice(0, Math.max(1, term.length - 2))))];
  return (text: string): boolean => {
    if (keys.length === 0 || text === '') return false;
    const lower = text.toLowerCase();
    for (const key of keys) if (lower.includes(key)) return true;
    return false;
  };
}
