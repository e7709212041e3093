/*
 * The weights of the focused priority. Priorities are in log-priority units (natural log:
 * +0.69 doubles the odds a naive-Bayes reading would give), so query signals and learned
 * interest ratios add up on one scale.
 *
 * Query part (Cho et al.), present from the first page:
 *   LINK_TEXT_WEIGHT · best in-link text similarity   (anchor ANCHOR_SHARE, context the rest)
 *   URL_WEIGHT · similarity of the URL's words
 *   DISTANCE_BONUS[d] for link distance d from the nearest hot page (≥ 3: none)
 * Learned part (Aggarwal et al.), four factors, each a clipped log interest ratio:
 *   parent words, URL tokens, parent hotness, sibling hotness.
 * priority = query + c·learned + importance
 * where c is the confidence in the learned tables (see confidence()). The learned part
 * takes over by growing from nothing to a range (four factors of ±ln 10) wider than the
 * query part's (at most 3 + 2 + 2). The query part keeps its weight: on synthetic crawls,
 * shrinking it as c grows (to half at c = 1) found 3-13% fewer hot pages in 3,000.
 */

export const LINK_TEXT_WEIGHT = 3;
export const ANCHOR_SHARE = 0.7;
export const URL_WEIGHT = 2;
export const DISTANCE_BONUS: readonly number[] = [3, 2, 1, 0];
/** Each learned factor lies within ±ln 10. */
export const FACTOR_CLIP = Math.log(10);
/** Importance is a tie-breaker: at most a quarter of a log unit even for a page linked a thousand times. */
export const IMPORTANCE_WEIGHT = 0.05;
export const IMPORTANCE_CAP = 0.25;

/** The signals, in the order their contributions are summed (explain sums them alike). */
export const SIGNAL_NAMES = ['anchor-similarity', 'url-similarity', 'hot-distance', 'parent-words', 'url-tokens', 'parent-hot', 'sibling-hot', 'importance'] as const;
export const ANCHOR = 0;
export const URL_SIMILARITY = 1;
export const DISTANCE = 2;
export const PARENT_WORDS = 3;
export const URL_TOKENS = 4;
export const PARENT_HOT = 5;
export const SIBLING_HOT = 6;
export const IMPORTANCE = 7;

/**
 * Confidence in the learned ratios: a linear ramp to 1 at `fullHot` hot pages times one to
 * 1 at `fullCold` other pages. Ratios contrast hot with non-hot pages, so both are needed;
 * with no hot page yet every ratio is undefined and the crawl runs on the query alone.
 */
export function confidence(hotPages: number, otherPages: number, fullHot: number, fullCold: number): number {
  return Math.min(1, hotPages / fullHot) * Math.min(1, otherPages / fullCold);
}

/** A small bonus for backlinks from fetched pages (Cho's IB'), growing with their log. */
export function importance(inDegree: number): number {
  return Math.min(IMPORTANCE_CAP, IMPORTANCE_WEIGHT * Math.log1p(inDegree));
}

/**
 * The event "share of known parents that are hot", in four buckets whose interest ratios
 * are learned like words: none, under half, at least half, all.
 */
export const PARENT_HOT_BUCKETS = 4;
export function parentHotBucket(hotParents: number, parents: number): number {
  if (hotParents === 0) return 0;
  if (hotParents === parents) return 3;
  return 2 * hotParents >= parents ? 2 : 1;
}
