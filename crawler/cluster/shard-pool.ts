import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { revisitAfterMsOf, type RefreshRun } from '../engine/run-policy.ts';
import type { RefreshEnd } from './refresh-work.ts';
import type { ResponseReader } from '../parse/response-reader.ts';
import { shardFileName } from '../store/shard-names.ts';
import type { ClusterDefinition } from './cluster-definition.ts';
import { HANDOVER_MARGIN_MS, type LeaseKeeper } from './lease-keeper.ts';
import type { SentLink } from './link-streams.ts';
import type { PartitionMap } from './partition.ts';
import { isFenced } from './shard-fence.ts';
import { ShardLockedError, ShardRunner } from './shard-runner.ts';
import type { SharedBudget } from './shared-budget.ts';
import type { WorkerVoice } from './report-throttle.ts';
import type { WorkerRequests } from './worker-requests.ts';
import type { OnlineLogistic } from '../ordering/focused/online-model.ts';
import type { SharedRendering } from '../render/shared-rendering.ts';

/*
 * The shards a worker has open, one per held partition with work: opened when their lease
 * and quiet time allow (a few a tick), put to sleep when idle, reaped when their engine ends,
 * closed with their outbox sent.
 */

/**
 * Shards opened per tick at most: opening one (SQLite, the engine, its history) takes tens of
 * milliseconds of the one thread that also renews the leases.
 */
const OPENS_PER_TICK = 6;
/**
 * A shard with nothing to do for this long is closed until links come for it, or its pages
 * come due for a revisit: a worker holds a share of 256 partitions, and an open shard costs
 * megabytes (its page cache, its engine).
 */
export const DORMANT_AFTER_MS = 120_000;
/** A shard whose write lock another process holds (a worker past its lease) is tried again this often. */
const LOCKED_RETRY_MS = 1000;
/** A shard that failed to open, or whose engine ended on an error, is tried again after this long. */
const FAILED_RETRY_MS = 5000;

/** Shards a worker opened, and the milliseconds it spent opening and closing them. */
export interface ShardTime {
  opened: number;
  openMs: number;
  closeMs: number;
}

export interface ShardPoolParts {
  dir: string;
  definition: ClusterDefinition;
  partitions: PartitionMap;
  parser: ResponseReader;
  budget: SharedBudget;
  template: string;
  worker: string;
  keeper: LeaseKeeper;
  /** The worker's request slots, shared by its shards. */
  requests: WorkerRequests;
  /** The focused ordering's link model shared by the worker's shards (none for other strategies). */
  linkModel?: OnlineLogistic | undefined;
  /** The worker's one browser, shared by its shards. */
  rendering: SharedRendering;
  /** How long a shard idles before it is closed (default DORMANT_AFTER_MS). */
  dormantAfterMs?: number;
}

export interface ShardPoolEvents extends WorkerVoice {
  /** A problem said at once. */
  reportNow: (line: string) => void;
  /** Whether a shard opened now starts paused. */
  paused: () => boolean;
  /** Sends a closing shard's outbox. */
  send: (links: SentLink[]) => Promise<unknown>;
  /** A partition found to be another worker's (the epoch fence): the worker forgets it. */
  fenced: (partition: number) => void;
  /** A shard's part of a cluster's refresh ended (refresh-work.ts). */
  refreshEnded: (end: RefreshEnd) => void;
}

export class ShardPool {
  readonly #parts: ShardPoolParts;
  readonly #events: ShardPoolEvents;
  readonly #runners = new Map<number, ShardRunner>();
  /** Partitions whose shard failed to open or whose engine ended on an error: retried after a pause. */
  readonly #retryAt = new Map<number, number>();
  /** Partitions whose shard was closed for idleness: opened again when links come for them, or their pages come due. */
  readonly #dormant = new Set<number>();
  /** When each dormant shard's first stored page comes due for a revisit (a crawl with settings.revisitAfter): it is opened then. */
  readonly #dueAt = new Map<number, number>();
  /** How long after its last check a stored page is revisited; undefined: never. */
  readonly #revisitAfterMs: number | undefined;
  readonly #dormantAfterMs: number;
  /** The refresh each partition's shard runs, or is to run, in place of its crawl (a cluster's refresh), with its request's id. */
  readonly #refreshes = new Map<number, { id: string; run: RefreshRun }>();
  /** Partitions whose shard is being closed: not opened again before it is, so that one file never has two engines. */
  readonly #closing = new Set<number>();
  /** Since when each open shard has been idle. */
  readonly #idleSince = new Map<number, number>();
  readonly #shardTime: ShardTime = { opened: 0, openMs: 0, closeMs: 0 };
  #opensLeft = 0;
  #pagesStored = 0;

  constructor(parts: ShardPoolParts, events: ShardPoolEvents) {
    this.#parts = parts;
    this.#events = events;
    this.#revisitAfterMs = revisitAfterMsOf(parts.definition.settings);
    this.#dormantAfterMs = parts.dormantAfterMs ?? DORMANT_AFTER_MS;
  }

  /** Pages stored in this pool's shards. */
  get pagesStored(): number {
    return this.#pagesStored;
  }

  get shardTime(): Readonly<ShardTime> {
    return this.#shardTime;
  }

  /** The open shards. */
  get runners(): ReadonlyMap<number, ShardRunner> {
    return this.#runners;
  }

  /** A new tick: up to OPENS_PER_TICK shards may open. */
  newTick(): void {
    this.#opensLeft = OPENS_PER_TICK;
  }

  /** Pauses or resumes every open shard's engine. */
  pauseAll(pause: boolean): void {
    for (const runner of this.#runners.values()) {
      if (pause) runner.engine.pause();
      else runner.engine.resume();
    }
  }

  /**
   * Shards left from earlier owners hold queued URLs: opened as soon as their partition is
   * held. A dormant shard is opened again when its pages come due for a revisit.
   */
  openShardsWithWork(): void {
    const now = Date.now();
    for (const partition of this.#parts.keeper.held.keys()) {
      if (this.#runners.has(partition)) continue;
      if (this.#dormant.has(partition)) {
        if ((this.#dueAt.get(partition) ?? Number.POSITIVE_INFINITY) <= now) this.runnerFor(partition);
      } else if (existsSync(join(this.#parts.dir, shardFileName(partition)))) {
        this.runnerFor(partition);
      }
    }
  }

  /** An engine that stopped on its own: fenced (the partition is another worker's now), or failed. */
  reapEndedShards(): void {
    for (const [partition, runner] of this.#runners) {
      if (runner.outcome === undefined) continue;
      this.#runners.delete(partition);
      const refresh = runner.refreshing ? this.#refreshes.get(partition) : undefined;
      this.#refreshes.delete(partition);
      if (runner.fenced) {
        this.#events.log(`partition ${partition}: another worker owns it now (epoch fence); this worker stopped writing to its shard`);
        this.#events.fenced(partition);
      } else if (refresh !== undefined && runner.fault === undefined && (runner.outcome === 'budget' || runner.outcome === 'exhausted')) {
        // The refresh's run came to its end: the shard's crawl opens again at the next tick.
        this.#events.refreshEnded({ partition, id: refresh.id, chunk: refresh.run.maxFetches, spent: runner.refreshFetchesSpent, nothingDue: runner.outcome === 'exhausted' });
      } else {
        if (refresh !== undefined) this.#events.refreshEnded({ partition, id: refresh.id, chunk: refresh.run.maxFetches, spent: runner.refreshFetchesSpent, nothingDue: false });
        const why = runner.fault instanceof Error ? runner.fault.message : (runner.engine.storeError?.message ?? runner.engine.proxyError?.message ?? `engine ended: ${runner.outcome}`);
        this.#events.report(`partition ${partition}: ended`, `partition ${partition}: ${why}`);
        this.#retryAt.set(partition, Date.now() + FAILED_RETRY_MS);
      }
      this.closeInBackground(runner, false);
    }
  }

  /** An open shard, or a dormant one opened again (labels and links wake it). */
  openOrWake(partition: number): ShardRunner | undefined {
    return this.#dormant.has(partition) ? this.runnerFor(partition) : this.#runners.get(partition);
  }

  /**
   * Runs a chunk of a cluster's refresh on a partition's shard in place of its crawl: an open
   * crawl is closed first, and the refresh opens at a later tick (a dormant shard included).
   */
  refresh(partition: number, id: string, run: RefreshRun): void {
    this.#refreshes.set(partition, { id, run });
    this.#dormant.delete(partition);
    this.#dueAt.delete(partition);
    const open = this.#runners.get(partition);
    if (open === undefined || open.refreshing) return;
    this.#runners.delete(partition);
    this.#idleSince.delete(partition);
    this.closeInBackground(open, false);
  }

  /** Whether the partition's shard runs, or is about to run, a refresh. */
  refreshing(partition: number): boolean {
    return this.#refreshes.has(partition);
  }

  /** A partition's shard, opened now if the lease allows and its hosts' quiet time is over. */
  runnerFor(partition: number): ShardRunner | undefined {
    const open = this.#runners.get(partition);
    if (open !== undefined) return open;
    const { keeper, definition } = this.#parts;
    const lease = keeper.held.get(partition);
    const now = Date.now();
    if (lease === undefined || lease.quietUntil > now || (this.#retryAt.get(partition) ?? 0) > now || this.#opensLeft <= 0 || this.#closing.has(partition)) return undefined;
    this.#opensLeft--;
    const refresh = this.#refreshes.get(partition);
    try {
      const runner = new ShardRunner(partition, lease.epoch, {
        dir: this.#parts.dir,
        settings: definition.settings,
        partitions: this.#parts.partitions,
        parser: this.#parts.parser,
        budget: this.#parts.budget,
        worker: this.#parts.worker,
        paused: this.#events.paused(),
        template: this.#parts.template,
        cookies: definition.cookies,
        leaseFresh: () => keeper.fresh(),
        requests: this.#parts.requests,
        linkModel: this.#parts.linkModel,
        rendering: this.#parts.rendering,
        ...(refresh === undefined ? {} : { refresh: refresh.run }),
      });
      runner.engine.on('page', () => this.#pagesStored++);
      this.#shardTime.opened++;
      this.#shardTime.openMs += runner.openMs;
      this.#runners.set(partition, runner);
      this.#dormant.delete(partition);
      this.#dueAt.delete(partition);
      this.#retryAt.delete(partition);
      return runner;
    } catch (err) {
      if (isFenced(err)) {
        // A later owner has written to the shard: this lease is stale, whatever Redis said a moment ago.
        this.#events.log(`partition ${partition}: another worker owns it now (epoch fence); left to it`);
        this.#events.fenced(partition);
        return undefined;
      }
      if (err instanceof ShardLockedError) {
        // Tried again on a later tick, never waited for on this thread: the holder may be stopped for good.
        this.#events.report(`partition ${partition}: locked`, `${err.message}; tried again every second`);
        this.#retryAt.set(partition, now + LOCKED_RETRY_MS);
        return undefined;
      }
      const message = err instanceof Error ? err.message : String(err);
      this.#events.report(`partition ${partition}: opening`, `partition ${partition}: its shard could not be opened: ${message}`);
      this.#retryAt.set(partition, now + FAILED_RETRY_MS);
      return undefined;
    }
  }

  /** Shards idle past the dormant time go to sleep. Returns whether every open shard is idle. */
  tendIdleShards(): boolean {
    const now = Date.now();
    let idle = true;
    for (const [partition, runner] of this.#runners) {
      if (!runner.idle) {
        idle = false;
        this.#idleSince.delete(partition);
        continue;
      }
      const since = this.#idleSince.get(partition) ?? now;
      this.#idleSince.set(partition, since);
      if (now - since >= this.#dormantAfterMs && runner.outcome === undefined) this.#putToSleep(partition, runner, now);
    }
    return idle;
  }

  /**
   * Closes an idle shard until links come for it or, in a crawl that revisits, its first page
   * comes due. A page already due when its shard goes to sleep is one its engine did not
   * revisit (its revisit failed, or the rules refuse it now): that shard wakes a revisit
   * period later rather than at once, so that it does not open and sleep in a loop.
   */
  #putToSleep(partition: number, runner: ShardRunner, now: number): void {
    const afterMs = this.#revisitAfterMs;
    const due = afterMs === undefined ? undefined : runner.nextRevisitAt(afterMs);
    if (afterMs !== undefined && due !== undefined) this.#dueAt.set(partition, due > now ? due : now + afterMs);
    this.#runners.delete(partition);
    this.#idleSince.delete(partition);
    this.#dormant.add(partition);
    this.closeInBackground(runner, false);
  }

  /** A partition no longer this worker's: its shard's bookkeeping goes (an open shard is closed by the caller). */
  forget(partition: number): void {
    this.#dormant.delete(partition);
    this.#dueAt.delete(partition);
    this.#refreshes.delete(partition);
    this.#idleSince.delete(partition);
    this.#retryAt.delete(partition);
  }

  /** Takes a partition's open shard out of the pool, to be closed; a refresh it ran is left to the partition's next owner. */
  take(partition: number): ShardRunner | undefined {
    const runner = this.#runners.get(partition);
    this.#runners.delete(partition);
    this.#refreshes.delete(partition);
    return runner;
  }

  /**
   * How long the next owner of a partition leaves its hosts alone: until the last of them may
   * be asked (a Crawl-delay, a Retry-After, k × a slow response), and at least the delay, with
   * a little to spare for two processes' clocks.
   */
  handOverQuietMs(runner: ShardRunner | undefined, delayMs: number): number {
    const now = Date.now();
    return Math.max(delayMs, (runner?.engine.politeUntil() ?? 0) - now) + HANDOVER_MARGIN_MS;
  }

  closeInBackground(runner: ShardRunner, abort: boolean): void {
    this.close(runner, abort).catch((err: unknown) => this.#events.reportNow(`partition ${runner.partition}: closing its shard: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** Closes a shard (ShardRunner.close), its outbox sent first, and counts the time its connection took to close. */
  async close(runner: ShardRunner, abort: boolean): Promise<void> {
    this.#closing.add(runner.partition);
    try {
      await runner.close(this.#events.send, abort);
    } finally {
      this.#closing.delete(runner.partition);
    }
    this.#shardTime.closeMs += runner.closeMs;
  }

  /** Closes every open shard, one after the other, as the worker leaves; returns those that closed. */
  async closeAll(abort: boolean): Promise<Map<number, ShardRunner>> {
    const closed = new Map<number, ShardRunner>();
    for (const [partition, runner] of this.#runners) {
      try {
        await this.close(runner, abort);
        closed.set(partition, runner);
      } catch (err) {
        this.#events.log(`partition ${partition}: closing its shard: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    this.#runners.clear();
    return closed;
  }
}
