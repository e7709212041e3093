import { enlarge } from '../memory/enlarge.ts';
import { priorityBucket, PriorityRanks, type RankTally } from './priority-ranks.ts';

/**
 * The queued URLs by id (ids are dense, so growable typed arrays cost 6 bytes a URL): which
 * host's queue holds each, and the priority it was queued at. The host lets the frontier
 * re-queue a URL whose priority changed and tell a live heap entry from one left behind by
 * an earlier priority; the priorities answer how many queued URLs, on any host, rank above
 * a given one. A `tally` shared with other frontiers counts the same priorities, until left.
 */
export class QueuedHosts {
  #hostOf = new Int32Array(1024);
  #bucketOf = new Uint16Array(1024);
  readonly #ranks = new PriorityRanks();
  #tally: RankTally | undefined;

  constructor(tally?: RankTally) {
    this.#tally = tally;
  }

  /** The URL is queued on the host at this priority (again, when it was already queued). */
  set(urlId: number, hostId: number, priority: number): void {
    if (urlId >= this.#hostOf.length) {
      const capacity = Math.max(urlId + 1, this.#hostOf.length * 2);
      this.#hostOf = enlarge(this.#hostOf, capacity);
      this.#bucketOf = enlarge(this.#bucketOf, capacity);
    }
    if (this.#hostOf[urlId] !== 0) this.#count(this.#bucketOf[urlId] as number, -1);
    const bucket = priorityBucket(priority);
    this.#hostOf[urlId] = hostId;
    this.#bucketOf[urlId] = bucket;
    this.#count(bucket, 1);
  }

  #count(bucket: number, delta: 1 | -1): void {
    this.#ranks.add(bucket, delta);
    this.#tally?.add(bucket, delta);
  }

  /** The shared tally no longer counts this frontier's URLs (its run ended). */
  leaveTally(): void {
    const tally = this.#tally;
    if (tally === undefined) return;
    this.#tally = undefined;
    this.forEachQueued((urlId) => tally.add(this.#bucketOf[urlId] as number, -1));
  }

  /** The host id of a queued URL, or 0 when the URL is not queued. */
  get(urlId: number): number {
    return urlId < this.#hostOf.length ? (this.#hostOf[urlId] as number) : 0;
  }

  delete(urlId: number): void {
    if (urlId >= this.#hostOf.length || this.#hostOf[urlId] === 0) return;
    this.#count(this.#bucketOf[urlId] as number, -1);
    this.#hostOf[urlId] = 0;
  }

  /** Queued URLs, on every host, whose priority ranks strictly above `priority` (near-ties count as ties). */
  rankedAbove(priority: number): number {
    return this.#ranks.above(priorityBucket(priority));
  }

  /** True when this heap entry is the one counted for the URL: it is queued on this host, at this priority's bucket. */
  counts(urlId: number, hostId: number, priority: number): boolean {
    return this.get(urlId) === hostId && this.#bucketOf[urlId] === priorityBucket(priority);
  }

  /** True when `priority` ranks strictly above `than`, as rankedAbove counts (near-ties count as ties). */
  ranksAbove(priority: number, than: number): boolean {
    return priorityBucket(priority) > priorityBucket(than);
  }

  get size(): number {
    return this.#ranks.size;
  }

  /** Calls `visit` for every queued URL, in id order. */
  forEachQueued(visit: (urlId: number, hostId: number) => void): void {
    const hostOf = this.#hostOf;
    for (let id = 0; id < hostOf.length; id++) {
      const hostId = hostOf[id] as number;
      if (hostId !== 0) visit(id, hostId);
    }
  }
}
