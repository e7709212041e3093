import type { FrontierStore, PassedOver } from '../frontier/crawl-frontier.ts';
import { writeTransaction, type Db } from '../store/database.ts';
import { UrlState } from '../store/url-state.ts';
import type { QueuedUrl, UrlStore } from '../store/url-store.ts';

/** The URL state each way the frontier passes a URL over is stored as. */
const PASSED_OVER_STATE = {
  'robots-blocked': UrlState.robotsBlocked,
  skipped: UrlState.skipped,
  failed: UrlState.failed,
} as const satisfies Record<PassedOver, number>;

/**
 * The urls table as the frontier sees it: the URL store's queued-state transitions, and the
 * collection's transactions. `mayTake` false leaves a queued URL out of this run (it stays
 * queued in the table for the next): a refresh or a crawl whose page budget is spent takes
 * only revisits. A new URL `refusal` gives a reason for (include and exclude rules changed
 * since it was queued) is recorded as skipped with it instead of handed out.
 */
export function frontierStore(db: Db, urls: UrlStore, mayTake?: (task: QueuedUrl) => boolean, refusal?: (task: QueuedUrl) => string | null): FrontierStore<QueuedUrl> {
  return {
    queued: (urlId) => {
      const task = urls.queued(urlId);
      if (task === undefined || mayTake?.(task) === false) return undefined;
      const refused = task.revisit === true ? null : (refusal?.(task) ?? null);
      if (refused === null) return task;
      urls.passOver(task.id, UrlState.skipped, refused);
      return undefined;
    },
    markInflight: (urlId) => urls.markInflight(urlId),
    passOver: (urlId, as, reason) => urls.passOver(urlId, PASSED_OVER_STATE[as], reason),
    transaction: (fn) => writeTransaction(db, fn),
  };
}
