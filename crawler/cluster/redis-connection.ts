import { Redis } from 'ioredis';
import { ClusterError } from '../errors.ts';

/*
 * Connections to a cluster's Redis. A command (create, status, pause…) fails at once with a
 * clear message when Redis cannot be reached; a worker instead waits and reconnects, its
 * commands queued meanwhile, since nothing it committed to its shards depends on Redis.
 */

const COMMAND_CONNECT_TIMEOUT_MS = 3000;
const MAX_RECONNECT_WAIT_MS = 2000;

function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return url;
  }
}

/** Whether a --redis value is a Redis URL (redis:// or rediss://). */
export function isRedisUrl(url: string): boolean {
  const protocol = URL.parse(url)?.protocol;
  return protocol === 'redis:' || protocol === 'rediss:';
}

function checkUrl(url: string): void {
  if (!isRedisUrl(url)) throw new ClusterError(`--redis ${url} is not a Redis URL (expected redis://HOST:PORT)`, { url });
}

/** A connection for one command: refused or unreachable Redis is an error, now. */
export async function connectForCommand(url: string): Promise<Redis> {
  checkUrl(url);
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: COMMAND_CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 1, retryStrategy: () => null, enableOfflineQueue: false });
  // Errors are reported by connect() below; without a listener ioredis would print them too.
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    const why = err instanceof Error ? err.message : String(err);
    throw new ClusterError(`cannot reach Redis at ${describe(url)} (${why}); start it (redis-server --port N) or check --redis`, { url }, { cause: err });
  }
  return redis;
}

export interface WorkerConnectionEvents {
  /** Redis went away (once per outage). */
  lost(why: string): void;
  /** Redis answers again. */
  back(): void;
}

/** A worker's connection: it reconnects for as long as it takes, and its commands wait meanwhile. */
export function connectForWorker(url: string, events: WorkerConnectionEvents): Redis {
  checkUrl(url);
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_WAIT_MS),
    enableOfflineQueue: true,
  });
  let down = false;
  const lost = (why: string): void => {
    if (down) return;
    down = true;
    events.lost(why);
  };
  redis.on('error', (err: Error) => lost(err.message));
  // A server that shuts down closes the connection without an error.
  redis.on('close', () => lost('connection closed'));
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    events.back();
  });
  return redis;
}
