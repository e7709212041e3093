import { durationMs, type CrawlSettings } from '../protocol/settings.ts';
import { OwnRequests, type RequestGate } from './request-gate.ts';

/** What the engine tells its policy of the run so far, for the budget's sums. */
export interface RunProgress {
  /** Pages in the collection when the run began. */
  readonly pagesAtStart: number;
  /** New pages stored this run (revisits are not counted here). */
  readonly pagesThisRun: number;
  /** Page fetches and revisits under way (each holds a fetch of the budget). */
  readonly pageTasks: number;
  /** Revisits under way (counted in pageTasks too). */
  readonly revisitTasks: number;
  /** Revisits done this run, whatever their outcome. */
  readonly revisitedThisRun: number;
  /** Stored pages queued for a revisit. */
  readonly queuedRevisits: number;
}

/** A link on a page of this shard to a URL that another partition owns. */
export interface ForeignLink {
  url: string;
  /** The URL id, in this shard, of the page the link is on. */
  parentId: number;
  depth: number;
  anchor: string;
  context: string;
}

/** How a partitioned crawl's shard tells its URLs from the other partitions'. */
export interface ShardPartition {
  /** The reason stored for a URL this shard does not own ('partition:17'), or null when it owns it. */
  elsewhere(url: string): string | null;
  /** A link on a page of this shard to a URL owned elsewhere; called in the page's write transaction, every time the link is seen. */
  forward(link: ForeignLink): void;
}

/** How the frontier is made ready when a run starts, besides what every run does (hosts loaded, history replayed). */
export interface FrontierPlan {
  /** Whether hosts keep their stored robots.txt; false reads it afresh and obeys what it says now. */
  readonly keepsRobots: boolean;
  /** Whether the crawl's queued URLs join the frontier; false leaves them for the next crawl (revisits join always). */
  readonly keepsCrawlQueue: boolean;
  /** Stored pages last checked before `since` are queued for a revisit at the start (only these origins' when given). */
  readonly dueRevisits?: { since: number; origins?: readonly string[] };
}

/**
 * What a run is: its budget, what it may take next, when it ends, and how it starts. The
 * engine runs any policy the same way; a crawl, a refresh and a cluster's shard differ here
 * only.
 */
export interface RunPolicy {
  /** Whether run() takes the collection's writer lock; false when the caller holds it, or an epoch fence guards the file instead. */
  readonly locksCollection: boolean;
  /** Whether run() admits the settings' seeds. */
  readonly admitsSeeds: boolean;
  /** Whether the run ends once nothing is left to fetch (or no budget); false runs until stop(), as work may come from outside or come due. */
  readonly endsWhenIdle: boolean;
  readonly frontier: FrontierPlan;
  /** How long after its last check a stored page is queued again for a revisit while the run goes on; undefined: never. */
  readonly revisitAfterMs: number | undefined;
  /** Whether the run's figures include revisits. */
  readonly reportsRevisits: boolean;
  /** Whether a run that ended (not stopped) leaves no revisit queued, so the next run decides afresh. */
  readonly unqueuesRevisitsAtEnd: boolean;
  /** The shard of a partitioned crawl: links to URLs another partition owns are stored as stubs and sent there. */
  readonly partition: ShardPartition | undefined;
  /** Fetches the run may still start. */
  budgetLeft(run: RunProgress): number;
  /** Whether the frontier may hand out a new URL (not a revisit) now. */
  mayTakeNew(run: RunProgress): boolean;
  /** Asked before each request is started: false holds every request back for now. */
  mayDispatch(): boolean;
  /** The request slots the run's requests take (`onStepAside` wakes the run when a slow request frees one). */
  requestGate(concurrency: number, onStepAside: () => void): RequestGate;
  /** A page fetch starts (it holds a page of the budget until stored). */
  pageStarted(): void;
  /** A started page was not stored (retried later, failed without a response, or cancelled). */
  pageNotStored(): void;
}

/** How long after its last check a page is revisited by a crawl that keeps going (settings.revisitAfter); undefined: never. */
export function revisitAfterMsOf(settings: CrawlSettings): number | undefined {
  return settings.revisitAfter === '' ? undefined : durationMs(settings.revisitAfter);
}

/**
 * A crawl of the collection: its budget is the collection's size (settings.maxPages); with
 * settings.revisitAfter it revisits stored pages as they come due and goes on until stopped,
 * revisiting even once its page budget is spent.
 */
export class CrawlPolicy implements RunPolicy {
  readonly locksCollection: boolean;
  readonly admitsSeeds: boolean = true;
  readonly endsWhenIdle: boolean;
  readonly frontier: FrontierPlan = { keepsRobots: true, keepsCrawlQueue: true };
  readonly revisitAfterMs: number | undefined;
  readonly reportsRevisits: boolean;
  readonly unqueuesRevisitsAtEnd = false;
  readonly partition: ShardPartition | undefined = undefined;
  readonly #maxPages: number;

  constructor(settings: CrawlSettings, options: { locksCollection?: boolean } = {}) {
    this.#maxPages = settings.maxPages;
    this.locksCollection = options.locksCollection ?? true;
    this.revisitAfterMs = revisitAfterMsOf(settings);
    this.reportsRevisits = this.revisitAfterMs !== undefined;
    // A crawl that revisits has pages come due while it waits.
    this.endsWhenIdle = this.revisitAfterMs === undefined;
  }

  /** New pages count against the budget; with it spent, the revisits waiting are still started. */
  budgetLeft(run: RunProgress): number {
    const newPages = this.newPagesLeft(run);
    return newPages <= 0 && run.queuedRevisits > 0 ? run.queuedRevisits - run.revisitTasks : newPages;
  }

  mayTakeNew(run: RunProgress): boolean {
    return this.newPagesLeft(run) > 0;
  }

  /** New pages the crawl may still fetch. */
  protected newPagesLeft(run: RunProgress): number {
    return this.#maxPages - run.pagesAtStart - run.pagesThisRun - (run.pageTasks - run.revisitTasks);
  }

  mayDispatch(): boolean {
    return true;
  }

  requestGate(concurrency: number, onStepAside: () => void): RequestGate {
    return new OwnRequests(concurrency, onStepAside);
  }

  pageStarted(): void {}

  pageNotStored(): void {}
}

/**
 * A refresh: the stored pages last checked before `since` are revisited, most likely changed
 * and most relevant first, with the new URLs their changed versions link to; queued URLs of
 * the crawl wait for the next crawl. Every revisit and new page counts against `maxFetches`.
 */
export interface RefreshRun {
  /** Pages checked at or after this time (epoch ms) are not revisited: a refresh that is resumed goes on from where it was. */
  since: number;
  maxFetches: number;
  /** Only these origins' pages are revisited (all when absent). */
  origins?: readonly string[];
}

/** A refresh's run (see RefreshRun): robots.txt is read afresh, and the run ends when its budget or its due pages do. */
export class RefreshPolicy implements RunPolicy {
  readonly locksCollection: boolean;
  readonly admitsSeeds = true;
  readonly endsWhenIdle = true;
  readonly frontier: FrontierPlan;
  readonly revisitAfterMs = undefined;
  readonly reportsRevisits = true;
  readonly unqueuesRevisitsAtEnd = true;
  readonly partition = undefined;
  readonly #maxFetches: number;

  constructor(refresh: RefreshRun, options: { locksCollection?: boolean } = {}) {
    this.#maxFetches = refresh.maxFetches;
    this.locksCollection = options.locksCollection ?? true;
    this.frontier = {
      keepsRobots: false,
      keepsCrawlQueue: false,
      dueRevisits: { since: refresh.since, ...(refresh.origins === undefined ? {} : { origins: refresh.origins }) },
    };
  }

  /** Revisits and new pages alike count against the refresh's fetches. */
  budgetLeft(run: RunProgress): number {
    return this.#maxFetches - run.revisitedThisRun - run.pagesThisRun - run.pageTasks;
  }

  /** A refresh's new URLs share its fetch budget with the revisits. */
  mayTakeNew(): boolean {
    return true;
  }

  mayDispatch(): boolean {
    return true;
  }

  requestGate(concurrency: number, onStepAside: () => void): RequestGate {
    return new OwnRequests(concurrency, onStepAside);
  }

  pageStarted(): void {}

  pageNotStored(): void {}
}
