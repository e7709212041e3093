import type { Redis } from 'ioredis';
import { readClusterStatus, type ClusterStatus } from '../cluster/cluster-status.ts';
import { connectForCommand, redactRedis, redisHost } from '../cluster/redis-connection.ts';
import { ClusterError, ForagerError } from '../errors.ts';
import type { ClusterStatusView } from '../protocol/api.ts';

/*
 * The service's read-only view of one crawl cluster. It holds one Redis connection, made on
 * first use with the fail-fast settings of a CLI command (a poll must answer "unreachable"
 * at once, not queue behind a reconnect loop); a connection that broke is dropped and the
 * next poll connects again, so serve follows a Redis that restarts.
 */

export interface ClusterTarget {
  /** redis://HOST:PORT; never sent to the UI (it may hold a password). */
  redis: string;
  name: string;
}

export class ClusterWatch {
  readonly name: string;
  readonly #url: string;
  #redis: Redis | undefined;
  #connecting: Promise<Redis> | undefined;
  #closed = false;

  constructor(target: ClusterTarget) {
    this.name = target.name;
    this.#url = target.redis;
  }

  async status(): Promise<ClusterStatusView> {
    const redis = await this.#connection();
    try {
      return toView(await readClusterStatus(redis, this.name), (text) => redactRedis(text, this.#url));
    } catch (err) {
      if (redis.status !== 'ready') this.#drop(redis);
      // ClusterErrors (an unknown cluster) say it in words already; a broken connection does not.
      if (err instanceof ForagerError) throw err;
      const why = redactRedis(err instanceof Error ? err.message : String(err), this.#url);
      throw new ClusterError(`lost Redis at ${redisHost(this.#url)} while reading cluster "${this.name}" (${why})`, { name: this.name }, { cause: err });
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#redis !== undefined) this.#drop(this.#redis);
  }

  async #connection(): Promise<Redis> {
    if (this.#closed) throw new ClusterError('the service is shutting down', { name: this.name });
    if (this.#redis !== undefined && this.#redis.status === 'ready') return this.#redis;
    if (this.#redis !== undefined) this.#drop(this.#redis);
    // Polls that overlap share one attempt, so there is never more than one connection.
    this.#connecting ??= connectForCommand(this.#url).finally(() => (this.#connecting = undefined));
    const redis = await this.#connecting;
    if (this.#closed) {
      redis.disconnect();
      throw new ClusterError('the service is shutting down', { name: this.name });
    }
    this.#redis = redis;
    return redis;
  }

  #drop(redis: Redis): void {
    redis.disconnect();
    if (this.#redis === redis) this.#redis = undefined;
  }
}

/**
 * The contract's shape: only what the screen shows crosses the transport. The workers' error
 * lines pass through `redact`, as a second guard that the Redis password never reaches the UI.
 */
export function toView(status: ClusterStatus, redact: (text: string) => string): ClusterStatusView {
  return {
    name: status.name,
    query: status.query,
    state: status.state,
    partitions: status.partitions,
    leased: status.leased,
    maxPages: status.maxPages,
    budgetUsed: status.budgetUsed,
    pagesStored: status.pagesStored,
    pagesPerSecond: status.pagesPerSecond,
    queued: status.queued,
    streamBacklog: status.streamBacklog,
    workers: status.workers.map((w) => ({
      id: w.id,
      host: w.host,
      pid: w.pid,
      partitions: w.partitions,
      shards: w.shards,
      pagesStored: w.pagesStored,
      pagesPerSecond: w.pagesPerSecond,
      queued: w.queued,
      idle: w.idle,
      paused: w.paused,
      errors: w.errors,
      lastError: w.lastError === undefined ? null : redact(w.lastError),
    })),
    errors: status.errors.map(redact),
  };
}
