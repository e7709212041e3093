import type { Redis } from 'ioredis';
import { ClusterError, ForagerError } from '../errors.ts';
import type { ClusterRunState } from '../protocol/cluster-status.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { ImportedCookie } from '../net/cookies-txt.ts';
import { validateSettings } from '../settings.ts';
import { PARTITIONS } from '../store/shard-names.ts';
import { ClusterKeys } from './cluster-keys.ts';
import { LinkStreams } from './link-streams.ts';

/*
 * A cluster's crawl is defined once, by `forager cluster create`: its settings (the same
 * schema as `forager crawl`), its number of partitions and its lease time, and the cookies
 * of `--cookies` (values included: a cluster's Redis holds the session each new shard starts
 * with). Every worker reads it when it joins; nothing changes it afterwards, so workers never
 * disagree.
 */

export interface ClusterDefinition {
  name: string;
  settings: CrawlSettings;
  partitions: number;
  /** How long a partition's lease lasts without renewal: a dead worker's partitions move after it. */
  leaseMs: number;
  createdAt: number;
  /** The session every shard's jar starts with (a cookies.txt's cookies); empty without one. */
  cookies: ImportedCookie[];
}

export const DEFAULT_LEASE_MS = 10_000;
/** The lease times `cluster create` accepts, and so the only ones a definition may hold. */
export const MIN_LEASE_MS = 500;
export const MAX_LEASE_MS = 600_000;

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
export async function createCluster(redis: Redis, name: string, settings: CrawlSettings, leaseMs = DEFAULT_LEASE_MS, cookies: ImportedCookie[] = []): Promise<ClusterDefinition> {
  const keys = new ClusterKeys(checkClusterName(name));
  const definition: ClusterDefinition = { name, settings, partitions: PARTITIONS, leaseMs, createdAt: Date.now(), cookies };
  const created = await redis.set(keys.definition, JSON.stringify(definition), 'NX');
  if (created === null) throw new ClusterError(`a cluster named "${name}" exists already on this Redis; pick another --name, or remove it with forager cluster delete`, { name });
  await redis.set(keys.state, 'running');
  await new LinkStreams(redis, keys).send(settings.seeds.map((url) => ({ url, depth: 0, anchor: '', context: '', isSeed: true })));
  return definition;
}

/** Reads a cluster's definition; one that is missing, damaged or from another version is a ClusterError saying so. */
export async function loadCluster(redis: Redis, name: string): Promise<ClusterDefinition> {
  const keys = new ClusterKeys(checkClusterName(name));
  const text = await redis.get(keys.definition);
  if (text === null) throw new ClusterError(`no cluster named "${name}" on this Redis; create it with forager cluster create`, { name });
  return parseDefinition(name, text);
}

function damaged(name: string, what: string, cause?: unknown): ClusterError {
  return new ClusterError(`the definition of cluster "${name}" in Redis ${what}; remove it with forager cluster delete`, { name }, { cause });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The definition's text checked field by field: it is whatever Redis holds, not necessarily what create wrote. */
function parseDefinition(name: string, text: string): ClusterDefinition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw damaged(name, 'is not JSON', err);
  }
  if (!isRecord(parsed)) throw damaged(name, 'is not a JSON object');
  const { partitions, leaseMs, createdAt } = parsed;
  if (partitions !== PARTITIONS || typeof leaseMs !== 'number' || typeof createdAt !== 'number') {
    throw damaged(name, 'is not one this version of Forager reads');
  }
  if (!Number.isInteger(leaseMs) || leaseMs < MIN_LEASE_MS || leaseMs > MAX_LEASE_MS) throw damaged(name, `has a lease time outside ${MIN_LEASE_MS}-${MAX_LEASE_MS} ms`);
  return { name, settings: definitionSettings(name, parsed.settings), partitions, leaseMs, createdAt, cookies: definitionCookies(name, parsed.cookies) };
}

/** A definition written before clusters carried a session has none. */
function definitionCookies(name: string, cookies: unknown): ImportedCookie[] {
  if (cookies === undefined) return [];
  if (!Array.isArray(cookies) || !cookies.every(isImportedCookie)) throw damaged(name, 'has cookies this version of Forager cannot read');
  return cookies;
}

function isImportedCookie(value: unknown): value is ImportedCookie {
  if (!isRecord(value)) return false;
  const { domain, includeSubdomains, path, secure, httpOnly, expiresAt, name, value: cookieValue } = value;
  return (
    typeof domain === 'string' && typeof path === 'string' && typeof name === 'string' && typeof cookieValue === 'string' &&
    typeof includeSubdomains === 'boolean' && typeof secure === 'boolean' && typeof httpOnly === 'boolean' &&
    (expiresAt === undefined || typeof expiresAt === 'number')
  );
}

function definitionSettings(name: string, settings: unknown): CrawlSettings {
  if (!isRecord(settings)) throw damaged(name, 'has no settings');
  try {
    return validateSettings(settings as unknown as CrawlSettings);
  } catch (err) {
    // The setting's name, not its value: the value is Redis's text, and the message goes to a terminal.
    const setting = err instanceof ForagerError && typeof err.context.setting === 'string' ? ` (${JSON.stringify(err.context.setting)})` : '';
    throw damaged(name, `has settings this version of Forager cannot use${setting}`, err);
  }
}

/**
 * Removes every key of a cluster, its definition damaged or not; the shards in the workers'
 * --dir stay. Returns how many keys went; a name with no key at all is a ClusterError.
 */
export async function deleteCluster(redis: Redis, name: string): Promise<number> {
  const keys = new ClusterKeys(checkClusterName(name));
  let removed = 0;
  for await (const batch of redis.scanStream({ match: keys.pattern, count: 500 }) as AsyncIterable<string[]>) {
    if (batch.length > 0) removed += await redis.del(...batch);
  }
  if (removed === 0) throw new ClusterError(`no cluster named "${name}" on this Redis: nothing to delete`, { name });
  return removed;
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
