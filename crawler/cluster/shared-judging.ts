import type { Redis } from 'ioredis';
import { BEST_PAGES } from '../relevance/hot.ts';
import { addJudgeStatistics, type JudgeStatistics, type PageJudge } from '../relevance/judge.ts';
import type { QueryTermCounts } from '../relevance/relevance.ts';
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
    const counted = judges.map((judge) => judge.statistics?.());
    if (counted.length === 0 || counted.some((s) => s === undefined)) return;
    const own = counted as JudgeStatistics[];
    const mine = own.reduce(addJudgeStatistics);
    await this.#redis.hset(this.#keys.judgeStatistics, this.#worker, JSON.stringify(mine));
    const fields = await this.#redis.hgetall(this.#keys.judgeStatistics);
    const gone = Object.keys(fields).filter((worker) => worker !== this.#worker && !live.includes(worker));
    if (gone.length > 0) await this.#redis.hdel(this.#keys.judgeStatistics, ...gone);
    const others = Object.entries(fields)
      .filter(([worker]) => worker !== this.#worker && !gone.includes(worker))
      .map(([, text]) => JSON.parse(text) as JudgeStatistics)
      .filter((s) => s.terms.df.length === mine.terms.df.length);
    const crawl = others.reduce(addJudgeStatistics, mine);
    // Every shard's best pages, best first, to take the crawl's best but a shard's own (a worker holds up to 256 shards).
    const bestOf = [...others.flatMap((s) => s.best.map((evidence) => ({ evidence, shard: -1 }))), ...own.flatMap((s, shard) => s.best.map((evidence) => ({ evidence, shard })))].sort((a, b) => b.evidence - a.evidence);
    for (const [i, judge] of judges.entries()) {
      const self = own[i] as JudgeStatistics;
      // A worker alone with one shard: there is no rest of the crawl.
      if (others.length === 0 && own.length === 1) continue;
      const best: number[] = [];
      for (const entry of bestOf) {
        if (entry.shard === i) continue;
        best.push(entry.evidence);
        if (best.length === BEST_PAGES) break;
      }
      judge.useShared?.({ terms: subtractCounts(crawl.terms, self.terms), best: best.reverse() });
    }
  }

  async leave(): Promise<void> {
    await this.#redis.hdel(this.#keys.judgeStatistics, this.#worker);
  }
}

/** The counts of a crawl without one shard's. */
function subtractCounts(all: QueryTermCounts, part: QueryTermCounts): QueryTermCounts {
  const minus = (a: readonly number[], b: readonly number[]): number[] => a.map((v, i) => v - (b[i] ?? 0));
  return {
    documents: all.documents - part.documents,
    df: minus(all.df, part.df),
    pagesMentioning: minus(all.pagesMentioning, part.pagesMentioning),
    mentions: minus(all.mentions, part.mentions),
  };
}
