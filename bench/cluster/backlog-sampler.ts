/*
 * The stream backlog over a cluster run: every interval, the length of each partition's
 * stream (XLEN: entries sent and not yet acknowledged, each a batch of up to 200 links), the
 * pages stored so far and Redis's used_memory. Read with XLEN in one pipeline rather than by
 * running `forager cluster status` each second: a Node process started each second would
 * cost this 2-core machine more CPU than the crawl's Redis does. The commands the sampler
 * sends are counted by name, so that the run's Redis operations can leave them out.
 */
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../crawler/cluster/cluster-keys.ts';
import { PARTITIONS } from '../../crawler/store/shard-names.ts';
import { infoField } from './redis-figures.ts';

export interface BacklogSample {
  /** Seconds since the workers were started. */
  atSeconds: number;
  /** Entries in all streams together. */
  entries: number;
  /** Entries in the longest stream. */
  longest: number;
  pagesStored: number;
  usedMemory: number;
}

export class BacklogSampler {
  readonly samples: BacklogSample[] = [];
  /** Commands this sampler sent, by name as INFO commandstats names them. */
  readonly ownCalls = new Map<string, number>();
  readonly #client: Redis;
  readonly #keys: ClusterKeys;
  readonly #startedAt: number;
  readonly #timer: NodeJS.Timeout;
  #pending: Promise<void> = Promise.resolve();

  constructor(client: Redis, clusterName: string, intervalMs: number) {
    this.#client = client;
    this.#keys = new ClusterKeys(clusterName);
    this.#startedAt = performance.now();
    this.#timer = setInterval(() => {
      // One sample at a time: a slow Redis must not pile them up.
      this.#pending = this.#pending.then(() => this.#sample()).catch(() => undefined);
    }, intervalMs);
  }

  #count(name: string, n: number): void {
    this.ownCalls.set(name, (this.ownCalls.get(name) ?? 0) + n);
  }

  async #sample(): Promise<void> {
    const pipeline = this.#client.pipeline();
    for (let p = 0; p < PARTITIONS; p++) pipeline.xlen(this.#keys.links(p));
    pipeline.get(this.#keys.pagesStored);
    pipeline.info('memory');
    this.#count('xlen', PARTITIONS);
    this.#count('get', 1);
    this.#count('info', 1);
    const replies = (await pipeline.exec()) ?? [];
    const lengths = replies.slice(0, PARTITIONS).map(([, n]) => Number(n ?? 0));
    const [, stored] = replies[PARTITIONS] ?? [null, null];
    const [, memory] = replies[PARTITIONS + 1] ?? [null, ''];
    this.samples.push({
      atSeconds: (performance.now() - this.#startedAt) / 1000,
      entries: lengths.reduce((a, b) => a + b, 0),
      longest: Math.max(0, ...lengths),
      pagesStored: Number(stored ?? 0),
      usedMemory: infoField(String(memory), 'used_memory'),
    });
  }

  /** Stops sampling, once the sample under way (if any) is in. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#pending;
  }
}
