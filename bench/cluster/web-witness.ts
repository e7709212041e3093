/*
 * What the web's request log says about one run: the span from its first request to the end
 * of its last response (the crawl's own time, without process start-up or a cluster's
 * end-of-crawl detection), the pages asked for and asked for twice, and the least time the
 * per-host delay alone would have needed. The web serves every run of the bench; a run's
 * requests are those that arrived within its window.
 */
import { partitionOf } from '../../crawler/cluster/partition.ts';
import { pagePath, planWeb, type ManyHostWebOptions, type RequestLogEntry } from '../../test/support/many-host-web.ts';

export interface RunWitness {
  requests: number;
  pageRequests: number;
  /** Page URLs asked for more than once in this run (a cluster must ask for each once). */
  pagesRequestedTwice: number;
  /** First request's arrival to the last response's end, in seconds. */
  spanSeconds: number;
  /** Requests to the busiest host × the per-host delay: the crawl cannot be shorter than this. */
  politenessFloorSeconds: number;
  busiestHostRequests: number;
}

export function witnessRun(log: readonly RequestLogEntry[], from: number, to: number, delayMs: number): RunWitness {
  const entries = log.filter((e) => e.start >= from && e.start <= to);
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const perHost = new Map<string, number>();
  const perPage = new Map<string, number>();
  for (const e of entries) {
    first = Math.min(first, e.start);
    last = Math.max(last, e.end ?? e.start);
    perHost.set(e.origin, (perHost.get(e.origin) ?? 0) + 1);
    if (e.kind === 'page' && e.method === 'GET') perPage.set(e.origin + e.path, (perPage.get(e.origin + e.path) ?? 0) + 1);
  }
  const busiest = Math.max(0, ...perHost.values());
  return {
    requests: entries.length,
    pageRequests: [...perPage.values()].reduce((a, b) => a + b, 0),
    pagesRequestedTwice: [...perPage.values()].filter((n) => n > 1).length,
    spanSeconds: entries.length === 0 ? 0 : (last - first) / 1000,
    politenessFloorSeconds: (Math.max(0, busiest - 1) * delayMs) / 1000,
    busiestHostRequests: busiest,
  };
}

/**
 * Links a crawl of the whole web sends between partitions, from the web's plan: for each
 * partition, the distinct URLs of other partitions its pages link to. A shard records a
 * foreign URL the first time it sees it (with the reason partition:N), so its seen test stops
 * the repeats; this assumes the engine forwards each such URL once per sending shard.
 */
export function crossPartitionLinks(options: ManyHostWebOptions, origins: readonly string[]): number {
  const plan = planWeb(options);
  const partitionOfHost = origins.map((origin) => partitionOf(`${origin}/`));
  const sent = new Map<number, Set<string>>();
  for (let host = 0; host < plan.hosts; host++) {
    const from = partitionOfHost[host] as number;
    let set = sent.get(from);
    if (set === undefined) sent.set(from, (set = new Set()));
    for (let page = 0; page < plan.pagesPerHost; page++) {
      for (const target of plan.linksOf(host, page)) {
        if (partitionOfHost[target.host] !== from) set.add(`${target.host}${pagePath(target.page)}`);
      }
    }
  }
  return [...sent.values()].reduce((n, set) => n + set.size, 0);
}
