import type { RequestGate } from '../engine/request-gate.ts';
import type { FrontierPlan, RefreshRun, RunPolicy, RunProgress, ShardPartition } from '../engine/run-policy.ts';
import type { ShardRun } from './shard-policy.ts';

/**
 * A shard's part of a cluster's refresh: a refresh of the shard (its pages last checked
 * before `since` revisited, robots.txt read afresh, the crawl's queue left for the crawl),
 * whose `maxFetches` is the chunk of the refresh's shared budget the worker took for it.
 * Like a shard's crawl it admits no seeds, sends links to the partitions that own them, asks
 * its gate before each request and takes no writer lock. It ends when its chunk or its due
 * pages do; the worker then takes another chunk or marks the partition done.
 */
export class ShardRefreshPolicy implements RunPolicy {
  readonly locksCollection = false;
  readonly admitsSeeds = false;
  readonly endsWhenIdle = true;
  readonly frontier: FrontierPlan;
  readonly revisitAfterMs = undefined;
  readonly reportsRevisits = true;
  readonly unqueuesRevisitsAtEnd = true;
  readonly partition: ShardPartition;
  readonly #maxFetches: number;
  readonly #mayDispatch: () => boolean;
  readonly #requests: RequestGate;
  /** The engine's live view of the run, kept to say what the run spent once it ended. */
  #run: RunProgress | undefined;

  constructor(refresh: RefreshRun, shard: Omit<ShardRun, 'budget'>) {
    this.#maxFetches = refresh.maxFetches;
    this.partition = shard.partition;
    this.#mayDispatch = shard.mayDispatch;
    this.#requests = shard.requests;
    this.frontier = { keepsRobots: false, keepsCrawlQueue: false, dueRevisits: { since: refresh.since } };
  }

  /** Fetches of the chunk spent: revisits answered and new pages stored (what failed without an answer costs nothing, as in a refresh). */
  get fetchesSpent(): number {
    const run = this.#run;
    return run === undefined ? 0 : run.revisitedThisRun + run.pagesThisRun;
  }

  /** Revisits and new pages alike count against the chunk, as a refresh's against its fetches. */
  budgetLeft(run: RunProgress): number {
    this.#run = run;
    return this.#maxFetches - run.revisitedThisRun - run.pagesThisRun - run.pageTasks;
  }

  mayTakeNew(): boolean {
    return true;
  }

  mayDispatch(): boolean {
    return this.#mayDispatch();
  }

  /** The worker's slots, shared with its other shards (worker-requests.ts). */
  requestGate(): RequestGate {
    return this.#requests;
  }

  pageStarted(): void {}

  pageNotStored(): void {}
}
