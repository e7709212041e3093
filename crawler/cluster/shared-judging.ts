import type { Redis } from 'ioredis';
import { addJudgeStatistics, type JudgeStatistics, type PageJudge } from '../relevance/judge.ts';
import type { ClusterKeys } from './cluster-keys.ts';

/*
 * The judges of a cluster's shards judge by the crawl's statistics, not their shard's: the
 * query terms' document frequencies and burstiness, and the best pages' evidence that sets
 * the hot bar. Each worker publishes the sum over its shards (a field of one hash) each
 * second and gives each shard's judge the rest of the crawl: the other workers' sums and its
 * own other shards. Figures a second old are good enough for an idf and a bar that move
 * slowly; what each shard's ordering learns (its model's weights, yields) stays its own.
 */

export class SharedJudging {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #worker: string;

  constructor(redis: Redis, keys: ClusterKeys, worker: string) {
    this.#redis = redis;
    this.#keys = keys;
    this.#worker = worker;
  }

  /** Publishes this worker's sum and hands each judge the rest of the crawl; fields of workers no longer live are dropped. */
  async exchange(judges: readonly PageJudge[], live: readonly string[]): Promise<void> {
    const own = judges.map((judge) => judge.statistics?.()).filter((s): s is JudgeStatistics => s !== undefined);
    if (own.length === 0) return;
    const mine = own.reduce(addJudgeStatistics);
    await this.#redis.hset(this.#keys.judgeStatistics, this.#worker, JSON.stringify(mine));
    const fields = await this.#redis.hgetall(this.#keys.judgeStatistics);
    const gone = Object.keys(fields).filter((worker) => worker !== this.#worker && !live.includes(worker));
    if (gone.length > 0) await this.#redis.hdel(this.#keys.judgeStatistics, ...gone);
    const others = Object.entries(fields)
      .filter(([worker]) => worker !== this.#worker && !gone.includes(worker))
      .map(([, text]) => JSON.parse(text) as JudgeStatistics)
      .filter((s) => s.terms.df.length === mine.terms.df.length);
    for (const [i, judge] of judges.entries()) {
      const rest = [...others, ...own.filter((_, j) => j !== i)];
      if (rest.length > 0) judge.useShared?.(rest.reduce(addJudgeStatistics));
    }
  }

  async leave(): Promise<void> {
    await this.#redis.hdel(this.#keys.judgeStatistics, this.#worker);
  }
}
