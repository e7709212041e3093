import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { shardFileName } from '../store/shard-names.ts';
import type { ClusterDefinition } from './cluster-definition.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import type { LinkStreams } from './link-streams.ts';
import type { Lease, PartitionLeases } from './partition-leases.ts';
import { partitionsFor, type WorkerRegistry } from './worker-registry.ts';
import type { WorkerVoice } from './report-throttle.ts';

/*
 * A worker's leases: it beats and renews them on a loop of its own, takes or gives up
 * partitions towards its fair share, and claims the homes of the partitions whose shards it
 * makes. What happens to a partition's shard when its lease goes is the worker's to say
 * (LeaseEvents).
 */

/** With no renewal for this share of the lease time, the worker stops dispatching: the lease may be about to pass on. */
const RENEWAL_DEADLINE_SHARE = 0.6;
/** Added to a partition's quiet time when it is handed on: the workers' clocks are not one clock. */
export const HANDOVER_MARGIN_MS = 10;

export interface HeldLease extends Lease {
  /** Partitions taken over from an owner that released them wait this long before asking their hosts. */
  quietUntil: number;
  /** Pending batches were claimed and must be read again before new ones. */
  claimed: boolean;
  /** Its shard lives at this worker's home: only workers of this home may hold it, so it is never given up to balance. */
  homedHere: boolean;
  /** Its stream was found damaged: not read before this time, then made ready again (0: it is sound). */
  streamRetryAt: number;
}

/** What the worker does when the lease keeper lets a partition go. */
export interface LeaseEvents extends WorkerVoice {
  /** A lease found lost (expired or taken over): the partition is forgotten, its shard closes. */
  lost: (partition: number) => void;
  /** A partition about to be given up: its shard closes; resolves to how long its next owner leaves its hosts alone. */
  handOver: (partition: number) => Promise<number>;
  /** A partition no longer this worker's: whatever the worker keeps for it goes. */
  forget: (partition: number) => void;
  /** The leases became late, or fresh again. */
  lateChanged: () => void;
}

export interface LeaseKeeperParts {
  registry: WorkerRegistry;
  leases: PartitionLeases;
  streams: LinkStreams;
  keys: ClusterKeys;
  definition: ClusterDefinition;
  id: string;
  home: string;
  dir: string;
}

export class LeaseKeeper {
  readonly held = new Map<number, HeldLease>();
  readonly #parts: LeaseKeeperParts;
  readonly #events: LeaseEvents;
  /** Partitions held up by a damaged lease, epoch or home key: not taken before the time given. */
  readonly #setAside = new Map<number, number>();
  /** Live workers as of the last heartbeat. */
  #live: string[] = [];
  /** The live workers as of the last balance. */
  #balancedFor = '';
  #lastRenewal = Date.now();
  #late = false;
  /** The worker has stopped: the renewal loop ends. */
  #stopped = false;
  /** Ends the renewal loop's wait between renewals. */
  #wakeRenewal: (() => void) | undefined;
  /** Shutting down: leases released from now on are not lost ones. */
  #leaving = false;

  constructor(parts: LeaseKeeperParts, events: LeaseEvents) {
    this.#parts = parts;
    this.#events = events;
  }

  /** Live workers as of the last heartbeat. */
  get live(): readonly string[] {
    return this.#live;
  }

  /** The leases went unrenewed past the deadline: dispatching stops. */
  get late(): boolean {
    return this.#late;
  }

  /** Whether the leases were renewed recently enough that this worker still owns its partitions for sure. */
  fresh(): boolean {
    return Date.now() - this.#lastRenewal <= this.#parts.definition.leaseMs * RENEWAL_DEADLINE_SHARE;
  }

  /** The first heartbeat; workers started together see each other before any takes partitions. */
  async join(): Promise<void> {
    await this.#renew();
    this.#balancedFor = this.#live.join(' ');
  }

  /** Whether the live workers changed since the last balance. */
  get workersChanged(): boolean {
    return this.#live.join(' ') !== this.#balancedFor;
  }

  /** Holds a partition up until `until`: it is not taken meanwhile. */
  setAside(partition: number, until: number): void {
    this.#setAside.set(partition, until);
  }

  isSetAside(partition: number): boolean {
    return this.#setAside.has(partition);
  }

  /** The watchdog's look: says when the leases became late or fresh again. */
  watch(): void {
    const late = !this.fresh();
    if (late === this.#late) return;
    this.#late = late;
    if (late) this.#events.log(`leases not renewed for ${Math.round(Date.now() - this.#lastRenewal)} ms: dispatching stops until Redis answers`);
    this.#events.lateChanged();
  }

  /**
   * Beats and renews the leases on a loop of its own, so that slow work on the main loop
   * (shards closing, a busy machine) never makes a lease lapse. Ends after stop().
   */
  async renewalLoop(): Promise<void> {
    const leaseMs = this.#parts.definition.leaseMs;
    while (!this.#stopped) {
      try {
        await this.#renew();
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.#events.report(`renewing leases: ${message}`, `renewing leases: ${message}`);
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

  /** Ends the renewal loop. */
  stop(): void {
    this.#stopped = true;
    this.#wakeRenewal?.();
  }

  /** Says it is alive and renews its leases; a lease found lost is let go (LeaseEvents.lost). */
  async #renew(): Promise<void> {
    const started = Date.now();
    this.#live = await this.#parts.registry.beat();
    const lost = await this.#parts.leases.renew([...this.held.values()]);
    this.#lastRenewal = started;
    if (this.#late) this.watch();
    for (const lease of lost) {
      // Renewed meanwhile by a later acquisition of the same partition, or given up as the worker leaves: not lost.
      if (this.#leaving || this.held.get(lease.partition)?.epoch !== lease.epoch) continue;
      this.#events.log(`lost the lease of partition ${lease.partition} (expired or taken over); its shard closes`);
      this.#events.lost(lease.partition);
    }
  }

  /**
   * Takes or gives up partitions towards this worker's even share of them. A partition whose
   * shard lives at this worker's home is taken whenever it is free and never given up: no
   * worker of another home may have it, so it would wait for nobody. Returns the share.
   */
  async balance(): Promise<number> {
    const { leases, definition, registry } = this.#parts;
    // The live workers as of now, not of the last renewal (up to a fifth of a lease ago).
    this.#live = await registry.beat();
    const share = partitionsFor(this.#parts.id, this.#live, definition.partitions);
    const free = this.#withoutSetAside(await leases.free(definition.partitions, this.#parts.home));
    // Whether another live worker shares this home matters only when there are partitions homed here to take, or some to give up.
    const peersAtHome = (free.homedHere.length > 0 || this.held.size > share) && (await this.#peersAtHome());
    // Alone at its home, a worker takes every free partition homed here, whatever its share: nobody else may.
    const homedHere = peersAtHome ? free.homedHere.slice(0, Math.max(0, share - this.held.size)) : free.homedHere;
    const wanted = Math.max(0, share - this.held.size - homedHere.length);
    const start = free.homeless.length === 0 ? 0 : Number.parseInt(this.#parts.id.slice(-6), 16) % free.homeless.length;
    // Workers joining together start at places of their own, so that they rarely ask for the same partitions.
    const homeless = [...free.homeless.slice(start), ...free.homeless.slice(0, start)].slice(0, wanted);
    if (homedHere.length + homeless.length > 0) await this.#take([...homedHere, ...homeless], new Set(free.homedHere));
    else if (this.held.size > share) await this.#giveUp(this.held.size - share, peersAtHome);
    this.#balancedFor = this.#live.join(' ');
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
    const { workers } = await this.#parts.registry.view();
    return workers.some((w) => w.id !== this.#parts.id && w.home === this.#parts.home);
  }

  async #take(candidates: readonly number[], homedHere: ReadonlySet<number>): Promise<void> {
    const { leases, streams, keys } = this.#parts;
    const taken = await leases.acquire(candidates);
    if (taken.length === 0) return;
    // Held at once, so that the renewal loop renews them while their streams are set up.
    for (const lease of taken) this.held.set(lease.partition, { ...lease, quietUntil: Number.POSITIVE_INFINITY, claimed: true, homedHere: homedHere.has(lease.partition), streamRetryAt: 0 });
    const partitions = taken.map((lease) => lease.partition);
    const quiet = await streams.prepareOwnership(partitions, this.#parts.id, (p) => keys.quietUntil(p));
    // A quiet time is Redis's word: no previous owner asks for longer than its politeness can last.
    const latest = Date.now() + this.#longestQuietMs();
    for (const [i, partition] of partitions.entries()) {
      const lease = this.held.get(partition);
      // A damaged stream (null) was set aside by the worker: the shard may crawl meanwhile, its links wait.
      if (lease !== undefined) lease.quietUntil = Math.min(quiet[i] ?? 0, latest);
    }
    this.#events.log(`took ${taken.length} partition(s); holds ${this.held.size}`);
  }

  /**
   * Gives up the highest-numbered partitions: their shards close first (all at once), then
   * their leases go. With no other worker at its home, only partitions without a shard here
   * can go: the others could go to nobody.
   */
  async #giveUp(count: number, peersAtHome: boolean): Promise<void> {
    const movable = [...this.held.values()].filter((lease) => peersAtHome || (!lease.homedHere && !this.#shardHere(lease.partition)));
    const victims = movable.sort((a, b) => b.partition - a.partition).slice(0, count);
    if (victims.length === 0) return;
    await Promise.all(
      victims.map(async (lease) => {
        const quietMs = await this.#events.handOver(lease.partition);
        this.#events.forget(lease.partition);
        await this.#parts.leases.release(lease, quietMs);
      }),
    );
    this.#events.log(`gave up ${victims.length} partition(s) to other workers; holds ${this.held.size}`);
  }

  /** The longest a partition's hosts may have to wait after a handover: the longest wait the settings allow a host. */
  #longestQuietMs(): number {
    const s = this.#parts.definition.settings;
    return Math.max(s.delayMs, s.maxCrawlDelayMs, s.maxRetryAfterMs, s.delayFactor * s.totalTimeoutMs) + HANDOVER_MARGIN_MS;
  }

  #shardHere(partition: number): boolean {
    return existsSync(join(this.#parts.dir, shardFileName(partition)));
  }

  /**
   * Before a partition's first shard is made here, this worker's home becomes the partition's;
   * a partition whose home is another (its shard is on another machine's disk) is given up.
   * `open` says which partitions have a shard open here already.
   */
  async claimHomes(partitions: readonly number[], open: (partition: number) => boolean): Promise<void> {
    const leases = this.#parts.leases;
    const fresh = partitions.filter((p) => this.held.has(p) && !open(p) && !this.#shardHere(p));
    const elsewhere = await leases.claimHomes(fresh, this.#parts.home);
    for (const partition of fresh) {
      const lease = this.held.get(partition);
      if (lease === undefined || elsewhere.includes(partition)) continue;
      if (this.#setAside.has(partition)) {
        // Its home key is damaged: where its shard lives is not known, so none is made here.
        this.#events.forget(partition);
        await leases.release(lease, 0);
      } else {
        lease.homedHere = true;
      }
    }
    for (const partition of elsewhere) {
      const lease = this.held.get(partition);
      this.#events.forget(partition);
      if (lease !== undefined) await leases.release(lease, 0);
      this.#events.log(`partition ${partition} lives elsewhere (another home's disk): left to the workers there`);
    }
  }

  /**
   * Batches another consumer read and never acknowledged for longer than a lease (a worker
   * that lost its partitions while it was reading) are taken over by the partition's owner.
   */
  async reclaimStale(): Promise<void> {
    for (const partition of await this.#parts.streams.claimStale([...this.held.keys()], this.#parts.id, this.#parts.definition.leaseMs)) {
      const lease = this.held.get(partition);
      if (lease !== undefined) lease.claimed = true;
    }
  }

  /** A partition no longer this worker's lease. */
  drop(partition: number): void {
    this.held.delete(partition);
  }

  /** Gives every lease up as the worker leaves, each with its hosts' quiet time for the next owner. */
  async releaseAll(quietMs: (partition: number) => number): Promise<void> {
    this.#leaving = true;
    for (const lease of this.held.values()) await this.#parts.leases.release(lease, quietMs(lease.partition)).catch(() => undefined);
    this.held.clear();
  }

  /** From now on, leases found gone are the worker leaving, not lost ones. */
  leaving(): void {
    this.#leaving = true;
  }
}
