import type { Redis } from 'ioredis';
import type { PageBudget } from './shard-policy.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { foundBy, isKeyDamage, luaDamaged, luaQuoted, type DamageReport } from './redis-damage.ts';

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
 *
 * The counter is read as untrusted: anything but a whole number of pages from 0 (a
 * neighbour's SET, another type of key) is damage. The scripts then hand out nothing and
 * give nothing back, so a damaged counter never lets a page past the budget; the worker is
 * told, and asks again only after a wait that doubles up to MAX_RETRY_MS, so a counter that
 * stays damaged costs a few commands a minute rather than one per shard's look for work.
 */

const MIN_CHUNK = 8;
const MAX_CHUNK = 256;
const FAIR_SHARE = 4;
/** A chunk spent faster than this makes the next one twice as large. */
const FAST_REFILL_MS = 1000;

/** After a failed ask, the first wait before the next; it doubles with each failure in a row, up to MAX_RETRY_MS. */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;

/**
 * The counter as a number of pages, or a DAMAGED error: digits only (no sign, exponent,
 * fraction or spaces, all of which Lua's tonumber would take), few enough to be exact.
 */
const READ_COUNTER = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
if #raw > 15 or not string.match(raw, '^%d+$') then ${luaDamaged(1, `'it holds ' .. ${luaQuoted('raw')}`)} end
return tonumber(raw)`;

/** Hands out up to ARGV[1] pages of a budget of ARGV[2] (at least ARGV[3], at most a ARGV[4]-th of what is left). */
const TAKE = `
local used = (function() ${READ_COUNTER} end)()
if type(used) == 'table' then return used end
local left = tonumber(ARGV[2]) - used
local n = math.min(tonumber(ARGV[1]), math.max(tonumber(ARGV[3]), math.floor(left / tonumber(ARGV[4]))), left)
if n <= 0 then return 0 end
redis.call('INCRBY', KEYS[1], n)
return n`;

/**
 * Gives ARGV[1] pages back, never taking the counter below 0: a counter reset while a
 * worker held an allowance (the cluster deleted and made again) would otherwise go negative
 * and let every worker take those pages twice.
 */
const GIVE_BACK = `
local used = (function() ${READ_COUNTER} end)()
if type(used) == 'table' then return used end
local back = math.min(tonumber(ARGV[1]), used)
if back > 0 then redis.call('DECRBY', KEYS[1], back) end
return back`;

export interface SharedBudgetOptions {
  /** Told when the counter is damaged (at each failed ask, so at most every MAX_RETRY_MS once it stays so). Default: nobody. */
  onDamage?: DamageReport;
}

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
  readonly #onDamage: DamageReport;
  /** No ask before this time (performance.now()): the last one failed. */
  #retryAt = Number.NEGATIVE_INFINITY;
  #retryMs = 0;

  constructor(redis: Redis, keys: ClusterKeys, maxPages: number, options: SharedBudgetOptions = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#maxPages = maxPages;
    this.#onDamage = options.onDamage ?? (() => undefined);
  }

  /** The budget as one shard's engine sees it; `wake` is called when pages come after it found none. */
  forShard(wake: () => void): PageBudget {
    return {
      available: () => {
        const n = this.#available();
        if (n === 0) this.#waiting.add(wake);
        return n;
      },
      spent: () => this.spent,
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

  /**
   * Gives the allowance back to the crawl (the worker is idle or leaving). A damaged
   * counter takes none of it: those pages are not spent by anyone.
   */
  async returnAllowance(): Promise<void> {
    const n = this.#allowance;
    if (n <= 0) return;
    this.#allowance = 0;
    this.#chunk = MIN_CHUNK;
    try {
      await this.#redis.eval(GIVE_BACK, 1, this.#keys.budgetUsed, n);
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#damaged(err);
      return;
    }
    this.#exhausted = false;
  }

  /** Whether Redis has handed out the whole budget; a damaged counter reads as not (and is reported). */
  async handedOut(): Promise<boolean> {
    try {
      return (await this.#redis.eval(READ_COUNTER, 1, this.#keys.budgetUsed)) as number >= this.#maxPages;
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      this.#damaged(err);
      return false;
    }
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
    const now = performance.now();
    if (this.#refilling || this.#exhausted || now < this.#retryAt) return;
    this.#refilling = true;
    this.#chunk = now - this.#lastRefillAt < FAST_REFILL_MS ? Math.min(MAX_CHUNK, this.#chunk * 2) : Math.max(MIN_CHUNK, this.#chunk / 2);
    this.#lastRefillAt = now;
    (this.#redis.eval(TAKE, 1, this.#keys.budgetUsed, this.#chunk, this.#maxPages, MIN_CHUNK, FAIR_SHARE) as Promise<number>).then(
      (n) => {
        this.#refilling = false;
        this.#retryMs = 0;
        if (n === 0) this.#exhausted = true;
        this.#allowance += n;
        // Pages came, or the budget is spent for good: either way the shards that asked look again (revisits go on past the budget).
        this.#wakeWaiting();
      },
      (err: unknown) => {
        // A damaged counter, or Redis away (the worker's connection reconnects): the next ask waits.
        this.#refilling = false;
        if (isKeyDamage(err)) this.#damaged(err);
        this.#retryLater();
      },
    );
  }

  /** No ask for a while, longer after each failure in a row; then the shards that found no pages look again. */
  #retryLater(): void {
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs === 0 ? FIRST_RETRY_MS : this.#retryMs * 2);
    this.#retryAt = performance.now() + this.#retryMs;
    setTimeout(() => this.#wakeWaiting(), this.#retryMs).unref();
  }

  #damaged(err: Error): void {
    const key = this.#keys.budgetUsed;
    this.#onDamage({
      key,
      expected: 'the whole number of pages handed out so far (0 or more)',
      found: foundBy(err),
      meanwhile: 'no page of the budget is handed out or given back',
      repair: `set it to the pages stored so far (redis-cli SET ${key} N, with N from \`forager cluster status\`)`,
    });
  }

  #wakeWaiting(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const wake of waiting) wake();
  }
}
