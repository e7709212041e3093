import { UsageError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { beginRefresh, endRefresh, refreshInProgress } from '../store/settings-store.ts';
import type { RunOutcome } from './engine-types.ts';
import type { RefreshRun } from './run-policy.ts';

/** New pages a refresh may fetch besides its revisits, by default: a tenth as many, and at least this many. */
const MIN_NEW_PAGES = 50;

/** What a refresh is asked for: a fetch budget, and the hosts whose pages it revisits. */
export interface RefreshRequest {
  /** Fetches (revisits and new pages); by default every due page once, and a tenth as many new pages. */
  maxFetches?: number;
  /** Host names or origins (http://example.org:8080); all hosts when absent or empty. */
  hosts?: readonly string[];
}

/** The stored origins a list of host names or origins names; a name that matches none is refused. */
function originsOf(db: Db, hosts: readonly string[]): string[] {
  const stored = db.prepare('SELECT origin FROM hosts').pluck().all() as string[];
  const origins = new Set<string>();
  for (const host of hosts) {
    const wanted = host.trim().toLowerCase().replace(/\/+$/, '');
    const matching = stored.filter((origin) => origin === wanted || URL.canParse(origin) && new URL(origin).host === wanted);
    if (matching.length === 0) throw new UsageError(`the collection has no pages from host "${host}"`, { host });
    for (const origin of matching) origins.add(origin);
  }
  return [...origins];
}

/**
 * The refresh to run now: the one in progress when a refresh was stopped or killed (its start
 * is kept in the collection, so pages it revisited are not revisited again), else a new one
 * from now.
 */
export function startRefresh(db: Db, request: RefreshRequest, now = Date.now()): RefreshRun & { resumed: boolean } {
  // The hosts are checked first: a refused request must not leave a refresh in progress.
  const origins = request.hosts !== undefined && request.hosts.length > 0 ? originsOf(db, request.hosts) : undefined;
  const inProgress = refreshInProgress(db);
  const since = inProgress ?? now;
  if (inProgress === undefined) beginRefresh(db, since);
  let maxFetches = request.maxFetches;
  if (maxFetches === undefined) {
    const due = db
      .prepare(
        `SELECT count(*) FROM pages p JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id
         WHERE coalesce(p.checked_at, p.fetched_at) < ? ${origins === undefined ? '' : `AND h.origin IN (${origins.map(() => '?').join(', ')})`}`,
      )
      .pluck()
      .get(since, ...(origins ?? [])) as number;
    maxFetches = due + Math.max(MIN_NEW_PAGES, Math.ceil(due / 10));
  }
  return { since, maxFetches, ...(origins === undefined ? {} : { origins }), resumed: inProgress !== undefined };
}

/** A refresh that ran to its end (its budget, or nothing left) is over; a stopped one stays in progress. */
export function finishRefresh(db: Db, outcome: RunOutcome): void {
  if (outcome === 'budget' || outcome === 'exhausted') endRefresh(db);
}
