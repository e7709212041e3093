import type { Redis } from 'ioredis';
import { ClusterError } from '../errors.ts';
import { ClusterKeys } from './cluster-keys.ts';
import { clusterState, loadCluster, type ClusterState } from './cluster-definition.ts';
import { refreshProgress, type RefreshProgress } from './cluster-refresh.ts';
import { LinkStreams } from './link-streams.ts';
import { liveWorkers, type HeldLinks, type WorkerStatus } from './worker-registry.ts';

/** What `forager cluster status` and `forager serve` show of a running cluster. */
export interface ClusterStatus {
  name: string;
  query: string;
  state: ClusterState;
  /** How long after its last check each stored page is revisited ('' never): a cluster that revisits runs until stopped. */
  revisitAfter: string;
  partitions: number;
  /** Partitions some live worker leases now. */
  leased: number;
  maxPages: number;
  /** Pages of the budget handed to workers (stored, in progress, or in a worker's hand). */
  budgetUsed: number;
  /** Pages the workers stored in the shards (counted as they report, each second). */
  pagesStored: number;
  pagesPerSecond: number;
  queued: number;
  /** Link batches waiting in the partitions' streams (sent, not yet admitted by their owners). */
  streamBacklog: number;
  /** Links the workers' outboxes hold for partitions whose streams are full, by partition. */
  heldBack: HeldLinks[];
  workers: WorkerStatus[];
  /** Live workers whose status could not be read (damaged in Redis): left out of the figures above. */
  unreadableWorkers: number;
  /** The latest errors the workers reported, newest first. */
  errors: string[];
  /** The refresh last asked for (`forager refresh --cluster`) and how far it has come; absent when none was. */
  refresh?: RefreshProgress;
}

export async function readClusterStatus(redis: Redis, name: string): Promise<ClusterStatus> {
  const definition = await loadCluster(redis, name);
  const keys = new ClusterKeys(name);
  const partitions = Array.from({ length: definition.partitions }, (_, p) => p);
  const [state, live, leases, streamBacklog, counters, errors, refresh] = await Promise.all([
    clusterState(redis, keys),
    liveWorkers(redis, keys),
    redis.mget(...partitions.map((p) => keys.lease(p))),
    new LinkStreams(redis, keys).backlog(definition.partitions),
    redis.mget(keys.budgetUsed, keys.pagesStored),
    redis.lrange(keys.errors, 0, 9),
    // A damaged refresh request leaves the rest of the status to show (the workers say the damage).
    refreshProgress(redis, keys).catch((err: unknown) => (err instanceof ClusterError ? undefined : Promise.reject(err))),
  ]);
  const [used, stored] = counters.map(counterValue) as [number, number];
  const { workers } = live;
  return {
    name,
    query: definition.settings.query,
    state,
    revisitAfter: definition.settings.revisitAfter,
    partitions: definition.partitions,
    leased: leases.filter((holder) => holder !== null).length,
    maxPages: definition.settings.maxPages,
    budgetUsed: used,
    pagesStored: stored,
    pagesPerSecond: workers.reduce((n, w) => n + w.pagesPerSecond, 0),
    queued: workers.reduce((n, w) => n + w.queued, 0),
    streamBacklog,
    heldBack: heldBackOf(workers),
    workers,
    unreadableWorkers: live.unreadable,
    errors,
    ...(refresh === undefined ? {} : { refresh }),
  };
}

/** The workers' held links, summed by partition. */
function heldBackOf(workers: readonly WorkerStatus[]): HeldLinks[] {
  const held = new Map<number, number>();
  for (const w of workers) for (const h of w.heldBack ?? []) held.set(h.partition, (held.get(h.partition) ?? 0) + h.links);
  return [...held].sort(([a], [b]) => a - b).map(([partition, links]) => ({ partition, links }));
}

/** A counter as Redis holds it; one that is not a number (damaged) counts as nothing. */
function counterValue(text: string | null): number {
  const n = Number(text ?? 0);
  return Number.isFinite(n) ? n : 0;
}

/** Text from Redis on a line of its own: a newline or tab in it would start another (writeOut handles every other control character). */
function field(text: string): string {
  return text.replace(/[\n\t]/g, '\uFFFD');
}

/** A cluster refresh's progress in one line. */
function refreshLine(refresh: RefreshProgress, partitions: number): string {
  const state = refresh.partitionsDone >= partitions ? 'done' : 'in progress';
  return `refresh ${field(refresh.id)} (pages checked before ${new Date(refresh.since).toISOString()}): ${state}, ${refresh.partitionsDone}/${partitions} partitions done, ${refresh.fetches}/${refresh.maxFetches} fetches`;
}

/** The status in a few lines, for a terminal. */
export function formatClusterStatus(status: ClusterStatus): string {
  const lines = [
    `cluster "${status.name}" (${field(status.query)}): ${status.state}`,
    ...(status.revisitAfter === '' ? [] : [`revisits each page ${status.revisitAfter} after its last check: runs until stopped (forager cluster stop)`]),
    `pages stored ${status.pagesStored}, ${status.pagesPerSecond.toFixed(1)} pages/s; budget ${status.budgetUsed}/${status.maxPages} handed out; queued ${status.queued}`,
    `partitions leased ${status.leased}/${status.partitions}`,
    `stream backlog ${status.streamBacklog} batches of links`,
    ...status.heldBack.map((h) => `${h.links} links held for partition ${h.partition} (its stream is full)`),
    `${status.workers.length} worker(s):`,
    ...status.workers.map(
      (w) =>
        `  ${field(w.id)}  partitions ${w.partitions} (shards open ${w.shards})  pages ${w.pagesStored}  ${w.pagesPerSecond.toFixed(1)} pages/s  queued ${w.queued}  ${w.paused ? 'paused' : w.idle ? 'idle' : 'crawling'}${w.errors > 0 ? `  errors ${w.errors}` : ''}`,
    ),
  ];
  if (status.refresh !== undefined) lines.push(refreshLine(status.refresh, status.partitions));
  if (status.unreadableWorkers > 0) lines.push(`${status.unreadableWorkers} live worker(s) left out: their status in Redis is damaged`);
  if (status.errors.length > 0) lines.push('latest errors:', ...status.errors.slice(0, 5).map((e) => `  ${field(e)}`));
  return `${lines.join('\n')}\n`;
}
