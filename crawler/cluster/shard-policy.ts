import type { RequestGate } from '../engine/request-gate.ts';
import { CrawlPolicy, type RunProgress, type ShardPartition } from '../engine/run-policy.ts';
import type { CrawlSettings } from '../protocol/settings.ts';

/** Pages a shard may still start, from a page budget shared with the crawl's other shards. */
export interface PageBudget {
  /** Pages that may start now; 0 when spent, for now or for good. */
  available(): number;
  /** Whether the crawl's budget is spent for good (all handed out, none held here), not only for now (a refill under way). */
  spent(): boolean;
  /** A page fetch starts: it holds one page of the budget until it is stored or given back. */
  reserve(): void;
  /** A reserved page was not stored (retried later, failed without a response, or cancelled). */
  giveBack(): void;
}

/** What makes a crawl a cluster's shard. */
export interface ShardRun {
  /** The crawl's page budget, shared with the other shards. */
  budget: PageBudget;
  /** Which URLs are this shard's, and where links to the others' go. */
  partition: ShardPartition;
  /**
   * Asked before each request is started: a shard may ask its hosts only while its
   * partition's lease is surely its own, and a process that was starved of the CPU must not
   * start one request before it has checked.
   */
  mayDispatch: () => boolean;
  /** The worker's request slots, shared by its shards (worker-requests.ts). */
  requests: RequestGate;
}

/**
 * A shard's run: a crawl of one partition whose new pages count against the cluster's budget.
 * It runs until stopped (links and budget come from outside), admits no seeds (each goes to
 * its partition), takes its requests' slots from the worker's, and takes no writer lock: its
 * partition's lease and an epoch fence guard the file. With settings.revisitAfter it
 * revisits its stored pages as they come due; as in a plain crawl, revisits draw nothing
 * from the budget and go on once it is spent.
 */
export class ShardPolicy extends CrawlPolicy {
  override readonly admitsSeeds = false;
  override readonly endsWhenIdle = false;
  override readonly partition: ShardPartition;
  readonly #budget: PageBudget;
  readonly #mayDispatch: () => boolean;
  readonly #requests: RequestGate;

  constructor(settings: CrawlSettings, shard: ShardRun) {
    super(settings, { locksCollection: false });
    this.partition = shard.partition;
    this.#budget = shard.budget;
    this.#mayDispatch = shard.mayDispatch;
    this.#requests = shard.requests;
  }

  protected override newPagesLeft(): number {
    return this.#budget.available();
  }

  /**
   * The plain crawl's rule, with one difference: revisits go past the budget only once it is
   * spent for good. While the worker's allowance is empty for now (a refill under way), the
   * frontier must not be asked for hosts: it would drop the new URLs it may not hand out from
   * this run, and they would wait for the shard's next open.
   */
  override budgetLeft(run: RunProgress): number {
    const newPages = this.newPagesLeft();
    if (newPages > 0 || run.queuedRevisits === 0 || !this.#budget.spent()) return newPages;
    return run.queuedRevisits - run.revisitTasks;
  }

  override mayDispatch(): boolean {
    return this.#mayDispatch();
  }

  /** The worker's slots, whatever the settings' concurrency: it counts per worker. */
  override requestGate(): RequestGate {
    return this.#requests;
  }

  override pageStarted(): void {
    this.#budget.reserve();
  }

  override pageNotStored(): void {
    this.#budget.giveBack();
  }
}
