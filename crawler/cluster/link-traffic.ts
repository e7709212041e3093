import type { ClusterKeys } from './cluster-keys.ts';
import type { LeaseKeeper } from './lease-keeper.ts';
import type { LinkBatch, LinkStreams, SentLink } from './link-streams.ts';
import type { PartitionMap } from './partition.ts';
import type { ShardPool } from './shard-pool.ts';
import type { WorkerVoice } from './report-throttle.ts';
import { PARTITIONS } from '../store/shard-names.ts';
import type { HeldLinks } from './worker-registry.ts';

/*
 * A worker's link traffic: the links sent to its partitions read from their streams and
 * admitted in their shards, the shards' outboxes sent on, and backpressure per destination:
 * links for a partition whose stream is past its bound (its owner is away or behind) wait in
 * the outboxes, on disk, while the links for every other partition go on.
 */

/** Past this many entries waiting in a partition's stream, links for it wait in the senders' outboxes. */
export const MAX_STREAM_BACKLOG = 5_000;
/** A blocked partition takes links again once its stream is back under this: one hovering at the bound does not flip its senders on every send. */
const RESUME_BELOW = MAX_STREAM_BACKLOG / 2;
/** How often the streams of blocked partitions are measured again (all in one round trip). */
const RECHECK_EVERY_MS = 1000;
/** Batches read per stream per tick. */
const READ_COUNT = 20;

export interface LinkTrafficParts {
  streams: LinkStreams;
  keys: ClusterKeys;
  id: string;
  partitions: PartitionMap;
  keeper: LeaseKeeper;
  pool: ShardPool;
}

export type LinkTrafficEvents = WorkerVoice;

export class LinkTraffic {
  readonly #parts: LinkTrafficParts;
  readonly #events: LinkTrafficEvents;
  /** Links this worker admitted and sent. */
  #linksMoved = 0;
  /** Links read from the streams and left out: damaged entries, links out of the crawl's bounds. */
  #linksDropped = 0;
  /** Streams that had nothing to read on the last tick: the worker's inbox is empty. */
  #inboxEmpty = false;
  /** Partitions whose stream was past MAX_STREAM_BACKLOG when last measured: their links stay in the outboxes. */
  readonly #blocked = new Set<number>();
  #recheckAt = 0;
  /** Whether every partition's stream was measured: a worker that starts sends nothing to a stream already full. */
  #measuredAll = false;

  constructor(parts: LinkTrafficParts, events: LinkTrafficEvents) {
    this.#parts = parts;
    this.#events = events;
  }

  get linksMoved(): number {
    return this.#linksMoved;
  }

  get inboxEmpty(): boolean {
    return this.#inboxEmpty;
  }

  /** Reads the links sent to its partitions and admits them, then acknowledges them. */
  async intake(): Promise<void> {
    const { keeper, streams, id } = this.#parts;
    // A worker that was away (paused, or Redis was) reads nothing until it knows its leases are still its own.
    if (!keeper.fresh()) return;
    await this.#retryDamagedStreams();
    const now = Date.now();
    const held = keeper.held;
    const readable = [...held.values()].filter((lease) => lease.quietUntil <= now && lease.streamRetryAt === 0).map((lease) => lease.partition);
    const claimed = readable.filter((p) => held.get(p)?.claimed === true);
    let read = 0;
    if (claimed.length > 0) {
      const pending = await streams.read(claimed, id, READ_COUNT, true);
      read += await this.#admit(pending);
      for (const p of claimed) {
        if (!pending.some((b) => b.partition === p)) {
          const lease = held.get(p);
          if (lease !== undefined) lease.claimed = false;
        }
      }
    }
    // A stream found damaged by the read of pending batches is not read again this tick.
    const fresh = readable.filter((p) => held.get(p)?.claimed === false && held.get(p)?.streamRetryAt === 0);
    read += await this.#admit(await streams.read(fresh, id, READ_COUNT));
    this.#inboxEmpty = read === 0 && readable.length === held.size;
  }

  /**
   * Streams set aside as damaged whose time is up are made ready again (the group made, what
   * is pending claimed): a stream repaired meanwhile is read from then on, one still damaged
   * is set aside again by the worker's damage report.
   */
  async #retryDamagedStreams(): Promise<void> {
    const { keeper, streams, keys, id } = this.#parts;
    const now = Date.now();
    const due = [...keeper.held.values()].filter((lease) => lease.streamRetryAt !== 0 && lease.streamRetryAt <= now);
    if (due.length === 0) return;
    for (const lease of due) lease.streamRetryAt = 0;
    const ready = await streams.prepareOwnership(due.map((lease) => lease.partition), id, (p) => keys.quietUntil(p));
    for (const [i, lease] of due.entries()) if (ready[i] !== null) lease.claimed = true;
  }

  /** Admits each partition's batches in its shard, then acknowledges them all in one round trip. */
  async #admit(batches: readonly LinkBatch[]): Promise<number> {
    const { keeper, pool } = this.#parts;
    const byPartition = new Map<number, LinkBatch[]>();
    for (const batch of batches) {
      let list = byPartition.get(batch.partition);
      if (list === undefined) byPartition.set(batch.partition, (list = []));
      list.push(batch);
    }
    await keeper.claimHomes([...byPartition.keys()], (p) => pool.runners.has(p));
    const admitted = new Map<number, LinkBatch[]>();
    for (const [partition, list] of byPartition) {
      const runner = pool.linkSinkFor(partition);
      if (runner === undefined) {
        // Not open yet (quiet time, a shard that failed to open, or enough opened this tick): the batches stay pending and are read again.
        const lease = keeper.held.get(partition);
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
        this.#events.report(`partition ${partition}: admitting`, `partition ${partition}: links could not be admitted: ${message}`);
      }
    }
    await this.#parts.streams.ack(admitted);
    return batches.length;
  }

  /**
   * Sends what the shards' outboxes hold for partitions not blocked, all in one round trip (so
   * a partition's links from every shard share stream entries); the rows leave the outboxes
   * only once Redis has them.
   */
  async sendOutboxes(): Promise<void> {
    await this.#recheckBlocked();
    const batches = [...this.#parts.pool.runners.values()].map((runner) => runner.takeOutbox(this.#blocked)).filter((b) => b !== undefined);
    if (batches.length === 0) return;
    await this.send(batches.flatMap((b) => b.links));
    for (const batch of batches) batch.done();
  }

  /**
   * Every partition's stream measured once, before the first send; then the blocked ones, at
   * most every RECHECK_EVERY_MS, in one round trip: those drained take links again.
   */
  async #recheckBlocked(): Promise<void> {
    const now = Date.now();
    const due = !this.#measuredAll ? Array.from({ length: PARTITIONS }, (_, p) => p) : now >= this.#recheckAt ? [...this.#blocked] : [];
    if (due.length === 0) return;
    this.#recheckAt = now + RECHECK_EVERY_MS;
    // A stream that could not be measured (damaged) is left as it was: a blocked one keeps its links in the outboxes.
    this.#heed(await this.#parts.streams.lengths(due));
    this.#measuredAll = true;
  }

  /** Blocks the partitions whose stream is past MAX_STREAM_BACKLOG, and lets the blocked ones back under RESUME_BELOW take links again. */
  #heed(lengths: ReadonlyMap<number, number>): void {
    for (const [partition, length] of lengths) {
      if (this.#blocked.has(partition) && length < RESUME_BELOW) {
        this.#blocked.delete(partition);
        this.#events.log(`partition ${partition}: its stream drained to ${length} batches; the links held for it are sent`);
      } else if (!this.#blocked.has(partition) && length > MAX_STREAM_BACKLOG) {
        if (this.#blocked.size === 0) this.#recheckAt = Date.now() + RECHECK_EVERY_MS;
        this.#blocked.add(partition);
        this.#events.log(`partition ${partition}: its stream holds ${length} batches, over ${MAX_STREAM_BACKLOG}; links for it wait in this worker's outboxes, the other partitions' go on`);
      }
    }
  }

  /** Links the open shards hold for blocked partitions, by partition. */
  heldBack(): HeldLinks[] {
    if (this.#blocked.size === 0) return [];
    const held = new Map<number, number>();
    for (const runner of this.#parts.pool.runners.values()) {
      for (const [partition, links] of runner.outboxHeld(this.#blocked)) held.set(partition, (held.get(partition) ?? 0) + links);
    }
    return [...held].sort(([a], [b]) => a - b).map(([partition, links]) => ({ partition, links }));
  }

  /** Entries waiting in the streams of the crawl's partitions. */
  backlog(partitions: number): Promise<number> {
    return this.#parts.streams.backlog(partitions);
  }

  /** Sends links to their partitions' streams; a stream found past its bound blocks its partition. */
  async send(links: SentLink[]): Promise<void> {
    this.#linksMoved += links.length;
    this.#heed(await this.#parts.streams.send(links, (url) => this.#parts.partitions.of(url)));
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
    this.#events.report(`dropped links ${partition}`, `partition ${partition}: dropped ${dropped} link(s) read from ${this.#parts.keys.links(partition)} (${what}); ${this.#linksDropped} dropped by this worker so far`);
  }
}
