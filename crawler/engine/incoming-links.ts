import type { PageJudge } from '../relevance/judge.ts';
import { writeTransaction, type Db } from '../store/database.ts';
import { UrlState } from '../store/url-state.ts';
import type { IncomingLink } from './engine-types.ts';
import type { UrlAdmission } from './url-admission.ts';

/** What admitting links from outside the crawl loop stored. */
export interface IncomingOutcome {
  /** URLs new here, whatever their state. */
  added: number;
  /** New URLs stored as queued: work for the shard. */
  queued: number;
}

/**
 * Admits links from outside the crawl loop (another shard's pages, seeds sent to this
 * partition) in one transaction, through the crawl's own admission: a running engine's, or a
 * dormant shard's (cluster/dormant-intake.ts), which stores them with no engine. `judge`
 * grades the sender's relevance for the ordering; without one, no grade is given.
 */
export function admitIncoming(db: Db, admission: UrlAdmission, judge: Pick<PageJudge, 'gradeOf'> | undefined, links: readonly IncomingLink[]): IncomingOutcome {
  const outcome = { added: 0, queued: 0 };
  writeTransaction(db, () => {
    for (const link of links) {
      // The sender's relevance, graded against this shard's own bar: the ordering reads grades.
      const sourceGrade = link.parentRelevance === undefined ? undefined : judge?.gradeOf?.(link.parentRelevance);
      const admitted = admission.admit(link.url, link.url, {
        depth: link.depth, parentId: null, redirects: 0, anchor: link.anchor, context: link.context, isSeed: link.isSeed,
        ...(sourceGrade === undefined ? {} : { sourceGrade }),
      });
      if (admitted?.isNew !== true) continue;
      outcome.added++;
      if (admitted.state === UrlState.queued) outcome.queued++;
    }
  });
  return outcome;
}
