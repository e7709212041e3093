import type { Redis } from 'ioredis';
import type { PageBudget } from '../engine/engine.ts';
import type { ClusterKeys } from './cluster-keys.ts';

/*
 * The crawl's one page budget, shared by every worker. Redis counts the pages handed out;
 * a worker takes a few at a time (so a page costs no round trip) and lends them to its
 * shards' engines. A page not stored (a retry, a failure without response) goes back to the
 * worker's allowance; an idle worker gives its allowance back, so that what it holds does not
 * go unspent while others have work. A worker killed holding an allowance leaves the crawl
 * at most CHUNK pages short.
 */

const CHUNK = 8;

const TAKE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - used)
if n <= 0 then return 0 end
redis.call('INCRBY', KEYS[1], n)
return n`;

export class SharedBudget implements PageBudget {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #maxPages: number;
  readonly #onRefill: () => void;
  #allowance = 0;
  #refilling = false;
  /** Redis has handed out the whole budget. */
  #exhausted = false;

  constructor(redis: Redis, keys: ClusterKeys, maxPages: number, onRefill: () => void) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxPages = maxPages;
    this.#onRefill = onRefill;
  }

  available(): number {
    if (this.#allowance === 0) this.#refill();
    return this.#allowance;
  }

  reserve(): void {
    this.#allowance--;
  }

  giveBack(): void {
    this.#allowance++;
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
    await this.#redis.decrby(this.#keys.budgetUsed, n);
    this.#exhausted = false;
  }

  #refill(): void {
    if (this.#refilling || this.#exhausted) return;
    this.#refilling = true;
    (this.#redis.eval(TAKE, 1, this.#keys.budgetUsed, CHUNK, this.#maxPages) as Promise<number>).then(
      (n) => {
        this.#refilling = false;
        if (n === 0) this.#exhausted = true;
        this.#allowance += n;
        if (n > 0) this.#onRefill();
      },
      () => {
        // Redis is away: the worker's connection reconnects; the next ask tries again.
        this.#refilling = false;
      },
    );
  }

  /** Looks again whether the budget has pages left (another worker gave some back). */
  recheck(): void {
    this.#exhausted = false;
  }
}
