/**
 * Which stored page to revisit first: the one most likely to have changed since it was last
 * checked, weighed by how much it matters. A page's change rate comes from its own revisits
 * (Cho and Garcia-Molina, "Estimating frequency of change", ACM TOIT 2003: with n checks and X
 * of them finding a change, r = −ln((n − X + 0.5)/(n + 0.5)) changes per check interval; the
 * naive X/n is biased low when a page changes more than once between checks), as evidence
 * added to a prior of one change at the collection's pooled rate, so that a page no revisit
 * found changed is asked again later rather than never (a point estimate of 0 starved such
 * pages for good). A sitemap's lastmod overrides the estimate when it says whether the page
 * changed after our last check. bench/refresh/policy-simulation.ts measures the order against
 * the oldest-first round robin, random and an oracle that knows the true rates.
 */

/** What the policy knows of one stored page. */
export interface RevisitFacts {
  /** When the page was first fetched (epoch ms). */
  firstFetchedAt: number;
  /** The last answer from the server for it, fetch or revisit (epoch ms). */
  checkedAt: number;
  /** Revisits answered so far (n). */
  revisits: number;
  /** Of those, the ones that found it changed or gone (X). */
  changes: number;
  /** How much the page matters, 0 to 1 (its graded verdict; 1 for a hot page). */
  value: number;
  /** The page's lastmod in a sitemap (epoch ms), when a sitemap gives one. */
  lastModified?: number;
}

/** The prior's weight, in changes at the pooled rate: one, so that a few revisits outweigh it. */
const PRIOR_CHANGES = 1;
/** The change rate assumed before any revisit says anything: once a month. */
export const DEFAULT_CHANGES_PER_MS = 1 / (30 * 24 * 3600 * 1000);
/** The chance a page changed although its sitemap's lastmod says not (lastmods are sometimes stale). */
const STALE_LASTMOD_CHANCE = 0.05;
/** The least chance a page changed: one that never changed yet may, and its value still orders it among its like. */
const MIN_CHANGED_CHANCE = 1e-4;
/** A page's weight when it is not on topic at all: it is still part of the collection. */
const FLOOR_VALUE = 0.2;

/** Cho and Garcia-Molina's estimate of changes per check interval, from n checks that found X changes. */
export function changesPerInterval(checks: number, changes: number): number {
  if (checks <= 0) return 0;
  const found = Math.min(Math.max(changes, 0), checks);
  return -Math.log((checks - found + 0.5) / (checks + 0.5));
}

/** Changes per millisecond from n checks over `spanMs` (first fetch to last check) that found X changes; undefined without checks. */
export function changeRate(checks: number, changes: number, spanMs: number): number | undefined {
  if (checks <= 0 || spanMs <= 0) return undefined;
  return changesPerInterval(checks, changes) / (spanMs / checks);
}

/** Every revisit of a collection's pages together: checks, the changes they found, and the time they span. */
export interface RevisitTotals {
  checks: number;
  changes: number;
  /** The pages' spans from first fetch to last check, added up (ms). */
  spanMs: number;
}

/** The collection's pooled change rate: every revisit of every page as one sample; once a month before any revisit. */
export function pooledRate(totals: RevisitTotals): number {
  return changeRate(totals.checks, totals.changes, totals.spanMs) ?? DEFAULT_CHANGES_PER_MS;
}

/** pooledRate of pages held in memory. */
export function pooledChangeRate(pages: Iterable<Pick<RevisitFacts, 'revisits' | 'changes' | 'firstFetchedAt' | 'checkedAt'>>): number {
  const totals: RevisitTotals = { checks: 0, changes: 0, spanMs: 0 };
  for (const page of pages) {
    if (page.revisits <= 0) continue;
    totals.checks += page.revisits;
    totals.changes += page.changes;
    totals.spanMs += Math.max(0, page.checkedAt - page.firstFetchedAt);
  }
  return pooledRate(totals);
}

/**
 * The page's change rate: the changes its revisits imply (the estimator's rate times the span
 * they cover) added to one change's worth of prior at the pooled rate, over the span plus the
 * prior's (a gamma prior's posterior mean). Never zero: no revisit proves a page static.
 */
export function pageChangeRate(page: RevisitFacts, pooled: number): number {
  // Without a revisit, nothing was watched: the span between the first fetch and the last check is the revisits'.
  const spanMs = page.revisits > 0 ? Math.max(0, page.checkedAt - page.firstFetchedAt) : 0;
  const implied = spanMs > 0 ? changesPerInterval(page.revisits, page.changes) * page.revisits : 0;
  const priorSpanMs = PRIOR_CHANGES / pooled;
  return (PRIOR_CHANGES + implied) / (priorSpanMs + spanMs);
}

/** The chance the page changed since its last check (a Poisson process at its change rate), or what its sitemap says. */
export function changedChance(page: RevisitFacts, pooled: number, now: number): number {
  if (page.lastModified !== undefined) return page.lastModified > page.checkedAt ? 1 : STALE_LASTMOD_CHANCE;
  const elapsed = Math.max(0, now - page.checkedAt);
  return Math.max(MIN_CHANGED_CHANCE, 1 - Math.exp(-pageChangeRate(page, pooled) * elapsed));
}

/** What a page is worth to revisit, 0.2 to 1: its graded verdict, an off-topic page still a fifth. */
export function revisitValue(value: number): number {
  return FLOOR_VALUE + (1 - FLOOR_VALUE) * Math.min(1, Math.max(0, value));
}

/**
 * A revisit's priority, on the ordering's scale (0 to 1, like a new URL's chance of being on
 * topic): the chance it changed times what it is worth, so that the budget goes to the
 * changes that matter.
 */
export function revisitPriority(page: RevisitFacts, pooled: number, now: number): number {
  return changedChance(page, pooled, now) * revisitValue(page.value);
}
