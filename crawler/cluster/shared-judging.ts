import type { Redis } from 'ioredis';
import { BEST_PAGES } from '../relevance/hot.ts';
import { addJudgeStatistics, type JudgeStatistics, type PageJudge } from '../relevance/judge.ts';
import type { QueryTermCounts } from '../relevance/relevance.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { throwDamage, type DamageReport } from './redis-damage.ts';
import { parseJson, WorkerFields } from './worker-fields.ts';

/*
 * The judges of a cluster's shards judge by the crawl's statistics, not their shard's: the
 * query terms' document frequencies and burstiness, and the best pages' evidence that sets
 * the hot bar. Each worker publishes the sum over its shards (a field of one hash) each
 * second and gives each shard's judge the rest of the crawl: the other workers' sums and its
 * own other shards. Figures a second old are good enough for an idf and a bar that move
 * slowly; what each shard's ordering learns (its model's weights, yields) stays its own.
 *
 * Another worker's field is checked before it counts: finite amounts from 0, one per query
 * term, and at most BEST_PAGES evidence values. A field that is not is left out and
 * reported, so a damaged hash cannot turn a judge's idf or hot bar into NaN.
 */

export class SharedJudging {
  readonly #fields: WorkerFields<JudgeStatistics>;

  /** `onDamage` is told of a damaged hash or field (default: a ClusterError); judges go on with what could be read. */
  constructor(redis: Redis, keys: ClusterKeys, worker: string, onDamage: DamageReport = throwDamage(keys.name)) {
    const expected = `each worker's judge statistics (a hash of JSON fields, ${BEST_PAGES} best pages at most)`;
    this.#fields = new WorkerFields(redis, keys.judgeStatistics, worker, {
      expected,
      meanwhile: 'each shard is judged by its own statistics only',
      fieldExpected: expected,
      fieldMeanwhile: 'that field is left out of the crawl\'s statistics',
    }, onDamage);
  }

  /** Publishes this worker's sum and hands each judge the rest of the crawl; fields of workers no longer live are dropped. */
  async exchange(judges: readonly PageJudge[], live: readonly string[]): Promise<void> {
    const counted = judges.map((judge) => judge.statistics?.());
    if (counted.length === 0 || counted.some((s) => s === undefined)) return;
    const own = counted as JudgeStatistics[];
    const mine = own.reduce(addJudgeStatistics);
    const terms = mine.terms.df.length;
    const fields = await this.#fields.exchange(JSON.stringify(mine), live, (text) => {
      const parsed = parseJson(text);
      return isJudgeStatistics(parsed, terms) ? parsed : undefined;
    });
    if (fields === undefined) return;
    const others = [...fields.values()];
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
    await this.#fields.leave();
  }
}

/** A count or a sum of counts (mentions on navigation lines count for less than one). */
function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isAmountList(value: unknown, length: number): value is number[] {
  return Array.isArray(value) && value.length === length && value.every(isAmount);
}

/** Statistics as a judge makes them: finite amounts from 0, one per query term, and at most BEST_PAGES evidence values. */
function isJudgeStatistics(value: unknown, terms: number): value is JudgeStatistics {
  if (typeof value !== 'object' || value === null) return false;
  const { terms: counts, best } = value as Partial<Record<keyof JudgeStatistics, unknown>>;
  if (typeof counts !== 'object' || counts === null) return false;
  const { documents, df, pagesMentioning, mentions } = counts as Partial<Record<keyof QueryTermCounts, unknown>>;
  const bestOk = Array.isArray(best) && best.length <= BEST_PAGES && best.every(isAmount);
  return bestOk && isAmount(documents) && isAmountList(df, terms) && isAmountList(pagesMentioning, terms) && isAmountList(mentions, terms);
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
