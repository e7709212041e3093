import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ClusterKeys } from './cluster-keys.ts';

/*
 * Who is crawling: each worker's heartbeat is its score in a sorted set (when it expires),
 * and its last status is a key that expires with it. A worker that stops beating drops out
 * of the live set after one lease time, and the others then share its partitions.
 */

/** Links a worker's shards hold for a partition whose stream is full (cluster/link-traffic.ts). */
export interface HeldLinks {
  partition: number;
  links: number;
}

export interface WorkerStatus {
  id: string;
  /** Statuses published so far: a later one says more about the worker than an earlier one. */
  seq: number;
  /** Rises with everything the worker does (pages stored, links admitted and sent): unchanged means it did nothing meanwhile. */
  activity: number;
  host: string;
  /** Where its shards live (ClusterWorker's home): workers of one home may hand partitions to each other. */
  home: string;
  pid: number;
  startedAt: number;
  /** Partitions leased, and shards open among them. */
  partitions: number;
  shards: number;
  pagesStored: number;
  pagesPerSecond: number;
  queued: number;
  inProgress: number;
  /** Links in its shards' outboxes, not yet sent. */
  outbox: number;
  /** Of them, those held for partitions whose streams are full (a worker of an earlier version says nothing of them). */
  heldBack?: HeldLinks[];
  idle: boolean;
  allowance: number;
  budgetSpent: boolean;
  paused: boolean;
  errors: number;
  lastError?: string;
}

/** Links a worker's shards hold for partitions whose streams are full. */
export function linksHeldBy(status: WorkerStatus): number {
  return (status.heldBack ?? []).reduce((n, h) => n + h.links, 0);
}

/** A published status as read back: whatever the key holds must have these fields, of these types. */
const workerStatusSchema = z.object({
  id: z.string(),
  seq: z.number(),
  activity: z.number(),
  host: z.string(),
  home: z.string(),
  pid: z.number(),
  startedAt: z.number(),
  partitions: z.number(),
  shards: z.number(),
  pagesStored: z.number(),
  pagesPerSecond: z.number(),
  queued: z.number(),
  inProgress: z.number(),
  outbox: z.number(),
  heldBack: z.array(z.object({ partition: z.number(), links: z.number() })).optional(),
  idle: z.boolean(),
  allowance: z.number(),
  budgetSpent: z.boolean(),
  paused: z.boolean(),
  errors: z.number(),
  lastError: z.string().optional(),
});

/** The live workers' statuses that could be read, and how many could not. */
export interface LiveWorkers {
  workers: WorkerStatus[];
  /** Statuses left out: not JSON, fields missing or of the wrong type, or another worker's id. */
  unreadable: number;
}

/** How many partitions a worker should hold: an even share, the first workers (by id) taking one more. */
export function partitionsFor(worker: string, live: readonly string[], partitions: number): number {
  const workers = live.includes(worker) ? [...live].sort() : [...live, worker].sort();
  const base = Math.floor(partitions / workers.length);
  const extra = partitions % workers.length;
  return workers.indexOf(worker) < extra ? base + 1 : base;
}

export class WorkerRegistry {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #worker: string;
  readonly #ttlMs: number;

  constructor(redis: Redis, keys: ClusterKeys, worker: string, ttlMs: number) {
    this.#redis = redis;
    this.#keys = keys;
    this.#worker = worker;
    this.#ttlMs = ttlMs;
  }

  /** Beats, forgets workers whose heartbeat expired, and returns the live ones' ids. */
  async beat(): Promise<string[]> {
    const now = await serverTime(this.#redis);
    const replies = await this.#redis
      .pipeline()
      .zadd(this.#keys.workers, String(now + this.#ttlMs), this.#worker)
      .zremrangebyscore(this.#keys.workers, '-inf', now)
      .zrange(this.#keys.workers, '0', '-1')
      .exec();
    const live = replies?.[2]?.[1];
    return Array.isArray(live) ? (live as string[]) : [this.#worker];
  }

  async publish(status: WorkerStatus): Promise<void> {
    await this.#redis.set(this.#keys.workerStatus(this.#worker), JSON.stringify(status), 'PX', this.#ttlMs);
  }

  /** The live workers' last statuses. */
  view(): Promise<LiveWorkers> {
    return liveWorkers(this.#redis, this.#keys);
  }

  async leave(): Promise<void> {
    await this.#redis.pipeline().zrem(this.#keys.workers, this.#worker).del(this.#keys.workerStatus(this.#worker)).exec();
  }
}

/** The live workers' statuses (a worker that has not published one yet is left out, as is one whose status is damaged). */
export async function liveWorkers(redis: Redis, keys: ClusterKeys): Promise<LiveWorkers> {
  const now = await serverTime(redis);
  const ids = await redis.zrangebyscore(keys.workers, now, '+inf');
  if (ids.length === 0) return { workers: [], unreadable: 0 };
  const texts = await redis.mget(...ids.map((id) => keys.workerStatus(id)));
  const live: LiveWorkers = { workers: [], unreadable: 0 };
  for (const [i, text] of texts.entries()) {
    if (text === null) continue;
    const status = parseWorkerStatus(text, ids[i] as string);
    if (status === undefined) live.unreadable++;
    else live.workers.push(status);
  }
  return live;
}

/** A worker's status from its key's text, or undefined when the text is not a status of that worker. */
function parseWorkerStatus(text: string, id: string): WorkerStatus | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const checked = workerStatusSchema.safeParse(parsed);
  return checked.success && checked.data.id === id ? checked.data : undefined;
}

/** Redis's clock in ms: heartbeats from several machines compare against one clock. */
async function serverTime(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}
