import { constants, copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlEngine, type RunOutcome } from '../engine/engine.ts';
import { threadCpuMs } from '../engine/time-slices.ts';
import { ShardPolicy } from './shard-policy.ts';
import { createPageJudge } from '../engine/relevance-judge.ts';
import type { ResponseReader } from '../parse/response-reader.ts';
import type { PageJudge } from '../relevance/judge.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { ClusterError, UsageError } from '../errors.ts';
import { setLabel } from '../library/labels.ts';
import type { Db } from '../store/database.ts';
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
}

export class ShardRunner {
  readonly partition: number;
  readonly epoch: number;
  readonly judge: PageJudge;
  readonly #db: Db;
  readonly #engine: CrawlEngine;
  readonly #outbox: ShardOutbox;
  readonly #linkLimits: LinkLimits;
  readonly #run: Promise<RunOutcome>;
  /**
   * CPU milliseconds the open took (see threadCpuMs): the constructor (the shard made or
   * opened, its engine set up) and, once ready, the engine's preparation of its frontier.
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

  constructor(partition: number, epoch: number, context: ShardContext) {
    const started = threadCpuMs();
    this.partition = partition;
    this.epoch = epoch;
    this.#linkLimits = linkLimitsOf(context.settings);
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
      this.#outbox = new ShardOutbox(db);
      // Made here rather than by the engine, so that the worker can share its statistics with the rest of the crawl.
      this.judge = createPageJudge(db, context.settings);
      const outbox = this.#outbox;
      let engine: CrawlEngine | undefined;
      this.#engine = engine = new CrawlEngine(db, context.settings, {
        writer: `forager worker ${context.worker}`,
        judge: this.judge,
        seenCacheSize: SHARD_SEEN_CACHE,
        parser: context.parser,
        policy: new ShardPolicy(context.settings, {
          budget: context.budget.forShard(() => engine?.nudge()),
          mayDispatch: context.leaseFresh,
          partition: { elsewhere: elsewhereOf(context.partitions, partition), forward: (link) => outbox.add(link) },
        }),
      });
    } catch (err) {
      db.close();
      throw err;
    }
    if (context.paused) this.#engine.pause();
    let opened!: (ready: boolean) => void;
    this.opened = new Promise((resolve) => (opened = resolve));
    this.#engine.once('ready', (cpuMs) => {
      this.#ready = true;
      this.openMs += cpuMs;
      opened(true);
    });
    this.#run = this.#engine.run().then(
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

  get engine(): CrawlEngine {
    return this.#engine;
  }

  /** How the engine's run ended, once it has. */
  get outcome(): RunOutcome | undefined {
    return this.#outcome;
  }

  /** True when the shard refused this worker's writes because another worker holds the partition now. */
  get fenced(): boolean {
    return isFenced(this.#engine.storeError);
  }

  /**
   * Links and seeds from the partition's stream, committed in one transaction. A link out of
   * the crawl's bounds is left out (the stream's reader checks them, and this is checked
   * again: nothing but a sound link is ever stored). Returns how many were left out.
   */
  admit(batches: readonly LinkBatch[]): number {
    if (!this.#ready) throw new ClusterError(`partition ${this.partition}: its shard is still being opened and takes no links yet`, { partition: this.partition });
    const { links, refused } = soundLinks(batches, this.#linkLimits);
    if (links.length > 0) this.#engine.admitLinks(links);
    return refused;
  }

  /**
   * The user's label on a page of this shard, stored and told to the engine (as the service
   * does for a crawl it runs). False when the shard has not fetched the page (yet), or is not ready.
   */
  label(url: string, label: ClusterLabel): boolean {
    if (!this.#ready) return false;
    let result;
    try {
      result = setLabel(this.#db, url, label === 'clear' ? null : label);
    } catch (err) {
      if (err instanceof UsageError) return false;
      throw err;
    }
    this.#engine.applyLabel(result.urlId, label === 'clear' ? null : label === 'relevant', Number(result.hot) - Number(result.wasHot));
    return true;
  }

  /** The oldest links for other partitions, to send; then sent() with the same batch. */
  takeOutbox(): { links: SentLink[]; done: () => void } | undefined {
    const batch = this.#outbox.next(OUTBOX_BATCH);
    if (batch === undefined) return undefined;
    return { links: batch.links, done: () => this.#outbox.sent(batch) };
  }

  /** Links waiting in the outbox. */
  get outboxSize(): number {
    return this.#closed ? 0 : this.#outbox.size;
  }

  /** Nothing to fetch, nothing being fetched, nothing waiting to be sent (a shard still being opened is not idle). */
  get idle(): boolean {
    if (!this.#ready && this.#outcome === undefined) return false;
    if (this.#outcome !== undefined) return this.#outbox.size === 0;
    return this.#engine.pagesInProgress === 0 && this.#engine.stats().queued === 0 && this.#outbox.size === 0;
  }

  /**
   * Stops dispatching (requests in flight finish and are stored, or with `abort` go back to
   * the queue), sends what the outbox holds through `send`, then closes the shard.
   */
  async close(send: (links: SentLink[]) => Promise<unknown>, abort = false): Promise<RunOutcome> {
    if (abort) this.#engine.abort();
    else this.#engine.stop();
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
