export interface PolitenessSettings {
  delayMs: number;
  delayFactor: number;
  maxCrawlDelayMs: number;
}

/**
 * How long to wait before the next request to a host, counted from when the last
 * response completed (the Mercator/Heritrix way): max(minimum delay, Crawl-delay capped
 * by a setting, k × the last response time). A slow server is thus asked less often.
 */
export function politeWaitMs(s: PolitenessSettings, lastResponseMs: number, crawlDelaySeconds: number | undefined): number {
  const crawlDelayMs = crawlDelaySeconds === undefined ? 0 : Math.min(crawlDelaySeconds * 1000, s.maxCrawlDelayMs);
  return Math.max(s.delayMs, crawlDelayMs, s.delayFactor * lastResponseMs);
}

/** Back-off after a transient failure grows with each attempt, scaled by the politeness delay. */
export function retryBackoffMs(s: PolitenessSettings, attempts: number): number {
  return Math.min(s.delayMs * 2 ** attempts, Math.max(s.maxCrawlDelayMs, s.delayMs));
}
