/*
 * The crawl every run makes, as command-line flags: `forager crawl` and `forager cluster
 * create` take the same ones (one settings schema), so the plain crawl and each cluster
 * crawl the same web with the same settings.
 */

export interface CrawlShape {
  query: string;
  seeds: readonly string[];
  /** Larger than the web, so that every run ends with the web crawled (and page counts compare). */
  maxPages: number;
  delayMs: number;
  strategy: string;
}

export function crawlFlags(shape: CrawlShape): string[] {
  return [
    '--query', shape.query,
    ...shape.seeds.flatMap((seed) => ['--seed', seed]),
    // The web is on loopback and spans 500 origins.
    '--allow-private', '--scope', 'any',
    '--max-pages', String(shape.maxPages),
    // A fixed small wait per host, never k × its response time: the bound stays the same across runs.
    '--delay-ms', String(shape.delayMs), '--delay-factor', '0',
    '--strategy', shape.strategy,
  ];
}
