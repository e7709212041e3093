import type { Redis } from 'ioredis';
import type { PageBudget } from '../engine/engine.ts';
import type { ClusterKeys } from './cluster-keys.ts';

/*
 * The crawl's one page budget, shared by every worker. Redis counts the pages handed out;
 * a worker takes a chunk at a time (so a page costs no round trip) and lends it to its
 * shards' engines. A chunk doubles while the worker spends each within a second and halves
 * when it does not, between MIN_CHUNK and MAX_CHUNK, and it is never more than a
 * FAIR_SHARE-th of what is left: a fast worker asks Redis about once a second, and the last
 * pages of a budget are spread over the workers that ask. A page not stored (a retry, a
 * failure without response) goes back to the worker's allowance; an idle worker gives its
 * allowance back, so that what it holds does not go unspent while others have work. A
 * worker killed holding an allowance leaves the crawl at most MAX_CHUNK pages short.
 *
 * Only the shards that found the allowance empty are woken when it is refilled: a worker
 * holds hundreds of shards, and waking them all for every chunk cost a dispatch each.
 */

const MIN_CHUNK = 8;
const MAX_CHUNK = 256;
const FAIR_SHARE = 4;
/** A chunk spent faster than this makes the next one twice as large. */
const FAST_REFILL_MS = 1000;

const TAKE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local left = tonumber(ARGV[2]) - used
local n = math.min(tonumber(ARGV[1]), math.max(tonumber(ARGV[3]), math.floor(left / tonumber(ARGV[4]))), left)
if n <= 0 then return 0 end
redis.call('INCRBY', KEYS[1], n)
return n`;

export class SharedBudget {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #maxPages: number;
  /** Wakes of the shards that asked while the allowance was empty. */
  readonly #waiting = new Set<() => void>();
  #allowance = 0;
  #chunk = MIN_CHUNK;
  #lastRefillAt = Number.NEGATIVE_INFINITY;
  #refilling = false;
  /** Redis has handed out the whole budget. */
  #exhausted = false;

  constructor(redis: Redis, keys: ClusterKeys, maxPages: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxPages = maxPages;
  }

  /** The budget as one shard's engine sees it; `wake` is called when pages come after it found none. */
  forShard(wake: () => void): PageBudget {
    return {
      available: () => {
        const n = this.#available();
        if (n === 0) this.#waiting.add(wake);
        return n;
      },
      reserve: () => {
        this.#allowance--;
      },
      giveBack: () => {
        if (this.#allowance++ === 0) this.#wakeWaiting();
      },
    };
  }

  get allowance(): number {
    return this.#allowance;
  }

  /** True once the crawl's budget is all handed out and this worker holds none of it. */
  get spent(): boolean {
    return this.#exhausted && this.#allowance === 0;
  }

  /** Gives the allowance back to the crawl (the worker is idle or leaving). */
  async returnAllowance(): Promise<void> {
    const n = this.#allowance;
    if (n <= 0) return;
    this.#allowance = 0;
    this.#chunk = MIN_CHUNK;
    await this.#redis.decrby(this.#keys.budgetUsed, n);
    this.#exhausted = false;
  }

  /** Looks again whether the budget has pages left (another worker gave some back). */
  recheck(): void {
    this.#exhausted = false;
  }

  #available(): number {
    if (this.#allowance === 0) this.#refill();
    return this.#allowance;
  }

  #refill(): void {
    if (this.#refilling || this.#exhausted) return;
    this.#refilling = true;
    const now = performance.now();
    this.#chunk = now - this.#lastRefillAt < FAST_REFILL_MS ? Math.min(MAX_CHUNK, this.#chunk * 2) : Math.max(MIN_CHUNK, this.#chunk / 2);
    this.#lastRefillAt = now;
    (this.#redis.eval(TAKE, 1, this.#keys.budgetUsed, this.#chunk, this.#maxPages, MIN_CHUNK, FAIR_SHARE) as Promise<number>).then(
      (n) => {
        this.#refilling = false;
        if (n === 0) this.#exhausted = true;
        this.#allowance += n;
        if (n > 0) this.#wakeWaiting();
      },
      () => {
        // Redis is away: the worker's connection reconnects; the next ask tries again.
        this.#refilling = false;
      },
    );
  }

  #wakeWaiting(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const wake of waiting) wake();
  }
}
