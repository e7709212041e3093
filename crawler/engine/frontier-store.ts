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
 * only revisits.
 */
export function frontierStore(db: Db, urls: UrlStore, mayTake?: (task: QueuedUrl) => boolean): FrontierStore<QueuedUrl> {
  return {
    queued: (urlId) => {
      const task = urls.queued(urlId);
      return task !== undefined && mayTake?.(task) === false ? undefined : task;
    },
    markInflight: (urlId) => urls.markInflight(urlId),
    passOver: (urlId, as, reason) => urls.passOver(urlId, PASSED_OVER_STATE[as], reason),
    transaction: (fn) => writeTransaction(db, fn),
  };
}
