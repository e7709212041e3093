import type { Redis } from 'ioredis';
import type { ClusterKeys } from './cluster-keys.ts';

/*
 * Partition leases. A lease is a key with an expiry whose value names the holder and the
 * lease's epoch ("worker:epoch"); acquiring one raises the partition's epoch, which the
 * shard's fence then holds against the previous owner (shard-fence.ts). Renewal and release
 * compare the value first, in Lua, so a worker never extends or drops a lease that passed
 * to another worker while it was away.
 */

const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. epoch, 'PX', ARGV[2])
return epoch`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Releases a lease and says until when its next owner should leave the partition's hosts alone. */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1`;

export interface Lease {
  partition: number;
  epoch: number;
}

export class PartitionLeases {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #worker: string;
  readonly #leaseMs: number;

  constructor(redis: Redis, keys: ClusterKeys, worker: string, leaseMs: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#worker = worker;
    this.#leaseMs = leaseMs;
  }

  /**
   * The partitions leased by nobody now that may live at `home` (one round trip): those whose
   * shard is there already, and those that have no shard anywhere yet.
   */
  async free(partitions: number, home: string): Promise<{ homedHere: number[]; homeless: number[] }> {
    const all = Array.from({ length: partitions }, (_, p) => p);
    const [holders, homes] = await Promise.all([this.#redis.mget(...all.map((p) => this.#keys.lease(p))), this.#redis.mget(...all.map((p) => this.#keys.home(p)))]);
    const unleased = all.filter((p) => holders[p] === null);
    return { homedHere: unleased.filter((p) => homes[p] === home), homeless: unleased.filter((p) => homes[p] === null) };
  }

  /**
   * Makes `home` the home of partitions whose shard is about to be made, unless they have one
   * already; returns those whose home is another one (their shard is elsewhere: leave them).
   */
  async claimHomes(partitions: readonly number[], home: string): Promise<number[]> {
    if (partitions.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) {
      pipeline.set(this.#keys.home(p), home, 'NX');
      pipeline.get(this.#keys.home(p));
    }
    const replies = (await pipeline.exec()) ?? [];
    return partitions.filter((_, i) => {
      const [err, value] = replies[i * 2 + 1] ?? [null, null];
      if (err !== null) throw err;
      return value !== home;
    });
  }

  /** Tries to lease each partition; returns the ones leased, with their epochs. */
  async acquire(partitions: readonly number[]): Promise<Lease[]> {
    if (partitions.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) pipeline.eval(ACQUIRE, 2, this.#keys.lease(p), this.#keys.epoch(p), this.#worker, this.#leaseMs);
    const replies = (await pipeline.exec()) ?? [];
    const leases: Lease[] = [];
    replies.forEach(([err, epoch], i) => {
      if (err === null && typeof epoch === 'number' && epoch > 0) leases.push({ partition: partitions[i] as number, epoch });
    });
    return leases;
  }

  /** Renews the leases held; returns those that are no longer this worker's (expired, or taken over). */
  async renew(leases: readonly Lease[]): Promise<Lease[]> {
    if (leases.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const lease of leases) pipeline.eval(RENEW, 1, this.#keys.lease(lease.partition), this.#holder(lease), this.#leaseMs);
    const replies = (await pipeline.exec()) ?? [];
    return leases.filter((_, i) => {
      const [err, renewed] = replies[i] ?? [null, 0];
      return err === null && renewed !== 1;
    });
  }

  /** Gives a lease up (its shard closed); the next owner waits `quietMs` before asking the partition's hosts. */
  async release(lease: Lease, quietMs: number): Promise<void> {
    const until = Date.now() + quietMs;
    await this.#redis.eval(RELEASE, 2, this.#keys.lease(lease.partition), this.#keys.quietUntil(lease.partition), this.#holder(lease), String(until), Math.max(1, quietMs));
  }

  #holder(lease: Lease): string {
    return `${this.#worker}:${lease.epoch}`;
  }
}
