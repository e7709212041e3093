import type { Frontier } from '../frontier/crawl-frontier.ts';
import { historyReplaySteps } from '../library/history-replay.ts';
import type { RevisitOrdering } from '../ordering/revisit-ordering.ts';
import type { Acronym } from '../relevance/acronyms.ts';
import { simhashFromInt } from '../relevance/simhash.ts';
import { writeTransaction, type Db } from '../store/database.ts';
import type { HostStore } from '../store/host-store.ts';
import type { QueuedUrl, UrlStore } from '../store/url-store.ts';
import type { HostState } from './host-state.ts';
import type { Revisits } from './revisits.ts';
import type { RobotsGate } from './robots-gate.ts';
import type { FrontierPlan } from './run-policy.ts';

/** Queued URLs read per statement as they join the frontier. */
const CHUNK = 1000;

/** What a run's frontier is made from: the engine's own parts. */
export interface FrontierParts {
  db: Db;
  urls: UrlStore;
  hosts: HostStore;
  frontier: Frontier<HostState, QueuedUrl>;
  robots: RobotsGate;
  strategy: RevisitOrdering;
  revisits: Revisits;
  /** The acronyms the judge knows, given to the strategy with the first stored page. */
  acronyms: readonly Acronym[];
  plan: FrontierPlan;
  /** Admits the settings' seeds, when the run's policy admits them. */
  admitSeeds: (() => void) | undefined;
  /** Rebuilds what the run keeps in memory of the stored pages besides the frontier (the near-duplicate index). */
  pageIndexes: Iterable<void>;
  /** Counts what the collection holds as the run begins, last (the run's figures count on from it). */
  counts: Iterable<void>;
}

/**
 * How a run makes its frontier ready, as steps (engine/time-slices.ts runs them between
 * turns of the event loop): URLs that were in flight at a crash go back in the queue, the
 * near-duplicate index is rebuilt, hosts are loaded, the stored history is replayed into the
 * ordering strategy, every waiting URL joins its host's queue, then the revisits come due and
 * the seeds are admitted, as the policy's frontier plan says; last, the collection's counts
 * are taken. No statement stays open from one step to the next, and each write is a
 * transaction of its own.
 */
export function* frontierPreparationSteps(parts: FrontierParts): Generator<void, void, undefined> {
  const { db, urls, frontier, strategy, revisits, plan } = parts;
  writeTransaction(db, () => urls.resetInflight());
  yield* parts.pageIndexes;
  for (const row of parts.hosts.all()) {
    const host = frontier.restoreHost(row.id, row.origin, row.pagesFetched);
    host.robots = plan.keepsRobots ? parts.robots.restore(row) : { kind: 'unknown' };
    if (row.soft404Probed === 1) host.soft404 = row.soft404Simhash === null ? null : simhashFromInt(BigInt(row.soft404Simhash));
    yield;
  }
  if (strategy.needsHistory !== false) yield* historyReplaySteps(db, strategy, parts.acronyms);
  writeTransaction(db, () => revisits.restoreWaiting());
  yield;
  // Every URL's host has a row, so every host of the frontier was loaded above.
  for (let chunk = urls.frontierAfter(0, CHUNK); chunk.length > 0; chunk = urls.frontierAfter(chunk[chunk.length - 1]?.id ?? 0, CHUNK)) {
    for (const entry of chunk) {
      if (plan.keepsCrawlQueue || strategy.isRevisit(entry.id)) frontier.restoreQueued(entry.id, entry.hostId);
    }
    yield;
  }
  writeTransaction(db, () => {
    if (plan.dueRevisits !== undefined) revisits.queueDue(plan.dueRevisits.since, plan.dueRevisits.origins);
    parts.admitSeeds?.();
  });
  yield* parts.counts;
}
