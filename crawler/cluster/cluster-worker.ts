import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ResponseReader } from '../parse/response-reader.ts';
import { ClusterKeys } from './cluster-keys.ts';
import { changedLabels, type ClusterLabel } from './cluster-labels.ts';
import { clusterState, loadCluster, type ClusterDefinition, type ClusterState } from './cluster-definition.ts';
import { LinkStreams, linkLimitsOf, type LinkBatch, type SentLink } from './link-streams.ts';
import { PartitionLeases, type Lease } from './partition-leases.ts';
import { PartitionMap, shardFileName } from './partition.ts';
import { describeDamage, foundBy, isKeyDamage, type KeyDamage } from './redis-damage.ts';
import { ReportThrottle } from './report-throttle.ts';
import { partitionsFor, WorkerRegistry, type WorkerStatus } from './worker-registry.ts';
import { SharedBudget } from './shared-budget.ts';
import { SharedJudging } from './shared-judging.ts';
import { isFenced } from './shard-fence.ts';
import { ShardRunner } from './shard-runner.ts';
import { shardTemplate } from './shard-template.ts';

/*
 * A cluster worker: leases its share of the partitions, runs a shard (today's engine) for
 * each partition that has work, moves links between partitions through Redis, and obeys the
 * crawl's state. Everything is driven by one loop of short ticks, so the order of what it
 * does with Redis is easy to follow; a watchdog beside it stops dispatching when the leases
 * could not be renewed in time, even while that loop waits on a Redis that went away.
 */

const TICK_MS = 100;
/**
 * Shards opened per tick at most: opening one (SQLite, the engine, its history) takes tens of
 * milliseconds of the one thread that also renews the leases.
 */
const OPENS_PER_TICK = 6;
const CONTROL_EVERY_MS = 500;
/** How long a worker that joins waits before it takes partitions, so that workers started together share them from the start. */
const JOIN_SETTLE_MS = 500;
const STATUS_EVERY_MS = 1000;
/** Batches read per stream per tick. */
const READ_COUNT = 20;
/** Added to a partition's quiet time when it is handed on: the workers' clocks are not one clock. */
const HANDOVER_MARGIN_MS = 10;
/**
 * A shard with nothing to do for this long is closed until links come for it: a worker holds
 * a share of 256 partitions, and an open shard costs megabytes (its page cache, its engine).
 */
const DORMANT_AFTER_MS = 120_000;
/** Past this many entries waiting in a partition's stream, shards sending to it pause. */
export const MAX_STREAM_BACKLOG = 5_000;
/** With no renewal for this share of the lease time, the worker stops dispatching: the lease may be about to pass on. */
const RENEWAL_DEADLINE_SHARE = 0.6;
/** A problem that comes back (a damaged key, a refused command) is said at most this often. */
const REPORT_EVERY_MS = 60_000;
/** A partition held up by a damaged key is left alone this long before the worker tries it again. */
const SET_ASIDE_MS = 30_000;

export interface WorkerOptions {
  redis: Redis;
  name: string;
  dir: string;
  /**
   * Where this worker's shards live, as other workers must tell it apart: by default its
   * machine and data directory. Workers that share a volume give the same name.
   */
  home?: string;
  /** A line of news for the user (joined, took partitions, Redis away…). */
  log: (line: string) => void;
  /** Parse workers (default: one per spare core). */
  parseWorkers?: number;
}

export type WorkerEnd = 'finished' | 'stopped' | 'left';

/** Shards a worker opened, and the milliseconds it spent opening and closing them. */
export interface ShardTime {
  opened: number;
  openMs: number;
  closeMs: number;
}

interface HeldLease extends Lease {
  /** Partitions taken over from an owner that released them wait this long before asking their hosts. */
  quietUntil: number;
  /** Pending batches were claimed and must be read again before new ones. */
  claimed: boolean;
  /** Its shard lives at this worker's home: only workers of this home may hold it, so it is never given up to balance. */
  homedHere: boolean;
  /** Its stream was found damaged: not read before this time, then made ready again (0: it is sound). */
  streamRetryAt: number;
}

export class ClusterWorker {
  readonly id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #dir: string;
  readonly #home: string;
  readonly #log: (line: string) => void;
  readonly #parseWorkers: number | undefined;
  readonly #partitions = new PartitionMap();
  readonly #held = new Map<number, HeldLease>();
  readonly #runners = new Map<number, ShardRunner>();
  /** Partitions whose shard failed to open or whose engine ended on an error: retried after a pause. */
  readonly #retryAt = new Map<number, number>();
  /** Partitions whose shard was closed for idleness: opened again when links come for them, not before. */
  readonly #dormant = new Set<number>();
  /** Since when each open shard has been idle. */
  readonly #idleSince = new Map<number, number>();
  /** Partitions held up by a damaged lease, epoch or home key: not taken before the time given. */
  readonly #setAside = new Map<number, number>();
  readonly #throttle = new ReportThrottle(REPORT_EVERY_MS);
  #definition: ClusterDefinition | undefined;
  #leases: PartitionLeases | undefined;
  /** Made when the definition is read: its links are checked against the crawl's bounds. */
  #streams!: LinkStreams;
  readonly #judging: SharedJudging;
  #registry: WorkerRegistry | undefined;
  #budget: SharedBudget | undefined;
  #parser: ResponseReader | undefined;
  #template: string | undefined;
  #state: ClusterState = 'running';
  /** Live workers as of the last heartbeat. */
  #live: string[] = [];
  /** The live workers as of the last balance. */
  #balancedFor = '';
  /** The main loop has ended: the renewal loop ends too. */
  #stopped = false;
  /** Ends the renewal loop's wait between renewals. */
  #wakeRenewal: (() => void) | undefined;
  #lastRenewal = Date.now();
  #renewalLate = false;
  #leaving = false;
  #abortOnLeave = false;
  #pagesStored = 0;
  readonly #shardTime: ShardTime = { opened: 0, openMs: 0, closeMs: 0 };
  #pagesReported = 0;
  /** The workers' statuses at the last look for the crawl's end. */
  #lastLook = new Map<string, WorkerStatus>();
  #statusSeq = 0;
  /** Links this worker admitted and sent. */
  #linksMoved = 0;
  /** Links read from the streams and left out: damaged entries, links out of the crawl's bounds. */
  #linksDropped = 0;
  /** When each part of the loop is next due (epoch ms). */
  readonly #due = { control: 0, balance: 0, reclaim: 0, status: 0 };
  #errors = 0;
  #lastError: string | undefined;
  /** Streams that had nothing to read on the last tick: the worker's inbox is empty. */
  #inboxEmpty = false;
  #backpressure = false;
  #opensLeft = 0;
  /** Shutting down: leases released from now on are not lost ones. */
  #leavingNow = false;
  #labelsVersion: string | null = null;
  /** The user's labels as last read, and those applied in this worker's shards. */
  #labels = new Map<string, ClusterLabel>();
  readonly #labelled = new Map<string, ClusterLabel>();
  #startedAt = Date.now();

  constructor(options: WorkerOptions) {
    this.#redis = options.redis;
    this.#keys = new ClusterKeys(options.name);
    this.#dir = options.dir;
    this.#home = options.home ?? `${hostname()}:${resolve(options.dir)}`;
    this.#log = options.log;
    this.#parseWorkers = options.parseWorkers;
    this.#judging = new SharedJudging(this.#redis, this.#keys, this.id, (damage) => this.#damaged(damage));
  }

  /** Pages this worker stored in its shards since it started. */
  get pagesStored(): number {
    return this.#pagesStored;
  }

  /** Shards opened so far, and the time spent opening and closing them: a cost per partition, not per page. */
  get shardTime(): Readonly<ShardTime> {
    return this.#shardTime;
  }

  /** Leave the crawl: shards close (requests in flight are stored, or with `abort` cancelled), leases are given up. */
  leave(abort = false): void {
    this.#leaving = true;
    this.#abortOnLeave ||= abort;
  }

  async run(): Promise<WorkerEnd> {
    const definition = await loadCluster(this.#redis, this.#keys.name);
    this.#definition = definition;
    mkdirSync(this.#dir, { recursive: true });
    const onDamage = (damage: KeyDamage): void => this.#damaged(damage);
    this.#streams = new LinkStreams(this.#redis, this.#keys, { limits: linkLimitsOf(definition.settings), onDamage });
    this.#leases = new PartitionLeases(this.#redis, this.#keys, this.id, definition.leaseMs, onDamage);
    this.#registry = new WorkerRegistry(this.#redis, this.#keys, this.id, definition.leaseMs);
    this.#budget = new SharedBudget(this.#redis, this.#keys, definition.settings.maxPages, { onDamage });
    this.#parser = new ResponseReader(this.#parseWorkers === undefined ? {} : { parseWorkers: this.#parseWorkers });
    this.#template = shardTemplate();
    this.#log(`worker ${this.id} joined cluster "${definition.name}" (${definition.partitions} partitions, leases of ${definition.leaseMs} ms)`);
    const watchdog = setInterval(() => this.#watchRenewal(), Math.max(50, definition.leaseMs / 20));
    this.#due.reclaim = Date.now() + definition.leaseMs;
    await this.#renew();
    // Workers started together see each other before any takes partitions: none takes them all only to hand half on.
    this.#due.balance = Date.now() + JOIN_SETTLE_MS;
    this.#balancedFor = this.#live.join(' ');
    const renewal = this.#renewalLoop();
    let end: WorkerEnd | undefined;
    try {
      while (end === undefined) {
        try {
          end = await this.#tick(Date.now());
        } catch (err) {
          // Redis refused a command or a shard failed: reported, and the next tick tries again.
          const message = err instanceof Error ? err.message : String(err);
          this.#reportLimited(`tick: ${message}`, `tick: ${message}`);
        }
        if (end === undefined) await sleep(TICK_MS);
      }
    } finally {
      clearInterval(watchdog);
      await this.#shutDown();
      this.#stopped = true;
      this.#wakeRenewal?.();
      await renewal;
    }
    return end;
  }

  /** One turn of the loop: the crawl's state, leases, links in and out, status. Returns how the worker ends, if it does. */
  async #tick(now: number): Promise<WorkerEnd | undefined> {
    const due = this.#due;
    if (now >= due.control) {
      due.control = now + CONTROL_EVERY_MS;
      this.#state = await this.#readState();
      if (this.#state === 'finished' || this.#state === 'stopped') return this.#state;
      this.#applyState();
      await this.#readLabels();
    }
    if (this.#leaving) return 'left';
    const leaseMs = (this.#definition as ClusterDefinition).leaseMs;
    if (now >= due.balance || this.#live.join(' ') !== this.#balancedFor) {
      // Twice a lease (a dead worker's partitions wait a lease for its leases to expire anyway),
      // at once when workers join or leave, and every control turn while this worker holds less
      // than its share: partitions given up by others are taken within half a second.
      const share = await this.#balance();
      this.#balancedFor = this.#live.join(' ');
      due.balance = now + (this.#held.size < share ? CONTROL_EVERY_MS : leaseMs / 2);
    }
    if (now >= due.reclaim) {
      due.reclaim = now + leaseMs;
      await this.#reclaimStale();
    }
    this.#opensLeft = OPENS_PER_TICK;
    this.#reapEndedShards();
    this.#openShardsWithWork();
    await this.#intake();
    await this.#sendOutboxes();
    this.#applyLabels();
    if (now >= due.status) {
      due.status = now + STATUS_EVERY_MS;
      this.#tendIdleShards();
      await this.#publishStatus();
      if (await this.#crawlFinished()) {
        await this.#redis.set(this.#keys.state, 'finished');
        this.#log(`cluster "${this.#keys.name}" finished its crawl`);
      }
    }
    return undefined;
  }

  /** The crawl's state; while its key is damaged, the state as last read (and the damage said). */
  async #readState(): Promise<ClusterState> {
    try {
      return await clusterState(this.#redis, this.#keys);
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#damaged({
        key: this.#keys.state,
        expected: 'the crawl\'s state: running, paused, stopped or finished',
        found: foundBy(err),
        meanwhile: `this worker goes on as ${this.#state}, and forager cluster pause, resume and stop cannot reach it`,
        repair: `redis-cli SET ${this.#keys.state} running (or paused, stopped)`,
      });
      return this.#state;
    }
  }

  /** The user's labels, when they changed; entries that are not labels are left out and said. */
  async #readLabels(): Promise<void> {
    const changed = await changedLabels(this.#redis, this.#keys, this.#labelsVersion, (damage) => this.#damaged(damage));
    if (changed === undefined) return;
    this.#labelsVersion = changed.version;
    this.#labels = changed.labels;
    if (changed.dropped > 0) {
      this.#reportLimited('labels', `${changed.dropped} label(s) in ${this.#keys.labels} left out, such as ${changed.problem ?? 'one'}; label those pages again with forager cluster label`);
    }
  }

  /**
   * A key of the cluster is damaged: said at a bounded rate (and to the cluster's errors
   * list). The partition it holds up is set aside for a while (its stream is not read, or it
   * is not taken), so that the others go on.
   */
  #damaged(damage: KeyDamage): void {
    const partition = damage.partition;
    if (partition !== undefined) {
      const until = Date.now() + SET_ASIDE_MS;
      const lease = this.#held.get(partition);
      if (damage.key !== this.#keys.links(partition)) this.#setAside.set(partition, until);
      else if (lease !== undefined) lease.streamRetryAt = until;
    }
    this.#reportLimited(`damaged ${damage.key}`, describeDamage(damage, this.#keys.name));
  }

  /** Paused or running, as the crawl's state says; a worker whose leases are late stays paused. */
  #applyState(): void {
    const pause = this.#state !== 'running' || this.#renewalLate || this.#backpressure;
    for (const runner of this.#runners.values()) {
      if (pause) runner.engine.pause();
      else runner.engine.resume();
    }
  }

  #watchRenewal(): void {
    if (this.#definition === undefined) return;
    const late = !this.#leasesFresh();
    if (late === this.#renewalLate) return;
    this.#renewalLate = late;
    if (late) this.#log(`leases not renewed for ${Math.round(Date.now() - this.#lastRenewal)} ms: dispatching stops until Redis answers`);
    this.#applyState();
  }

  /** Says it is alive, renews its leases, and takes or gives up partitions towards its fair share. */
  /**
   * Beats and renews the leases on a loop of its own, so that slow work on the main loop
   * (shards closing, a busy machine) never makes a lease lapse.
   */
  async #renewalLoop(): Promise<void> {
    const leaseMs = (this.#definition as ClusterDefinition).leaseMs;
    while (!this.#stopped) {
      try {
        await this.#renew();
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.#reportLimited(`renewing leases: ${message}`, `renewing leases: ${message}`);
      }
      // Woken at once when the worker stops: with a long lease time the wait would delay its exit.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, leaseMs / 5);
        this.#wakeRenewal = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wakeRenewal = undefined;
    }
  }

  /** Says it is alive and renews its leases; a lease found lost closes its shard. */
  async #renew(): Promise<void> {
    const started = Date.now();
    this.#live = await (this.#registry as WorkerRegistry).beat();
    const lost = await (this.#leases as PartitionLeases).renew([...this.#held.values()]);
    this.#lastRenewal = started;
    if (this.#renewalLate) this.#watchRenewal();
    for (const lease of lost) {
      // Renewed meanwhile by a later acquisition of the same partition, or given up as the worker leaves: not lost.
      if (this.#leavingNow || this.#held.get(lease.partition)?.epoch !== lease.epoch) continue;
      this.#log(`lost the lease of partition ${lease.partition} (expired or taken over); its shard closes`);
      this.#forget(lease.partition);
      const runner = this.#runners.get(lease.partition);
      this.#runners.delete(lease.partition);
      if (runner !== undefined) this.#closeInBackground(runner, true);
    }
  }

  /**
   * Takes or gives up partitions towards this worker's even share of them. A partition whose
   * shard lives at this worker's home is taken whenever it is free and never given up: no
   * worker of another home may have it, so it would wait for nobody. Returns the share.
   */
  async #balance(): Promise<number> {
    const leases = this.#leases as PartitionLeases;
    const definition = this.#definition as ClusterDefinition;
    // The live workers as of now, not of the last renewal (up to a fifth of a lease ago).
    this.#live = await (this.#registry as WorkerRegistry).beat();
    const share = partitionsFor(this.id, this.#live, definition.partitions);
    const free = this.#withoutSetAside(await leases.free(definition.partitions, this.#home));
    // Whether another live worker shares this home matters only when there are partitions homed here to take, or some to give up.
    const peersAtHome = (free.homedHere.length > 0 || this.#held.size > share) && (await this.#peersAtHome());
    // Alone at its home, a worker takes every free partition homed here, whatever its share: nobody else may.
    const homedHere = peersAtHome ? free.homedHere.slice(0, Math.max(0, share - this.#held.size)) : free.homedHere;
    const wanted = Math.max(0, share - this.#held.size - homedHere.length);
    const start = free.homeless.length === 0 ? 0 : Number.parseInt(this.id.slice(-6), 16) % free.homeless.length;
    // Workers joining together start at places of their own, so that they rarely ask for the same partitions.
    const homeless = [...free.homeless.slice(start), ...free.homeless.slice(0, start)].slice(0, wanted);
    if (homedHere.length + homeless.length > 0) await this.#take([...homedHere, ...homeless], new Set(free.homedHere));
    else if (this.#held.size > share) await this.#giveUp(this.#held.size - share, peersAtHome);
    return share;
  }

  /** The free partitions but those held up by a damaged key (until their time is up). */
  #withoutSetAside(free: { homedHere: number[]; homeless: number[] }): { homedHere: number[]; homeless: number[] } {
    const now = Date.now();
    for (const [partition, until] of this.#setAside) if (until <= now) this.#setAside.delete(partition);
    const takeable = (p: number): boolean => !this.#setAside.has(p);
    return { homedHere: free.homedHere.filter(takeable), homeless: free.homeless.filter(takeable) };
  }

  async #peersAtHome(): Promise<boolean> {
    const { workers } = await (this.#registry as WorkerRegistry).view();
    return workers.some((w) => w.id !== this.id && w.home === this.#home);
  }

  async #take(candidates: readonly number[], homedHere: ReadonlySet<number>): Promise<void> {
    const leases = this.#leases as PartitionLeases;
    const taken = await leases.acquire(candidates);
    if (taken.length === 0) return;
    // Held at once, so that the renewal loop renews them while their streams are set up.
    for (const lease of taken) this.#held.set(lease.partition, { ...lease, quietUntil: Number.POSITIVE_INFINITY, claimed: true, homedHere: homedHere.has(lease.partition), streamRetryAt: 0 });
    const partitions = taken.map((lease) => lease.partition);
    const quiet = await this.#streams.prepareOwnership(partitions, this.id, (p) => this.#keys.quietUntil(p));
    // A quiet time is Redis's word: no previous owner asks for longer than its politeness can last.
    const latest = Date.now() + this.#longestQuietMs();
    for (const [i, partition] of partitions.entries()) {
      const lease = this.#held.get(partition);
      // A damaged stream (null) was set aside by #damaged: the shard may crawl meanwhile, its links wait.
      if (lease !== undefined) lease.quietUntil = Math.min(quiet[i] ?? 0, latest);
    }
    this.#log(`took ${taken.length} partition(s); holds ${this.#held.size}`);
  }

  /**
   * Gives up the highest-numbered partitions: their shards close first (all at once), then
   * their leases go. With no other worker at its home, only partitions without a shard here
   * can go: the others could go to nobody.
   */
  async #giveUp(count: number, peersAtHome: boolean): Promise<void> {
    const leases = this.#leases as PartitionLeases;
    const quietMs = (this.#definition as ClusterDefinition).settings.delayMs;
    const movable = [...this.#held.values()].filter((lease) => peersAtHome || (!lease.homedHere && !existsSync(join(this.#dir, shardFileName(lease.partition)))));
    const victims = movable.sort((a, b) => b.partition - a.partition).slice(0, count);
    if (victims.length === 0) return;
    await Promise.all(
      victims.map(async (lease) => {
        const runner = this.#runners.get(lease.partition);
        this.#runners.delete(lease.partition);
        if (runner !== undefined) await this.#closeShard(runner, false);
        this.#forget(lease.partition);
        await leases.release(lease, this.#handOverQuietMs(runner, quietMs));
      }),
    );
    this.#log(`gave up ${victims.length} partition(s) to other workers; holds ${this.#held.size}`);
  }

  /** The longest a partition's hosts may have to wait after a handover: the longest wait the settings allow a host. */
  #longestQuietMs(): number {
    const s = (this.#definition as ClusterDefinition).settings;
    return Math.max(s.delayMs, s.maxCrawlDelayMs, s.maxRetryAfterMs, s.delayFactor * s.totalTimeoutMs) + HANDOVER_MARGIN_MS;
  }

  /** A partition no longer this worker's. */
  #forget(partition: number): void {
    this.#held.delete(partition);
    this.#dormant.delete(partition);
    this.#idleSince.delete(partition);
    this.#retryAt.delete(partition);
  }

  #putToSleep(partition: number, runner: ShardRunner): void {
    this.#runners.delete(partition);
    this.#idleSince.delete(partition);
    this.#dormant.add(partition);
    this.#closeInBackground(runner, false);
  }

  /**
   * How long the next owner of a partition leaves its hosts alone: until the last of them may
   * be asked (a Crawl-delay, a Retry-After, k × a slow response), and at least the delay, with
   * a little to spare for two processes' clocks.
   */
  #handOverQuietMs(runner: ShardRunner | undefined, delayMs: number): number {
    const now = Date.now();
    return Math.max(delayMs, (runner?.engine.politeUntil() ?? 0) - now) + HANDOVER_MARGIN_MS;
  }

  #closeInBackground(runner: ShardRunner, abort: boolean): void {
    this.#closeShard(runner, abort).catch((err: unknown) => this.#report(`partition ${runner.partition}: closing its shard: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** Closes a shard (ShardRunner.close), its outbox sent first, and counts the time its connection took to close. */
  async #closeShard(runner: ShardRunner, abort: boolean): Promise<void> {
    await runner.close((links) => this.#send(links), abort);
    this.#shardTime.closeMs += runner.closeMs;
  }

  /** A partition's shard, opened now if the lease allows and its hosts' quiet time is over. */
  #runnerFor(partition: number): ShardRunner | undefined {
    const open = this.#runners.get(partition);
    if (open !== undefined) return open;
    const lease = this.#held.get(partition);
    const now = Date.now();
    if (lease === undefined || lease.quietUntil > now || (this.#retryAt.get(partition) ?? 0) > now || this.#opensLeft <= 0) return undefined;
    this.#opensLeft--;
    const definition = this.#definition as ClusterDefinition;
    try {
      const runner = new ShardRunner(partition, lease.epoch, {
        dir: this.#dir,
        settings: definition.settings,
        partitions: this.#partitions,
        parser: this.#parser as ResponseReader,
        budget: this.#budget as SharedBudget,
        worker: this.id,
        paused: this.#state !== 'running' || this.#renewalLate || this.#backpressure,
        template: this.#template as string,
        cookies: definition.cookies,
        leaseFresh: () => this.#leasesFresh(),
      });
      runner.engine.on('page', () => this.#pagesStored++);
      this.#shardTime.opened++;
      this.#shardTime.openMs += runner.openMs;
      this.#runners.set(partition, runner);
      this.#dormant.delete(partition);
      this.#retryAt.delete(partition);
      return runner;
    } catch (err) {
      if (isFenced(err)) {
        // A later owner has written to the shard: this lease is stale, whatever Redis said a moment ago.
        this.#log(`partition ${partition}: another worker owns it now (epoch fence); left to it`);
        this.#forget(partition);
        return undefined;
      }
      const message = err instanceof Error ? err.message : String(err);
      this.#reportLimited(`partition ${partition}: opening`, `partition ${partition}: its shard could not be opened: ${message}`);
      this.#retryAt.set(partition, now + 5000);
      return undefined;
    }
  }

  /**
   * Before a partition's first shard is made here, this worker's home becomes the partition's;
   * a partition whose home is another (its shard is on another machine's disk) is given up.
   */
  async #claimHomes(partitions: readonly number[]): Promise<void> {
    const fresh = partitions.filter((p) => this.#held.has(p) && !this.#runners.has(p) && !existsSync(join(this.#dir, shardFileName(p))));
    const leases = this.#leases as PartitionLeases;
    const elsewhere = await leases.claimHomes(fresh, this.#home);
    for (const partition of fresh) {
      const lease = this.#held.get(partition);
      if (lease === undefined || elsewhere.includes(partition)) continue;
      if (this.#setAside.has(partition)) {
        // Its home key is damaged: where its shard lives is not known, so none is made here.
        this.#forget(partition);
        await leases.release(lease, 0);
      } else {
        lease.homedHere = true;
      }
    }
    for (const partition of elsewhere) {
      const lease = this.#held.get(partition);
      this.#forget(partition);
      if (lease !== undefined) await leases.release(lease, 0);
      this.#log(`partition ${partition} lives elsewhere (another home's disk): left to the workers there`);
    }
  }

  /** Shards left from earlier owners hold queued URLs: opened as soon as their partition is held. */
  #openShardsWithWork(): void {
    for (const partition of this.#held.keys()) {
      if (!this.#runners.has(partition) && !this.#dormant.has(partition) && existsSync(join(this.#dir, shardFileName(partition)))) this.#runnerFor(partition);
    }
  }

  /** An engine that stopped on its own: fenced (the partition is another worker's now), or failed. */
  #reapEndedShards(): void {
    for (const [partition, runner] of this.#runners) {
      if (runner.outcome === undefined) continue;
      this.#runners.delete(partition);
      if (runner.fenced) {
        this.#log(`partition ${partition}: another worker owns it now (epoch fence); this worker stopped writing to its shard`);
        this.#forget(partition);
      } else {
        const why = runner.fault instanceof Error ? runner.fault.message : (runner.engine.storeError?.message ?? runner.engine.proxyError?.message ?? `engine ended: ${runner.outcome}`);
        this.#reportLimited(`partition ${partition}: ended`, `partition ${partition}: ${why}`);
        this.#retryAt.set(partition, Date.now() + 5000);
      }
      this.#closeInBackground(runner, false);
    }
  }

  /**
   * Batches another consumer read and never acknowledged for longer than a lease (a worker
   * that lost its partitions while it was reading) are taken over by the partition's owner.
   */
  async #reclaimStale(): Promise<void> {
    const leaseMs = (this.#definition as ClusterDefinition).leaseMs;
    for (const partition of await this.#streams.claimStale([...this.#held.keys()], this.id, leaseMs)) {
      const lease = this.#held.get(partition);
      if (lease !== undefined) lease.claimed = true;
    }
  }

  /** Whether the leases were renewed recently enough that this worker still owns its partitions for sure. */
  #leasesFresh(): boolean {
    return Date.now() - this.#lastRenewal <= (this.#definition as ClusterDefinition).leaseMs * RENEWAL_DEADLINE_SHARE;
  }

  /** Labels not yet applied go to the shards of this worker's partitions that hold their pages. */
  #applyLabels(): void {
    for (const [url, label] of this.#labels) {
      if (this.#labelled.get(url) === label) continue;
      const partition = this.#partitions.of(url);
      const runner = this.#dormant.has(partition) ? this.#runnerFor(partition) : this.#runners.get(partition);
      if (runner === undefined) continue;
      try {
        if (runner.label(url, label)) this.#labelled.set(url, label);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.#reportLimited(`label of ${url}`, `label of ${url}: ${message}`);
        this.#labelled.set(url, label);
      }
    }
  }

  /** Reads the links sent to its partitions and admits them, then acknowledges them. */
  async #intake(): Promise<void> {
    // A worker that was away (paused, or Redis was) reads nothing until it knows its leases are still its own.
    if (!this.#leasesFresh()) return;
    await this.#retryDamagedStreams();
    const now = Date.now();
    const readable = [...this.#held.values()].filter((lease) => lease.quietUntil <= now && lease.streamRetryAt === 0).map((lease) => lease.partition);
    const claimed = readable.filter((p) => this.#held.get(p)?.claimed === true);
    let read = 0;
    if (claimed.length > 0) {
      const pending = await this.#streams.read(claimed, this.id, READ_COUNT, true);
      read += await this.#admit(pending);
      for (const p of claimed) {
        if (!pending.some((b) => b.partition === p)) {
          const lease = this.#held.get(p);
          if (lease !== undefined) lease.claimed = false;
        }
      }
    }
    // A stream found damaged by the read of pending batches is not read again this tick.
    const fresh = readable.filter((p) => this.#held.get(p)?.claimed === false && this.#held.get(p)?.streamRetryAt === 0);
    read += await this.#admit(await this.#streams.read(fresh, this.id, READ_COUNT));
    this.#inboxEmpty = read === 0 && readable.length === this.#held.size;
  }

  /**
   * Streams set aside as damaged whose time is up are made ready again (the group made, what
   * is pending claimed): a stream repaired meanwhile is read from then on, one still damaged
   * is set aside again by #damaged.
   */
  async #retryDamagedStreams(): Promise<void> {
    const now = Date.now();
    const due = [...this.#held.values()].filter((lease) => lease.streamRetryAt !== 0 && lease.streamRetryAt <= now);
    if (due.length === 0) return;
    for (const lease of due) lease.streamRetryAt = 0;
    const ready = await this.#streams.prepareOwnership(due.map((lease) => lease.partition), this.id, (p) => this.#keys.quietUntil(p));
    for (const [i, lease] of due.entries()) if (ready[i] !== null) lease.claimed = true;
  }

  /** Admits each partition's batches in its shard, then acknowledges them all in one round trip. */
  async #admit(batches: readonly LinkBatch[]): Promise<number> {
    const byPartition = new Map<number, LinkBatch[]>();
    for (const batch of batches) {
      let list = byPartition.get(batch.partition);
      if (list === undefined) byPartition.set(batch.partition, (list = []));
      list.push(batch);
    }
    await this.#claimHomes([...byPartition.keys()]);
    const admitted = new Map<number, LinkBatch[]>();
    for (const [partition, list] of byPartition) {
      const runner = this.#runnerFor(partition);
      if (runner === undefined) {
        // Not open yet (quiet time, a shard that failed to open, or enough opened this tick): the batches stay pending and are read again.
        const lease = this.#held.get(partition);
        if (lease !== undefined) lease.claimed = true;
        continue;
      }
      try {
        const refused = runner.admit(list);
        this.#linksMoved += list.length;
        admitted.set(partition, list);
        this.#countDropped(partition, list, refused);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.#reportLimited(`partition ${partition}: admitting`, `partition ${partition}: links could not be admitted: ${message}`);
      }
    }
    await this.#streams.ack(admitted);
    return batches.length;
  }

  /**
   * Sends what the shards' outboxes hold, all in one round trip (so a partition's links from
   * every shard share stream entries); a stream past its bound pauses the senders until it drains.
   */
  async #sendOutboxes(): Promise<void> {
    const batches = [...this.#runners.values()].map((runner) => runner.takeOutbox()).filter((b) => b !== undefined);
    if (batches.length > 0) {
      const backlog = await this.#send(batches.flatMap((b) => b.links));
      for (const batch of batches) batch.done();
      this.#setBackpressure(backlog > MAX_STREAM_BACKLOG);
    } else if (this.#backpressure) {
      this.#setBackpressure(false);
    }
  }

  #setBackpressure(pressure: boolean): void {
    if (pressure === this.#backpressure) return;
    this.#backpressure = pressure;
    this.#log(pressure ? `a partition's stream holds over ${MAX_STREAM_BACKLOG} batches: this worker's shards pause until it drains` : 'streams drained: dispatching again');
    this.#applyState();
  }

  #send(links: SentLink[]): Promise<number> {
    this.#linksMoved += links.length;
    return this.#streams.send(links, (url) => this.#partitions.of(url));
  }

  /**
   * Links left out of a partition's admitted batches (by the stream's reader or the shard's
   * own check) are counted and said, at most once a minute a partition: their entries are
   * acknowledged like any other, so none comes back.
   */
  #countDropped(partition: number, batches: readonly LinkBatch[], refusedByShard: number): void {
    const damaged = batches.filter((b) => b.dropped > 0);
    const dropped = damaged.reduce((n, b) => n + b.dropped, 0) + refusedByShard;
    if (dropped === 0) return;
    this.#linksDropped += dropped;
    const first = damaged[0];
    const what = first === undefined ? 'links out of the crawl\'s bounds' : `entry ${first.id}: ${first.problem ?? 'a damaged entry'}`;
    this.#reportLimited(`dropped links ${partition}`, `partition ${partition}: dropped ${dropped} link(s) read from ${this.#keys.links(partition)} (${what}); ${this.#linksDropped} dropped by this worker so far`);
  }

  /** Says a problem unless it was said within REPORT_EVERY_MS, with how many times it came back unsaid. */
  #reportLimited(problem: string, line: string): void {
    const repeats = this.#throttle.note(problem);
    if (repeats === undefined) return;
    this.#report(repeats > 0 ? `${line} (and ${repeats} more time(s) since it was last said)` : line);
  }

  #report(line: string): void {
    this.#errors++;
    this.#lastError = line;
    this.#log(line);
    void this.#redis
      .pipeline()
      .lpush(this.#keys.errors, `${new Date().toISOString()} ${this.id}: ${line}`)
      .ltrim(this.#keys.errors, 0, 49)
      .exec()
      .catch(() => undefined);
  }

  /**
   * Shards idle past DORMANT_AFTER_MS go to sleep; a worker with nothing to do gives its
   * budget allowance back, so that workers with work can spend it.
   */
  #tendIdleShards(): void {
    const now = Date.now();
    let idle = this.#inboxEmpty;
    for (const [partition, runner] of this.#runners) {
      if (!runner.idle) {
        idle = false;
        this.#idleSince.delete(partition);
        continue;
      }
      const since = this.#idleSince.get(partition) ?? now;
      this.#idleSince.set(partition, since);
      if (now - since >= DORMANT_AFTER_MS && runner.outcome === undefined) this.#putToSleep(partition, runner);
    }
    const budget = this.#budget as SharedBudget;
    if (idle && budget.allowance > 0) void budget.returnAllowance().catch(() => undefined);
  }

  #status(): WorkerStatus {
    let queued = 0;
    let inProgress = 0;
    let idle = this.#inboxEmpty;
    let outbox = 0;
    for (const runner of this.#runners.values()) {
      queued += runner.engine.stats().queued;
      inProgress += runner.engine.pagesInProgress;
      outbox += runner.outboxSize;
      if (!runner.idle) idle = false;
    }
    const budget = this.#budget as SharedBudget;
    const elapsed = (Date.now() - this.#startedAt) / 1000;
    return {
      id: this.id,
      seq: ++this.#statusSeq,
      activity: this.#pagesStored + this.#linksMoved,
      host: hostname(),
      home: this.#home,
      pid: process.pid,
      startedAt: this.#startedAt,
      partitions: this.#held.size,
      shards: this.#runners.size,
      pagesStored: this.#pagesStored,
      pagesPerSecond: elapsed > 0 ? this.#pagesStored / elapsed : 0,
      queued,
      inProgress,
      outbox,
      idle,
      allowance: budget.allowance,
      budgetSpent: budget.spent,
      paused: this.#state !== 'running' || this.#renewalLate || this.#backpressure,
      errors: this.#errors,
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  async #publishStatus(): Promise<void> {
    await (this.#registry as WorkerRegistry).publish(this.#status());
    await this.#judging.exchange([...this.#runners.values()].map((runner) => runner.judge), this.#live);
    const delta = this.#pagesStored - this.#pagesReported;
    if (delta > 0) await this.#countPagesStored(delta);
  }

  /** Adds to the crawl's count of pages stored; a damaged counter keeps them for the next time (and is said). */
  async #countPagesStored(delta: number): Promise<void> {
    try {
      await this.#redis.incrby(this.#keys.pagesStored, delta);
      this.#pagesReported += delta;
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#damaged({
        key: this.#keys.pagesStored,
        expected: 'the whole number of pages the workers stored',
        found: foundBy(err),
        meanwhile: 'cluster status shows too few pages stored; the crawl goes on',
        repair: `redis-cli SET ${this.#keys.pagesStored} N, N the pages in the shards`,
      });
    }
  }

  /**
   * Whether the crawl is over: every worker idle (or the budget spent), nothing in flight,
   * every partition held and every stream empty, and all of it still so in a later status of
   * every worker that did nothing meanwhile. A link admitted just before the streams were
   * read shows in its owner's next status, so two looks a status apart cannot both miss it.
   */
  async #crawlFinished(): Promise<boolean> {
    if (this.#state !== 'running') return false;
    const definition = this.#definition as ClusterDefinition;
    const { workers } = await (this.#registry as WorkerRegistry).view();
    const previous = this.#lastLook;
    this.#lastLook = new Map(workers.map((w) => [w.id, w]));
    if (workers.length === 0 || workers.some((w) => w.inProgress > 0 || w.outbox > 0)) return false;
    const budgetSpent = workers.every((w) => w.allowance === 0) && (await (this.#budget as SharedBudget).handedOut());
    if (!budgetSpent) {
      if (workers.reduce((n, w) => n + w.partitions, 0) !== definition.partitions || !workers.every((w) => w.idle)) return false;
      if ((await this.#streams.backlog(definition.partitions)) > 0) return false;
    }
    return workers.length === previous.size && workers.every((w) => {
      const before = previous.get(w.id);
      return before !== undefined && before.seq < w.seq && before.activity === w.activity;
    });
  }

  async #shutDown(): Promise<void> {
    this.#leavingNow = true;
    const leases = this.#leases;
    const delayMs = this.#definition?.settings.delayMs ?? 0;
    const closed = new Map<number, ShardRunner>();
    for (const [partition, runner] of this.#runners) {
      try {
        await this.#closeShard(runner, this.#abortOnLeave);
        closed.set(partition, runner);
      } catch (err) {
        this.#log(`partition ${partition}: closing its shard: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    this.#runners.clear();
    await this.#publishStatus().catch(() => undefined);
    for (const lease of this.#held.values()) await leases?.release(lease, this.#handOverQuietMs(closed.get(lease.partition), delayMs)).catch(() => undefined);
    this.#held.clear();
    await this.#budget?.returnAllowance().catch(() => undefined);
    await this.#registry?.leave().catch(() => undefined);
    await this.#judging.leave().catch(() => undefined);
    await this.#parser?.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
