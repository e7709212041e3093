import { lastRun } from '../library/stats.ts';
import type { ReadonlyDb } from '../store/database.ts';

/** A run whose counters moved this recently and that has not finished is taken to be crawling now. */
const LIVE_WITHIN_MS = 30_000;

/**
 * Whether a crawl is writing to the collection right now (in this process or another): the
 * last run has no outcome yet and its counters were saved within LIVE_WITHIN_MS. A run
 * killed without finishing stops looking live once its last update ages.
 */
export function crawlInProgress(db: ReadonlyDb, now = Date.now()): { lastUpdateMs: number } | undefined {
  const run = lastRun(db);
  if (run === undefined || run.outcome !== null) return undefined;
  const last = run.endedAt ?? run.startedAt;
  return now - last <= LIVE_WITHIN_MS ? { lastUpdateMs: now - last } : undefined;
}
