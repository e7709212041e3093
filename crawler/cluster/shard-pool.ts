import { existsSync } from 'node:fs';
import { revisitAfterMsOf, type RefreshRun } from '../engine/run-policy.ts';
import type { RefreshEnd } from './refresh-work.ts';
import type { WorkerRequests } from './worker-requests.ts';
import type { OnlineLogistic } from '../ordering/focused/online-model.ts';
import type { SharedRendering } from '../render/shared-rendering.ts';
import { join } from 'node:path';
import type { ResponseReader } from '../parse/response-reader.ts';
import { backgroundIdf } from '../relevance/background-idf.ts';
import { shardFileName } from '../store/shard-names.ts';
import type { ClusterDefinition } from './cluster-definition.ts';
import { HANDOVER_MARGIN_MS, type LeaseKeeper } from './lease-keeper.ts';
import type { LinkBatch, SentLink } from './link-streams.ts';
import { admitToDormantShard } from './dormant-intake.ts';
import type { PartitionMap } from './partition.ts';
import { isFenced } from './shard-fence.ts';
import { ShardLockedError } from './shard-file.ts';
import { ShardRunner } from './shard-runner.ts';
import type { SharedBudget } from './shared-budget.ts';
import type { WorkerVoice } from './report-throttle.ts';

/*
 * The shards a worker has open, one per held partition with work: opened when their lease
 * and quiet time allow (a few a tick), served once their frontier is ready (the history is
 * replayed in slices beside the rest of the worker's work), put to sleep when idle, reaped
 * when their engine ends, closed with their outbox sent. Links for a sleeping shard are
 * stored in it without an engine (dormant-intake.ts); it wakes when it holds enough of them,
 * or has held them a while, and the worker has room.
 */

/**
 * Shards opened per tick at most: opening one's file (SQLite, the fence) takes a few
 * milliseconds of the one thread that also renews the leases; the rest of the open (the
 * judge reading the shard, the engine replaying its history) goes later, in slices.
 */
const OPENS_PER_TICK = 6;
/** Shards being opened (their history replayed) at once at most: the room a worker has for opens. */
const OPENING_AT_ONCE = 4;
/** A sleeping shard wakes once it holds this many new queued URLs from its intake… */
const WAKE_AT_LINKS = 1000;
/** …or once it has held any this long: a trickle of links does not open a shard each time. */
const WAKE_AFTER_MS = 20_000;
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

/** Shards a worker opened, and the CPU milliseconds it spent opening and closing them; links stored in sleeping shards apart. */
export interface ShardTime {
  opened: number;
  openMs: number;
  closeMs: number;
  /** Intakes of links into sleeping shards (no engine), and their CPU milliseconds. */
  intakes?: number;
  intakeMs?: number;
}

/** Where a partition's incoming links go: its open shard, or a sleeping shard's intake. Returns how many were left out. */
export interface LinkSink {
  admit(batches: readonly LinkBatch[]): number;
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
  /** When shards sleep and wake, in milliseconds; by default DORMANT_AFTER_MS and WAKE_AFTER_MS (`worker --dormant-after`, and tests, shorten them). */
  sleep?: { afterMs?: number; wakeAfterMs?: number };
  /** The worker's request slots, shared by its shards. */
  requests: WorkerRequests;
  /** The focused ordering's link model shared by the worker's shards (none for other strategies). */
  linkModel?: OnlineLogistic | undefined;
  /** The worker's one browser, shared by its shards. */
  rendering?: SharedRendering;
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
  /** The shards served: open, their frontier ready. */
  readonly #runners = new Map<number, ShardRunner>();
  /** Shards opened whose frontier is not ready yet: no links, labels or status until it is. */
  readonly #opening = new Map<number, ShardRunner>();
  /** Partitions whose shard failed to open or whose engine ended on an error: retried after a pause. */
  readonly #retryAt = new Map<number, number>();
  /** Partitions whose shard was closed for idleness: opened again when links come for them, or their pages come due. */
  readonly #dormant = new Set<number>();
  /** When each dormant shard's first stored page comes due for a revisit (a crawl with settings.revisitAfter): it is opened then. */
  readonly #dueAt = new Map<number, number>();
  /** How long after its last check a stored page is revisited; undefined: never. */
  readonly #revisitAfterMs: number | undefined;
  /** The refresh each partition's shard runs, or is to run, in place of its crawl (a cluster's refresh), with its request's id. */
  readonly #refreshes = new Map<number, { id: string; run: RefreshRun }>();
  /** Partitions whose shard is being closed: not opened (nor its intake written) before it is, so that one file has one writer. */
  readonly #closing = new Set<number>();
  /** Sleeping shards that hold URLs their intake stored: since when, and how many. */
  readonly #holding = new Map<number, { since: number; queued: number }>();
  /** Since when each open shard has been idle. */
  readonly #idleSince = new Map<number, number>();
  readonly #shardTime: Required<ShardTime> = { opened: 0, openMs: 0, closeMs: 0, intakes: 0, intakeMs: 0 };
  #opensLeft = 0;
  #pagesStored = 0;

  constructor(parts: ShardPoolParts, events: ShardPoolEvents) {
    this.#parts = parts;
    this.#events = events;
    this.#revisitAfterMs = revisitAfterMsOf(parts.definition.settings);
    // Every shard's judge shares the background idf, read once per process: read now, before a lease is held, not by the first open on the thread that renews them.
    backgroundIdf();
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

  /** No shard being opened, and no sleeping shard holding URLs its intake stored: nothing this worker has yet to crawl outside its open shards. */
  get settled(): boolean {
    return this.#opening.size === 0 && this.#holding.size === 0;
  }

  /** Pauses or resumes every open shard's engine (those being opened too). */
  pauseAll(pause: boolean): void {
    for (const runner of [...this.#runners.values(), ...this.#opening.values()]) runner.pause(pause);
  }

  /**
   * Shards left from earlier owners hold queued URLs: opened as soon as their partition is
   * held. Sleeping shards whose intake stored enough, or long enough ago, wake, and those
   * whose pages come due for a revisit.
   */
  openShardsWithWork(): void {
    const now = Date.now();
    for (const partition of this.#parts.keeper.held.keys()) {
      if (this.#isOpen(partition)) continue;
      if (this.#dormant.has(partition)) {
        if ((this.#dueAt.get(partition) ?? Number.POSITIVE_INFINITY) <= now) this.#open(partition);
      } else if (existsSync(join(this.#parts.dir, shardFileName(partition)))) {
        this.runnerFor(partition);
      }
    }
    for (const [partition, holding] of this.#holding) {
      if (holding.queued >= WAKE_AT_LINKS || now - holding.since >= (this.#parts.sleep?.wakeAfterMs ?? WAKE_AFTER_MS)) this.#open(partition);
    }
  }

  /** An engine that stopped on its own (open or being opened): fenced (the partition is another worker's now), or failed. */
  reapEndedShards(): void {
    for (const [partition, runner] of [...this.#runners, ...this.#opening]) {
      if (runner.outcome === undefined) continue;
      this.#runners.delete(partition);
      this.#opening.delete(partition);
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
        this.#events.report(`partition ${partition}: ended`, `partition ${partition}: ${runner.endedBecause}`);
        this.#retryAt.set(partition, Date.now() + FAILED_RETRY_MS);
      }
      this.closeInBackground(runner, false);
    }
  }

  /** An open shard, or a dormant one opened again (a label wakes it; undefined until it is ready). */
  openOrWake(partition: number): ShardRunner | undefined {
    return this.#dormant.has(partition) ? this.#open(partition) : this.#runners.get(partition);
  }

  /**
   * Where a partition's incoming links go: its shard once ready; a sleeping shard's intake,
   * which stores them without an engine; else undefined (being opened, quiet time, no room
   * this tick): the links stay pending in the stream and are read again.
   */
  linkSinkFor(partition: number): LinkSink | undefined {
    if (!this.#dormant.has(partition)) return this.runnerFor(partition);
    const lease = this.#parts.keeper.held.get(partition);
    if (lease === undefined || this.#closing.has(partition) || (this.#retryAt.get(partition) ?? 0) > Date.now()) return undefined;
    return { admit: (batches) => this.#intake(partition, lease.epoch, batches) };
  }

  /** Stores links in a sleeping shard; the shard remembers it holds work, to wake for it. */
  #intake(partition: number, epoch: number, batches: readonly LinkBatch[]): number {
    const { dir, definition, partitions } = this.#parts;
    let outcome;
    try {
      outcome = admitToDormantShard(partition, epoch, { dir, settings: definition.settings, partitions }, batches);
    } catch (err) {
      if (isFenced(err)) {
        this.#events.log(`partition ${partition}: another worker owns it now (epoch fence); left to it`);
        this.#events.fenced(partition);
      } else if (err instanceof ShardLockedError) {
        this.#retryAt.set(partition, Date.now() + LOCKED_RETRY_MS);
      }
      throw err;
    }
    this.#shardTime.intakes++;
    this.#shardTime.intakeMs += outcome.cpuMs;
    if (outcome.queued > 0) {
      const holding = this.#holding.get(partition);
      this.#holding.set(partition, { since: holding?.since ?? Date.now(), queued: (holding?.queued ?? 0) + outcome.queued });
    }
    return outcome.refused;
  }

  /**
   * Runs a chunk of a cluster's refresh on a partition's shard in place of its crawl: an open
   * crawl is closed first, and the refresh opens at a later tick (a dormant shard included).
   */
  refresh(partition: number, id: string, run: RefreshRun): void {
    this.#refreshes.set(partition, { id, run });
    this.#dormant.delete(partition);
    this.#dueAt.delete(partition);
    const open = this.#runners.get(partition) ?? this.#opening.get(partition);
    if (open === undefined || open.refreshing) return;
    this.#runners.delete(partition);
    this.#opening.delete(partition);
    this.#idleSince.delete(partition);
    this.closeInBackground(open, false);
  }

  /** Whether the partition's shard runs, or is about to run, a refresh. */
  refreshing(partition: number): boolean {
    return this.#refreshes.has(partition);
  }

  /** A partition's shard once ready, opened now if it is not open (undefined until it is ready). */
  runnerFor(partition: number): ShardRunner | undefined {
    return this.#runners.get(partition) ?? this.#open(partition);
  }

  #isOpen(partition: number): boolean {
    return this.#runners.has(partition) || this.#opening.has(partition);
  }

  /**
   * Opens a partition's shard if the lease allows, its hosts' quiet time is over and the
   * worker has room; it is served once its frontier is ready. Returns it if it is ready.
   */
  #open(partition: number): ShardRunner | undefined {
    if (this.#isOpen(partition)) return this.#runners.get(partition);
    const { keeper, definition } = this.#parts;
    const lease = keeper.held.get(partition);
    const now = Date.now();
    if (lease === undefined || lease.quietUntil > now || (this.#retryAt.get(partition) ?? 0) > now || this.#opensLeft <= 0 || this.#opening.size >= OPENING_AT_ONCE || this.#closing.has(partition)) return undefined;
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
        ...(this.#parts.rendering === undefined ? {} : { rendering: this.#parts.rendering }),
        ...(refresh === undefined ? {} : { refresh: refresh.run }),
      });
      this.#opening.set(partition, runner);
      this.#dormant.delete(partition);
      this.#holding.delete(partition);
      this.#dueAt.delete(partition);
      this.#retryAt.delete(partition);
      void runner.opened.then((ready) => this.#served(partition, runner, ready));
      return undefined;
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

  /** A shard's frontier is ready: it is served from now on, and its open counted (one whose run ended first is reaped). */
  #served(partition: number, runner: ShardRunner, ready: boolean): void {
    if (!ready || this.#opening.get(partition) !== runner) return;
    this.#opening.delete(partition);
    this.#runners.set(partition, runner);
    runner.engine.on('page', () => this.#pagesStored++);
    this.#shardTime.opened++;
    this.#shardTime.openMs += runner.openMs;
  }

  /** Shards idle past the dormant time go to sleep. Returns whether every open shard is idle. */
  tendIdleShards(): boolean {
    const now = Date.now();
    let idle = this.settled;
    for (const [partition, runner] of this.#runners) {
      if (!runner.idle) {
        idle = false;
        this.#idleSince.delete(partition);
        continue;
      }
      const since = this.#idleSince.get(partition) ?? now;
      this.#idleSince.set(partition, since);
      if (now - since >= (this.#parts.sleep?.afterMs ?? DORMANT_AFTER_MS) && runner.outcome === undefined) this.#putToSleep(partition, runner, now);
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
    // Its intake waits for the engine's last writes and the connection's close: one writer to the shard at a time.
    this.#closing.add(partition);
    void this.close(runner, false)
      .catch((err: unknown) => this.#events.reportNow(`partition ${partition}: closing its shard: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => this.#closing.delete(partition));
  }

  /** A partition no longer this worker's: its shard's bookkeeping goes (an open shard is closed by the caller). */
  forget(partition: number): void {
    this.#dormant.delete(partition);
    this.#holding.delete(partition);
    this.#dueAt.delete(partition);
    this.#refreshes.delete(partition);
    this.#idleSince.delete(partition);
    this.#retryAt.delete(partition);
  }

  /** Takes a partition's open shard (or one being opened) out of the pool, to be closed; a refresh it ran is left to the partition's next owner. */
  take(partition: number): ShardRunner | undefined {
    const runner = this.#runners.get(partition) ?? this.#opening.get(partition);
    this.#refreshes.delete(partition);
    this.#runners.delete(partition);
    this.#opening.delete(partition);
    return runner;
  }

  /**
   * How long the next owner of a partition leaves its hosts alone: until the last of them may
   * be asked (a Crawl-delay, a Retry-After, k × a slow response), and at least the delay, with
   * a little to spare for two processes' clocks.
   */
  handOverQuietMs(runner: ShardRunner | undefined, delayMs: number): number {
    const now = Date.now();
    return Math.max(delayMs, (runner?.politeUntil() ?? 0) - now) + HANDOVER_MARGIN_MS;
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

  /** Closes every open shard (and those being opened), one after the other, as the worker leaves; returns those that closed. */
  async closeAll(abort: boolean): Promise<Map<number, ShardRunner>> {
    const closed = new Map<number, ShardRunner>();
    for (const [partition, runner] of [...this.#runners, ...this.#opening]) {
      try {
        await this.close(runner, abort);
        closed.set(partition, runner);
      } catch (err) {
        this.#events.log(`partition ${partition}: closing its shard: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    this.#runners.clear();
    this.#opening.clear();
    return closed;
  }
}
