import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ClusterError } from '../errors.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { clusterState } from './cluster-definition.ts';

/*
 * A cluster's refresh (`forager refresh --cluster`): one request in Redis that every worker
 * applies to each shard it holds. Each shard revisits its pages last checked before `since`
 * (and fetches the new URLs their changed versions link to), as `forager refresh` does one
 * collection; the fetches are counted against one budget shared by every shard, a Redis
 * counter handed out in chunks as the crawl's page budget is. A partition is marked done
 * when its shard has no due page left or the budget is all handed out. A new request
 * replaces the last one, done or not.
 */

export interface ClusterRefresh {
  id: string;
  /** Pages checked at or after this time (epoch ms) are not revisited. */
  since: number;
  /** Fetches (revisits and new pages) of every shard together. */
  maxFetches: number;
  requestedAt: number;
}

/** How far a refresh has come, for `cluster status`. */
export interface RefreshProgress extends ClusterRefresh {
  /** Fetches handed out to shards (those of refreshes still running included). */
  fetches: number;
  partitionsDone: number;
}

/** Hands out up to ARGV[1] fetches of a budget of ARGV[2]; -1 when the counter is not a whole number (damaged: nothing is handed out). */
const TAKE = `
local raw = redis.call('GET', KEYS[1])
local used = 0
if raw then
  if #raw > 15 or not string.match(raw, '^%d+$') then return -1 end
  used = tonumber(raw)
end
local n = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - used)
if n <= 0 then return 0 end
redis.call('INCRBY', KEYS[1], n)
return n`;

/** Gives ARGV[1] fetches back, never below 0 (the request was replaced meanwhile and its counter reset). */
const GIVE_BACK = `
local raw = redis.call('GET', KEYS[1])
if not raw or #raw > 15 or not string.match(raw, '^%d+$') then return 0 end
local back = math.min(tonumber(ARGV[1]), tonumber(raw))
if back > 0 then redis.call('DECRBY', KEYS[1], back) end
return back`;

/**
 * Records a new refresh for the workers, replacing the last one (its counter and the
 * partitions it marked done go with it). A finished crawl is set running again so that its
 * workers, started again, apply it; a paused or stopped one stays so.
 */
export async function requestRefresh(redis: Redis, keys: ClusterKeys, wanted: { since: number; maxFetches: number }): Promise<ClusterRefresh> {
  const refresh: ClusterRefresh = { id: randomBytes(4).toString('hex'), since: wanted.since, maxFetches: wanted.maxFetches, requestedAt: Date.now() };
  const finished = (await clusterState(redis, keys)) === 'finished';
  const multi = redis.multi().del(keys.refreshUsed, keys.refreshDone).set(keys.refresh, JSON.stringify(refresh));
  if (finished) multi.set(keys.state, 'running');
  await multi.exec();
  return refresh;
}

/** The refresh last asked for, or undefined; one whose JSON is not a refresh's is a ClusterError naming the key. */
export async function readRefresh(redis: Redis, keys: ClusterKeys): Promise<ClusterRefresh | undefined> {
  const text = await redis.get(keys.refresh);
  if (text === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isRefresh(parsed)) throw new ClusterError(`${keys.refresh} does not hold a refresh request; ask again with forager refresh --cluster ${keys.name}`, { key: keys.refresh });
  return parsed;
}

function isRefresh(value: unknown): value is ClusterRefresh {
  if (typeof value !== 'object' || value === null) return false;
  const { id, since, maxFetches, requestedAt } = value as Record<string, unknown>;
  return (
    typeof id === 'string' && /^[0-9a-f]{1,16}$/.test(id) && Number.isSafeInteger(since) && Number.isSafeInteger(requestedAt) &&
    Number.isSafeInteger(maxFetches) && (maxFetches as number) >= 1
  );
}

/** The refresh's progress, or undefined when none was asked for. */
export async function refreshProgress(redis: Redis, keys: ClusterKeys): Promise<RefreshProgress | undefined> {
  const refresh = await readRefresh(redis, keys);
  if (refresh === undefined) return undefined;
  const [used, done] = await Promise.all([redis.get(keys.refreshUsed), redis.scard(keys.refreshDone)]);
  const fetches = Number(used ?? 0);
  return { ...refresh, fetches: Number.isFinite(fetches) ? fetches : 0, partitionsDone: done };
}

/** Takes up to `wanted` fetches of the refresh's budget: 0 when it is all handed out, undefined when its counter is damaged. */
export async function takeFetches(redis: Redis, keys: ClusterKeys, refresh: ClusterRefresh, wanted: number): Promise<number | undefined> {
  const n = (await redis.eval(TAKE, 1, keys.refreshUsed, wanted, refresh.maxFetches)) as number;
  return n < 0 ? undefined : n;
}

/** Fetches a shard took and did not spend go back to the refresh's budget. */
export async function giveBackFetches(redis: Redis, keys: ClusterKeys, n: number): Promise<void> {
  if (n > 0) await redis.eval(GIVE_BACK, 1, keys.refreshUsed, n);
}

/** The partitions the refresh is done with. */
export async function refreshDonePartitions(redis: Redis, keys: ClusterKeys): Promise<Set<number>> {
  return new Set((await redis.smembers(keys.refreshDone)).map(Number).filter(Number.isInteger));
}

export async function markRefreshDone(redis: Redis, keys: ClusterKeys, partition: number): Promise<void> {
  await redis.sadd(keys.refreshDone, partition);
}
