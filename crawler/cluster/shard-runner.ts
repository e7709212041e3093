import { constants, copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlEngine, type RunOutcome } from '../engine/engine.ts';
import { threadCpuMs, TimeSlicer } from '../engine/time-slices.ts';
import { ShardPolicy } from './shard-policy.ts';
import { ShardRefreshPolicy } from './shard-refresh-policy.ts';
import type { RefreshRun } from '../engine/run-policy.ts';
import { pageJudgeSteps } from '../engine/relevance-judge.ts';
import type { ResponseReader } from '../parse/response-reader.ts';
import { CrawlJudge } from '../relevance/judge.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { ClusterError, UsageError } from '../errors.ts';
import { setLabel } from '../library/labels.ts';
import type { Db } from '../store/database.ts';
import { RevisitStore } from '../store/revisit-store.ts';
import { loadSettings, saveSettings } from '../store/settings-store.ts';
import { importCookies } from '../store/cookie-store.ts';
import type { ImportedCookie } from '../net/cookies-txt.ts';
import type { ClusterLabel } from './cluster-labels.ts';
import { linkLimitsOf, type LinkBatch, type LinkLimits, type SentLink } from './link-streams.ts';
import { elsewhereOf, soundLinks } from './dormant-intake.ts';
import { shardFileName } from '../store/shard-names.ts';
import type { PartitionMap } from './partition.ts';
import { isFenced } from './shard-fence.ts';
import { openShardFile } from './shard-file.ts';
import type { SharedBudget } from './shared-budget.ts';
import { ShardOutbox } from './shard-outbox.ts';
import type { WorkerRequests } from './worker-requests.ts';
import { createFocusedStrategy } from '../ordering/focused/focused.ts';
import type { OnlineLogistic } from '../ordering/focused/online-model.ts';
import { orderingContextOf } from '../ordering/registry.ts';
import type { SharedRendering } from '../render/shared-rendering.ts';

/** Kept here for the callers that knew it here (the shard's file is opened in shard-file.ts). */
export { ShardLockedError } from './shard-file.ts';

/*
 * One partition's crawl on one worker: today's engine over the partition's shard, with the
 * cluster's ports plugged in. Links to other partitions go to the shard's outbox; links from
 * them arrive through admit(); the page budget is the worker's share of the crawl's. Taking
 * a partition over is today's resume: the engine puts the shard's in-flight URLs back.
 */

/** Each shard's own CLOCK cache: a worker holds many shards, and the shard's index answers the rest. */
const SHARD_SEEN_CACHE = 8192;
/** Links read from the outbox per send. */
const OUTBOX_BATCH = 2000;

export interface ShardContext {
  dir: string;
  settings: CrawlSettings;
  partitions: PartitionMap;
  parser: ResponseReader;
  budget: Pick<SharedBudget, 'forShard'>;
  worker: string;
  /** Start paused (the crawl is paused, or the worker's leases are late): not one request before resume(). */
  paused: boolean;
  /** An empty collection at the current schema, copied to make a new shard (shard-template.ts). */
  template: string;
  /** The session a new shard's jar starts with (the cluster's `--cookies`); none when absent. */
  cookies?: readonly ImportedCookie[];
  /** Whether the worker's leases were renewed recently enough that this partition is surely its own. */
  leaseFresh: () => boolean;
  /** The worker's request slots, shared by its shards. */
  requests: WorkerRequests;
  /** The focused ordering's link model, one per worker: its shards learn into it together, so their priorities share one scale. */
  linkModel?: OnlineLogistic | undefined;
  /** The worker's browser, which every shard renders in (each through its own fetcher); the worker closes it. */
  rendering?: SharedRendering;
  /** Run the shard's part of a cluster's refresh (shard-refresh-policy.ts) instead of its crawl. */
  refresh?: RefreshRun;
}

export class ShardRunner {
  readonly partition: number;
  readonly epoch: number;
  /**
   * The shard's judge: made here rather than by the engine, so that the worker can share its
   * statistics with the rest of the crawl. It reads what the shard holds as the shard opens.
   */
  readonly judge: CrawlJudge;
  readonly #db: Db;
  /** Made once the judge has read the shard. */
  #engine: CrawlEngine | undefined;
  readonly #outbox: ShardOutbox;
  readonly #linkLimits: LinkLimits;
  readonly #run: Promise<RunOutcome>;
  /** The refresh this shard runs instead of its crawl, if it does (made with the engine). */
  #refresh: ShardRefreshPolicy | undefined;
  readonly #refreshing: boolean;
  /**
   * CPU milliseconds the open took (see threadCpuMs): the constructor (the shard made or
   * opened), the judge reading the shard, the engine set up and, once ready, the engine's
   * preparation of its frontier.
   */
  openMs: number;
  /** Resolves once the engine's frontier is ready (true), or when its run ended before (false). */
  readonly opened: Promise<boolean>;
  /** CPU milliseconds closing the connection took (SQLite's checkpoint of the WAL); 0 until closed. */
  closeMs = 0;
  #outcome: RunOutcome | undefined;
  #fault: unknown;
  #closed = false;
  #ready = false;
  #paused: boolean;
  /** close() was called: an open still under way stops between two slices. */
  #stopping = false;

  constructor(partition: number, epoch: number, context: ShardContext) {
    const started = threadCpuMs();
    this.partition = partition;
    this.epoch = epoch;
    this.#linkLimits = linkLimitsOf(context.settings);
    this.#paused = context.paused;
    this.#refreshing = context.refresh !== undefined;
    const path = join(context.dir, shardFileName(partition));
    // A new shard starts as a copy of an empty collection: making one (pragmas, every migration) costs a crawl of small shards dearly.
    if (!existsSync(path)) copyFileSync(context.template, path, constants.COPYFILE_EXCL);
    const db = openShardFile(path, partition, epoch);
    this.#db = db;
    try {
      if (loadSettings(db) === undefined) {
        saveSettings(db, context.settings);
        if (context.cookies !== undefined) importCookies(db, context.cookies);
      }
      this.#outbox = new ShardOutbox(db, (url) => context.partitions.of(url));
      // The judge can refuse the settings: said now, as the shard opens.
      this.judge = new CrawlJudge(context.settings);
    } catch (err) {
      db.close();
      throw err;
    }
    let opened!: (ready: boolean) => void;
    this.opened = new Promise((resolve) => (opened = resolve));
    this.#run = this.#start(context, () => opened(true)).then(
      (outcome) => (this.#outcome = outcome),
      (err: unknown) => {
        this.#fault = err;
        return (this.#outcome = 'stopped');
      },
    );
    void this.#run.then(() => opened(false));
    this.openMs = threadCpuMs() - started;
  }

  /**
   * The rest of the open, in slices beside the worker's other work (engine/time-slices.ts):
   * the judge reads the shard's pages, then the engine is made and run, and replays the
   * shard's history before it is ready.
   */
  async #start(context: ShardContext, ready: () => void): Promise<RunOutcome> {
    const slicer = new TimeSlicer(() => this.#stopping);
    const judged = await slicer.run(pageJudgeSteps(this.#db, context.settings, this.judge));
    this.openMs += slicer.cpuMs;
    if (!judged || this.#stopping) return 'stopped';
    const started = threadCpuMs();
    const outbox = this.#outbox;
    let engine: CrawlEngine | undefined;
    const shard = {
      mayDispatch: context.leaseFresh,
      requests: context.requests.gate(() => engine?.nudge()),
      partition: { elsewhere: elsewhereOf(context.partitions, this.partition), forward: outbox.add.bind(outbox) },
    };
    this.#refresh = context.refresh === undefined ? undefined : new ShardRefreshPolicy(context.refresh, shard);
    this.#engine = engine = new CrawlEngine(this.#db, context.settings, {
      writer: `forager worker ${context.worker}`,
      judge: this.judge,
      seenCacheSize: SHARD_SEEN_CACHE,
      ...(context.linkModel === undefined ? {} : { strategy: createFocusedStrategy(orderingContextOf(context.settings), { model: context.linkModel }) }),
      parser: context.parser,
      ...(context.rendering === undefined ? {} : { rendering: context.rendering }),
      policy: this.#refresh ?? new ShardPolicy(context.settings, { ...shard, budget: context.budget.forShard(() => engine?.nudge()) }),
    });
    if (this.#paused) engine.pause();
    engine.once('ready', (cpuMs) => {
      this.#ready = true;
      this.openMs += cpuMs;
      ready();
    });
    this.openMs += threadCpuMs() - started;
    return engine.run();
  }

  /** Whether the shard runs its part of a cluster's refresh rather than its crawl. */
  get refreshing(): boolean {
    return this.#refreshing;
  }

  /** Fetches of its chunk the shard's refresh spent so far (0 for a crawl). */
  get refreshFetchesSpent(): number {
    return this.#refresh?.fetchesSpent ?? 0;
  }

  /**
   * Whether the engine's frontier is ready: the shard replays its history in slices beside
   * the worker's other work, and takes links and labels only from then on.
   */
  get ready(): boolean {
    return this.#ready;
  }

  /** An error that ended the engine's run that is neither the web's nor the store's. */
  get fault(): unknown {
    return this.#fault;
  }

  /** The shard's engine, made as the shard opens (always there once ready). */
  get engine(): CrawlEngine {
    if (this.#engine === undefined) throw new ClusterError(`partition ${this.partition}: its shard's engine is not made yet`, { partition: this.partition });
    return this.#engine;
  }

  /** Why the engine's run ended on its own, in words. */
  get endedBecause(): string {
    if (this.#fault instanceof Error) return this.#fault.message;
    return this.#engine?.storeError?.message ?? this.#engine?.proxyError?.message ?? `engine ended: ${this.#outcome ?? 'not yet'}`;
  }

  /** Pauses or resumes the engine, once it is made too. */
  pause(paused: boolean): void {
    this.#paused = paused;
    if (paused) this.#engine?.pause();
    else this.#engine?.resume();
  }

  /** When the last of the shard's hosts may be asked again (epoch ms); 0 before its engine asked any. */
  politeUntil(): number {
    return this.#engine?.politeUntil() ?? 0;
  }

  /** How the engine's run ended, once it has. */
  get outcome(): RunOutcome | undefined {
    return this.#outcome;
  }

  /** True when the shard refused this worker's writes because another worker holds the partition now. */
  get fenced(): boolean {
    return isFenced(this.#engine?.storeError);
  }

  /**
   * Links and seeds from the partition's stream, committed in one transaction. A link out of
   * the crawl's bounds is left out (the stream's reader checks them, and this is checked
   * again: nothing but a sound link is ever stored). Returns how many were left out.
   */
  admit(batches: readonly LinkBatch[]): number {
    if (!this.#ready) throw new ClusterError(`partition ${this.partition}: its shard is still being opened and takes no links yet`, { partition: this.partition });
    const { links, refused } = soundLinks(batches, this.#linkLimits);
    if (links.length > 0) this.engine.admitLinks(links);
    return refused;
  }

  /**
   * The user's label on a page of this shard, stored and told to the engine (as the service
   * does for a crawl it runs). False when the shard has not fetched the page (yet), or is not ready.
   */
  label(url: string, label: ClusterLabel): boolean {
    if (!this.#ready || this.#engine === undefined) return false;
    let result;
    try {
      result = setLabel(this.#db, url, label === 'clear' ? null : label);
    } catch (err) {
      if (err instanceof UsageError) return false;
      throw err;
    }
    this.engine.applyLabel(result.urlId, label === 'clear' ? null : label === 'relevant', Number(result.hot) - Number(result.wasHot));
    return true;
  }

  /** When the shard's page checked longest ago comes due for a revisit `afterMs` after that check; undefined without stored pages. */
  nextRevisitAt(afterMs: number): number | undefined {
    const oldest = new RevisitStore(this.#db).oldestCheck();
    return oldest === undefined ? undefined : oldest + afterMs;
  }

  /** The oldest links for other partitions not `blocked` (all when omitted), to send; then done() once Redis has them. */
  takeOutbox(blocked?: ReadonlySet<number>): { links: SentLink[]; done: () => void } | undefined {
    const batch = this.#outbox.next(OUTBOX_BATCH, blocked);
    if (batch === undefined) return undefined;
    return { links: batch.links, done: () => this.#outbox.sent(batch) };
  }

  /** Links waiting in the outbox. */
  get outboxSize(): number {
    return this.#closed ? 0 : this.#outbox.size;
  }

  /** Links the outbox holds for each of the `blocked` partitions. */
  outboxHeld(blocked: ReadonlySet<number>): Map<number, number> {
    return this.#closed ? new Map() : this.#outbox.held(blocked);
  }

  /** Nothing to fetch, nothing being fetched, nothing waiting to be sent (a shard still being opened is not idle). */
  get idle(): boolean {
    if (!this.#ready && this.#outcome === undefined) return false;
    if (this.#outcome !== undefined) return this.#outbox.size === 0;
    return this.engine.pagesInProgress === 0 && this.engine.stats().queued === 0 && this.#outbox.size === 0;
  }

  /**
   * Stops dispatching (requests in flight finish and are stored, or with `abort` go back to
   * the queue), sends what the outbox holds through `send`, then closes the shard.
   */
  async close(send: (links: SentLink[]) => Promise<unknown>, abort = false): Promise<RunOutcome> {
    this.#stopping = true;
    if (abort) this.#engine?.abort();
    else this.#engine?.stop();
    const outcome = await this.#run;
    if (this.#closed) return outcome;
    try {
      for (let batch = this.takeOutbox(); batch !== undefined; batch = this.takeOutbox()) {
        await send(batch.links);
        batch.done();
      }
    } finally {
      this.#closed = true;
      const closing = threadCpuMs();
      this.#db.close();
      this.closeMs = threadCpuMs() - closing;
    }
    return outcome;
  }
}
