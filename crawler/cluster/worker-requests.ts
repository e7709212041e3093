import type { RequestGate } from '../engine/request-gate.ts';
import { RequestSlots } from '../engine/request-slots.ts';
import { priorityBucket, PriorityRanks, type RankTally } from '../frontier/priority-ranks.ts';
import type { TopBuckets } from './crawl-cutoff.ts';

/*
 * A cluster worker's request slots, shared by every shard it runs: `--concurrency` is per
 * worker, however many partitions it holds. A shard asks for a slot with the priority of
 * the URL it would fetch; a free slot goes to it only if no other shard waits with a better
 * one. A shard held back leaves its offer, and when a slot frees the best offer's shard is
 * woken to take it: Mercator's back queues one level up, the shards' frontiers in place of
 * hosts, so the worker fetches its best ready URLs first whichever shard holds them.
 *
 * And as a plain crawl's frontier holds a host whose best URL is not among the crawl's window
 * of best queued URLs (its concurrency), a worker holds a URL while the crawl's window (every
 * worker's slots) of better URLs waits: queued in its own shards, counted live in one tally
 * that every shard's frontier adds to (so asking costs the same however many shards it runs),
 * or on the other workers' ready hosts, from their last summaries (crawl-cutoff.ts).
 */

/** An offer not renewed for this long is ignored: its shard stopped asking (paused, stopping), and must not hold the others back. */
const OFFER_TTL_MS = 500;

interface Offer {
  priority: number;
  at: number;
}

/** The other workers' ready hosts' best URLs: [bucket, hosts in it or above], best first. */
type RanksAbove = [bucket: number, atOrAbove: number][];

export class WorkerRequests {
  readonly #slots: RequestSlots;
  readonly #offers = new Map<ShardRequests, Offer>();
  #running = 0;
  #peakRunning = 0;
  #others: RanksAbove = [];
  /** Every queued URL of this worker's running shards, by priority bucket: their frontiers count into it. */
  readonly #queued = new PriorityRanks();
  #window = 0;
  #held = 0;

  constructor(concurrency: number) {
    this.#slots = new RequestSlots(concurrency, () => this.#wakeBest());
  }

  /** The cut-off from now on: `others` are the other workers' summaries merged (best first), `window` the crawl's slots. */
  setCutoff(others: TopBuckets, window: number): void {
    this.#window = window;
    let above = 0;
    this.#others = others.map(([bucket, count]) => [bucket, (above += count)]);
    // A lower cut-off may let the best waiting offer go.
    this.#wakeBest();
  }

  /** Where the shards' frontiers count their queued URLs for the cut-off. */
  get queuedTally(): RankTally {
    return this.#queued;
  }

  /** Requests held back by the crawl-wide cut-off so far. */
  get heldByCutoff(): number {
    return this.#held;
  }

  /** A shard's gate; `wake` makes its run look at its frontier again. */
  gate(wake: () => void): ShardRequests {
    return new ShardRequests(this, wake);
  }

  /** Requests in flight across the worker's shards. */
  get running(): number {
    return this.#running;
  }

  /** The most requests that were in flight at once. */
  get peakRunning(): number {
    return this.#peakRunning;
  }

  hasRoom(): boolean {
    return this.#slots.hasRoom(this.#running);
  }

  /** Whether `shard` may start a request for a URL at `priority` now; if not, its offer waits. */
  admit(shard: ShardRequests, priority: number): boolean {
    const now = Date.now();
    if (this.hasRoom() && !this.#betterOffer(shard, priority, now) && !this.#belowCutoff(priority)) {
      this.#offers.delete(shard);
      return true;
    }
    this.#offers.set(shard, { priority, at: now });
    return false;
  }

  withdraw(shard: ShardRequests): void {
    if (this.#offers.delete(shard)) this.#wakeBest();
  }

  started(): void {
    this.#running++;
    if (this.#running > this.#peakRunning) this.#peakRunning = this.#running;
  }

  ended(): void {
    this.#running--;
    this.#wakeBest();
  }

  waitFor<T>(request: Promise<T>, onSlow?: () => void): Promise<T> {
    return this.#slots.waitFor(request, onSlow);
  }

  /**
   * Whether the crawl's window of better URLs waits, here or on the other workers' ready
   * hosts: those go first, and the budget should go to them. Held only while a request of
   * this worker is in flight, as a plain crawl holds only while a host is in flight or
   * waiting: a summary can be stale, or name hosts their worker holds back itself, and a
   * worker must never wait on what it cannot see end.
   */
  #belowCutoff(priority: number): boolean {
    if (this.#window === 0 || this.#running === 0 || priority === Number.POSITIVE_INFINITY) return false;
    const bucket = priorityBucket(priority);
    const others = this.#othersAbove(bucket);
    const held = others >= this.#window || others + this.#queued.above(bucket) >= this.#window;
    if (held) this.#held++;
    return held;
  }

  /** The other workers' URLs in buckets strictly above `bucket`. */
  #othersAbove(bucket: number): number {
    const others = this.#others;
    // Best first: find the last entry whose bucket is above.
    let lo = 0;
    let hi = others.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((others[mid] as [number, number])[0] > bucket) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : (others[lo - 1] as [number, number])[1];
  }

  /** Whether another shard offers a URL that ranks above `priority` (ties go to whoever asks). */
  #betterOffer(shard: ShardRequests, priority: number, now: number): boolean {
    for (const [other, offer] of this.#offers) {
      if (other === shard) continue;
      if (now - offer.at > OFFER_TTL_MS) this.#offers.delete(other);
      else if (offer.priority > priority) return true;
    }
    return false;
  }

  /** A slot is free: the shard with the best offer is woken to take it. */
  #wakeBest(): void {
    if (!this.hasRoom()) return;
    const now = Date.now();
    let best: ShardRequests | undefined;
    let bestPriority = Number.NEGATIVE_INFINITY;
    for (const [shard, offer] of this.#offers) {
      if (now - offer.at > OFFER_TTL_MS) this.#offers.delete(shard);
      else if (best === undefined || offer.priority > bestPriority) {
        best = shard;
        bestPriority = offer.priority;
      }
    }
    best?.wake();
  }
}

/** One shard's view of its worker's slots. */
export class ShardRequests implements RequestGate {
  readonly admit: (priority: number) => boolean;
  readonly #worker: WorkerRequests;
  readonly wake: () => void;

  constructor(worker: WorkerRequests, wake: () => void) {
    this.#worker = worker;
    this.wake = wake;
    this.admit = (priority) => worker.admit(this, priority);
  }

  get queuedTally(): RankTally {
    return this.#worker.queuedTally;
  }

  /** The worker's slots decide (admit), whatever this shard has in flight. */
  hasRoom(): boolean {
    return true;
  }

  withdraw(): void {
    this.#worker.withdraw(this);
  }

  started(): void {
    this.#worker.started();
  }

  ended(): void {
    this.#worker.ended();
  }

  waitFor<T>(request: Promise<T>, onSlow?: () => void): Promise<T> {
    return this.#worker.waitFor(request, onSlow);
  }
}
