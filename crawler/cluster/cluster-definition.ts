import type { Redis } from 'ioredis';
import { ClusterError } from '../errors.ts';
import type { ClusterRunState } from '../protocol/cluster-status.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { validateSettings } from '../settings.ts';
import { ClusterKeys } from './cluster-keys.ts';
import { PARTITIONS } from './partition.ts';
import { LinkStreams } from './link-streams.ts';

/*
 * A cluster's crawl is defined once, by `forager cluster create`: its settings (the same
 * schema as `forager crawl`), its number of partitions and its lease time. Every worker
 * reads it when it joins; nothing changes it afterwards, so workers never disagree.
 */

export interface ClusterDefinition {
  name: string;
  settings: CrawlSettings;
  partitions: number;
  /** How long a partition's lease lasts without renewal: a dead worker's partitions move after it. */
  leaseMs: number;
  createdAt: number;
}

export const DEFAULT_LEASE_MS = 10_000;

/** running, paused, stopped or finished: the contract's name for it, which the UI shows. */
export type ClusterState = ClusterRunState;

const STATES: readonly ClusterState[] = ['running', 'paused', 'stopped', 'finished'];

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkClusterName(name: string): string {
  if (!NAME.test(name)) throw new ClusterError(`cluster name "${name}" must be 1-64 letters, digits, dots, dashes or underscores`, { name });
  return name;
}

/**
 * Writes a new cluster's definition, sets it running and sends each seed to its partition.
 * A name already in use is refused: one Redis may hold several crawls, never two of one name.
 */
export async function createCluster(redis: Redis, name: string, settings: CrawlSettings, leaseMs = DEFAULT_LEASE_MS): Promise<ClusterDefinition> {
  const keys = new ClusterKeys(checkClusterName(name));
  const definition: ClusterDefinition = { name, settings, partitions: PARTITIONS, leaseMs, createdAt: Date.now() };
  const created = await redis.set(keys.definition, JSON.stringify(definition), 'NX');
  if (created === null) throw new ClusterError(`a cluster named "${name}" exists already on this Redis; pick another --name, or remove it with forager cluster delete`, { name });
  await redis.set(keys.state, 'running');
  await new LinkStreams(redis, keys).send(settings.seeds.map((url) => ({ url, depth: 0, anchor: '', context: '', isSeed: true })));
  return definition;
}

export async function loadCluster(redis: Redis, name: string): Promise<ClusterDefinition> {
  const keys = new ClusterKeys(checkClusterName(name));
  const text = await redis.get(keys.definition);
  if (text === null) throw new ClusterError(`no cluster named "${name}" on this Redis; create it with forager cluster create`, { name });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ClusterError(`the definition of cluster "${name}" in Redis is not JSON`, { name }, { cause: err });
  }
  const definition = parsed as ClusterDefinition;
  if (definition.partitions !== PARTITIONS || typeof definition.leaseMs !== 'number') throw new ClusterError(`the definition of cluster "${name}" is not one this version of Forager reads`, { name });
  return { ...definition, settings: validateSettings(definition.settings) };
}

export async function clusterState(redis: Redis, keys: ClusterKeys): Promise<ClusterState> {
  const state = await redis.get(keys.state);
  return STATES.includes(state as ClusterState) ? (state as ClusterState) : 'stopped';
}

/** Pause, resume or stop every worker: they read the state each second. A finished or stopped crawl is not resumed by pause. */
export async function setClusterState(redis: Redis, keys: ClusterKeys, wanted: 'running' | 'paused' | 'stopped'): Promise<ClusterState> {
  const now = await clusterState(redis, keys);
  if (now === 'finished') throw new ClusterError(`cluster "${keys.name}" has finished its crawl`, { name: keys.name });
  await redis.set(keys.state, wanted);
  return wanted;
}
