/*
 * A crawl cluster's status as the UI sees it (`forager serve --redis URL --cluster NAME`).
 * The cluster layer (crawler/cluster/cluster-status.ts) reads it from Redis; the service maps
 * it to these shapes, so the wire carries only what the screen shows and the contract stays
 * free of Redis.
 */

export type ClusterRunState = 'running' | 'paused' | 'stopped' | 'finished';

/** One live worker, as its last published status says. */
export interface ClusterWorkerView {
  id: string;
  host: string;
  pid: number;
  /** Partitions leased, and shards open among them. */
  partitions: number;
  shards: number;
  pagesStored: number;
  pagesPerSecond: number;
  queued: number;
  idle: boolean;
  paused: boolean;
  errors: number;
  lastError: string | null;
}

export interface ClusterStatusView {
  name: string;
  query: string;
  state: ClusterRunState;
  partitions: number;
  /** Partitions some live worker leases now. */
  leased: number;
  maxPages: number;
  /** Pages of the budget handed to workers. */
  budgetUsed: number;
  pagesStored: number;
  pagesPerSecond: number;
  queued: number;
  /** Link batches waiting in the partitions' streams. */
  streamBacklog: number;
  workers: ClusterWorkerView[];
  /** The latest errors the workers reported, newest first. */
  errors: string[];
}

/** What clusterStatus answers: a serve started without --redis/--cluster watches no cluster. */
export type ClusterStatusAnswer = { configured: false } | { configured: true; status: ClusterStatusView };
