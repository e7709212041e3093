import type { Redis } from 'ioredis';
import { topBuckets } from '../frontier/priority-ranks.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { throwDamage, type DamageReport } from './redis-damage.ts';
import { parseJson, WorkerFields } from './worker-fields.ts';

/*
 * The crawl-wide cut-off. A plain crawl gives a host a turn only while fewer than its window
 * of queued URLs (its concurrency) rank above the host's best one (frontier/crawl-frontier.ts
 * next()). A cluster's workers do the same across the crawl: each publishes the priority
 * buckets (frontier/priority-ranks.ts) of its ready hosts' best URLs, a few pairs of
 * numbers, and reads everyone else's. A URL waits while the crawl's window (every worker's
 * slots together) of better URLs waits, here or elsewhere (worker-requests.ts), so the page
 * budget goes where the best URLs are, not to whoever is ready.
 *
 * A worker that has no page of the budget left publishes nothing: its URLs must not hold
 * back workers that can still spend. Another worker's field is checked before it counts; a
 * damaged one is left out and reported.
 */

/** Pairs of [bucket, count], best bucket first. */
export type TopBuckets = [bucket: number, count: number][];

/** A field that lists more pairs than this is not a summary of a window's worth. */
const MAX_PAIRS = 65_536;

/** Merges summaries into one, best first, until it holds `limit` URLs. */
export function mergeTopBuckets(summaries: readonly TopBuckets[], limit: number): TopBuckets {
  const counts = new Map<number, number>();
  for (const summary of summaries) for (const [bucket, count] of summary) counts.set(bucket, (counts.get(bucket) ?? 0) + count);
  return topBuckets(counts, limit);
}

function isTopBuckets(value: unknown): value is TopBuckets {
  return (
    Array.isArray(value) &&
    value.length <= MAX_PAIRS &&
    value.every(
      (pair) => Array.isArray(pair) && pair.length === 2 && Number.isInteger(pair[0]) && pair[0] >= 0 && pair[0] < 65_536 && Number.isInteger(pair[1]) && pair[1] > 0,
    )
  );
}

export class CrawlCutoff {
  readonly #fields: WorkerFields<TopBuckets>;

  constructor(redis: Redis, keys: ClusterKeys, worker: string, onDamage: DamageReport = throwDamage(keys.name)) {
    this.#fields = new WorkerFields(redis, keys.topPriorities, worker, {
      expected: 'each worker\'s best waiting priorities (a hash of JSON fields)',
      meanwhile: 'each worker orders by its own URLs only',
      fieldExpected: 'each worker\'s best waiting priorities (pairs of whole numbers)',
      fieldMeanwhile: 'that field is left out of the cut-off',
    }, onDamage);
  }

  /**
   * Publishes this worker's summary (none when it cannot spend) and returns the other
   * workers' merged, up to `window` URLs; fields of workers no longer live are dropped.
   */
  async exchange(own: TopBuckets | undefined, live: readonly string[], window: number): Promise<TopBuckets> {
    const fields = await this.#fields.exchange(own === undefined ? undefined : JSON.stringify(own), live, (text) => {
      const parsed = parseJson(text);
      return isTopBuckets(parsed) ? parsed : undefined;
    });
    return fields === undefined ? [] : mergeTopBuckets([...fields.values()], window);
  }

  async leave(): Promise<void> {
    await this.#fields.leave();
  }
}
