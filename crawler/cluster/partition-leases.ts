import type { Redis } from 'ioredis';
import type { ClusterKeys } from './cluster-keys.ts';
import { damagedKeyIndex, foundBy, isKeyDamage, luaDamaged, luaQuoted, throwDamage, type DamageReport } from './redis-damage.ts';

/*
 * Partition leases. A lease is a key with an expiry whose value names the holder and the
 * lease's epoch ("worker:epoch"); acquiring one raises the partition's epoch, which the
 * shard's fence then holds against the previous owner (shard-fence.ts). Renewal and release
 * compare the value first, in Lua, so a worker never extends or drops a lease that passed
 * to another worker while it was away.
 *
 * The scripts check what they read: a lease key that is not a holder with an expiry (it
 * would never pass on), or an epoch that is not a whole number, is damage, answered with an
 * error naming the key rather than taken for a lease someone holds.
 */

/** Lua: the damage of a lease key (KEYS[1]) other than a missing one, if any. */
const CHECK_LEASE = `
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'none' and kind ~= 'string' then ${luaDamaged(1, `'it is a ' .. kind`)} end
if kind == 'string' then
  local holder = redis.call('GET', KEYS[1])
  if not string.match(holder, '^.+:%d+$') then ${luaDamaged(1, `'it holds ' .. ${luaQuoted('holder')}`)} end
  if redis.call('PTTL', KEYS[1]) < 0 then ${luaDamaged(1, `'it has no expiry'`)} end
end`;

const ACQUIRE = `
${CHECK_LEASE}
if kind == 'string' then return 0 end
local last = redis.call('TYPE', KEYS[2]).ok
if last ~= 'none' and last ~= 'string' then ${luaDamaged(2, `'it is a ' .. last`)} end
if last == 'string' then
  local epoch = redis.call('GET', KEYS[2])
  if #epoch > 15 or not string.match(epoch, '^%d+$') then ${luaDamaged(2, `'it holds ' .. ${luaQuoted('epoch')}`)} end
end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. epoch, 'PX', ARGV[2])
return epoch`;

const RENEW = `
${CHECK_LEASE}
if kind == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Releases a lease and says until when its next owner should leave the partition's hosts alone; a damaged lease key is no one's to release. */
const RELEASE = `
if redis.call('TYPE', KEYS[1]).ok ~= 'string' or redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
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
  readonly #onDamage: DamageReport;

  /** `onDamage` is told of a damaged lease, epoch or home key (default: a ClusterError); the other partitions go on. */
  constructor(redis: Redis, keys: ClusterKeys, worker: string, leaseMs: number, onDamage: DamageReport = throwDamage(keys.name)) {
    this.#redis = redis;
    this.#keys = keys;
    this.#worker = worker;
    this.#leaseMs = leaseMs;
    this.#onDamage = onDamage;
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
   * A damaged home key is reported and its partition left out of both: its home is not known.
   */
  async claimHomes(partitions: readonly number[], home: string): Promise<number[]> {
    if (partitions.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) {
      pipeline.set(this.#keys.home(p), home, 'NX');
      pipeline.get(this.#keys.home(p));
    }
    const replies = (await pipeline.exec()) ?? [];
    return partitions.filter((partition, i) => {
      const [err, value] = replies[i * 2 + 1] ?? [null, null];
      if (err === null) return value !== home;
      if (!isKeyDamage(err)) throw err;
      this.#onDamage({
        key: this.#keys.home(partition),
        partition,
        expected: 'the name of the home where the partition\'s shard lives',
        found: foundBy(err),
        meanwhile: 'no worker makes or opens the partition\'s shard',
        repair: `set it to the home of the worker whose --dir holds shard ${partition} (redis-cli SET ${this.#keys.home(partition)} HOME), or delete it if no shard of it exists yet`,
      });
      return false;
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
      const partition = partitions[i] as number;
      if (err === null && typeof epoch === 'number' && epoch > 0) leases.push({ partition, epoch });
      else if (err !== null && isKeyDamage(err)) this.#damaged(partition, err);
    });
    return leases;
  }

  /** Renews the leases held; returns those that are no longer this worker's (expired, or taken over). */
  async renew(leases: readonly Lease[]): Promise<Lease[]> {
    if (leases.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const lease of leases) pipeline.eval(RENEW, 1, this.#keys.lease(lease.partition), this.#holder(lease), this.#leaseMs);
    const replies = (await pipeline.exec()) ?? [];
    return leases.filter((lease, i) => {
      const [err, renewed] = replies[i] ?? [null, 0];
      if (err === null) return renewed !== 1;
      // A damaged lease key holds no lease of this worker's any more.
      if (!isKeyDamage(err)) return false;
      this.#damaged(lease.partition, err);
      return true;
    });
  }

  /** Gives a lease up (its shard closed); the next owner waits `quietMs` before asking the partition's hosts. */
  async release(lease: Lease, quietMs: number): Promise<void> {
    const until = Date.now() + quietMs;
    await this.#redis.eval(RELEASE, 2, this.#keys.lease(lease.partition), this.#keys.quietUntil(lease.partition), this.#holder(lease), String(until), Math.max(1, quietMs));
  }

  /** A lease script found the partition's lease key (its KEYS[1]) or epoch key (KEYS[2]) damaged. */
  #damaged(partition: number, err: Error): void {
    const epoch = damagedKeyIndex(err) === 2;
    const key = epoch ? this.#keys.epoch(partition) : this.#keys.lease(partition);
    this.#onDamage({
      key,
      partition,
      expected: epoch ? 'the partition\'s lease epoch, a whole number' : 'a lease, "worker:epoch" with an expiry',
      found: foundBy(err),
      meanwhile: 'no worker can lease the partition, and its shard is not crawled',
      // A shard refuses an owner whose epoch is not above the last it saw: a billion is above any a crawl reaches.
      repair: epoch ? `redis-cli SET ${key} 1000000000` : `delete it (redis-cli DEL ${key}): the next worker leases it`,
    });
  }

  #holder(lease: Lease): string {
    return `${this.#worker}:${lease.epoch}`;
  }
}
