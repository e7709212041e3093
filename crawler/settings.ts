import { UsageError } from './errors.ts';
import { termCounts } from './relevance/text.ts';
import { productToken } from './robots/index.ts';
import { canonicalize } from './url/canonical.ts';

export type ScopeMode = 'hosts' | 'domains' | 'any';

/** Everything that shapes a crawl. Stored in the collection so that `resume` continues the same crawl. */
export interface CrawlSettings {
  query: string;
  seeds: string[];
  /** Total pages the collection may fetch (a resumed crawl keeps counting from what is stored). */
  maxPages: number;
  strategy: string;
  /** Minimum wait between two requests to one host, counted from the end of the previous response. */
  delayMs: number;
  /** k in max(delay, Crawl-delay, k × last response time). */
  delayFactor: number;
  /** Cap on a robots.txt Crawl-delay, so a hostile file cannot stall the crawl. */
  maxCrawlDelayMs: number;
  concurrency: number;
  scope: ScopeMode;
  allowPrivate: boolean;
  userAgent: string;
  maxDepth: number;
  /** 0 means no limit. */
  maxPagesPerHost: number;
  maxUrlLength: number;
  maxBodyBytes: number;
  maxDecodedBytes: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  totalTimeoutMs: number;
  /** Further attempts after a transient failure (timeout, reset, 5xx, 429). */
  maxRetries: number;
  /** How long a host waits before robots.txt is fetched again after a 5xx or network failure. */
  robotsRetryMs: number;
  /** After this many failed robots.txt fetches in a row, the host's URLs are recorded as blocked. */
  robotsMaxAttempts: number;
  /** Links kept per page; the rest are counted as dropped. */
  maxLinksPerPage: number;
  /** Seed of the strategies that draw random numbers, so a crawl can be repeated. */
  randomSeed: number;
  /** A Cho-style hot predicate such as "title:wal|body>=3:checkpoint"; null uses the relevance threshold. */
  hotPredicate: string | null;
  /** Relevance at or above which a page is hot; null uses the documented default rule. */
  hotThreshold: number | null;
}

export const FORAGER_VERSION = '0.1.0';
const DEFAULT_CONTACT_URL = 'https://github.com/forager-crawler/forager';

/** Forager's User-Agent: the product token robots.txt is matched on, and a URL where site owners can reach the operator. */
export function userAgentWithContact(contactUrl: string): string {
  return `Forager/${FORAGER_VERSION} (+${contactUrl})`;
}

export const DEFAULT_USER_AGENT = userAgentWithContact(DEFAULT_CONTACT_URL);

export const DEFAULT_SETTINGS: Omit<CrawlSettings, 'query' | 'seeds'> = {
  maxPages: 1000,
  strategy: 'focused',
  delayMs: 1000,
  delayFactor: 2,
  maxCrawlDelayMs: 30_000,
  concurrency: 16,
  scope: 'hosts',
  allowPrivate: false,
  userAgent: DEFAULT_USER_AGENT,
  maxDepth: 32,
  maxPagesPerHost: 0,
  maxUrlLength: 2048,
  maxBodyBytes: 10 * 1024 * 1024,
  maxDecodedBytes: 32 * 1024 * 1024,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyIdleTimeoutMs: 15_000,
  totalTimeoutMs: 60_000,
  maxRetries: 2,
  robotsRetryMs: 60_000,
  robotsMaxAttempts: 3,
  maxLinksPerPage: 10_000,
  randomSeed: 1,
  hotPredicate: null,
  hotThreshold: null,
};

const SCOPES: readonly ScopeMode[] = ['hosts', 'domains', 'any'];

function requireInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${String(value)}`, { setting: name, value });
  }
}

/** Checks settings that came from a user or from a stored collection; throws UsageError naming the bad one. */
export function validateSettings(s: CrawlSettings): CrawlSettings {
  if (s.seeds.length === 0) throw new UsageError('at least one seed URL is needed', { setting: 'seeds' });
  requireInteger('max-pages', s.maxPages, 1);
  requireInteger('delay-ms', s.delayMs, 0, 3_600_000);
  if (!Number.isFinite(s.delayFactor) || s.delayFactor < 0 || s.delayFactor > 100) {
    throw new UsageError(`delay-factor must be a number from 0 to 100, got ${String(s.delayFactor)}`, { setting: 'delayFactor' });
  }
  requireInteger('max-crawl-delay-ms', s.maxCrawlDelayMs, 0, 3_600_000);
  requireInteger('concurrency', s.concurrency, 1, 256);
  if (!SCOPES.includes(s.scope)) {
    throw new UsageError(`scope must be one of ${SCOPES.join(', ')}, got "${String(s.scope)}"`, { setting: 'scope' });
  }
  if (s.userAgent.trim() === '' || /[\r\n]/.test(s.userAgent)) {
    throw new UsageError('user-agent must be a non-empty single line', { setting: 'userAgent' });
  }
  // robots.txt groups are matched on the product token, so the User-Agent must start with one.
  productToken(s.userAgent);
  requireInteger('max-depth', s.maxDepth, 0, 10_000);
  requireInteger('max-pages-per-host', s.maxPagesPerHost, 0);
  requireInteger('max-url-length', s.maxUrlLength, 64, 1_000_000);
  requireInteger('max-body-bytes', s.maxBodyBytes, 1024);
  requireInteger('max-decoded-bytes', s.maxDecodedBytes, 1024);
  requireInteger('max-retries', s.maxRetries, 0, 20);
  requireInteger('robots-retry-ms', s.robotsRetryMs, 0);
  requireInteger('robots-max-attempts', s.robotsMaxAttempts, 1, 100);
  requireInteger('max-links-per-page', s.maxLinksPerPage, 0, 1_000_000);
  requireInteger('random-seed', s.randomSeed, 0, 2 ** 31 - 1);
  if (s.hotThreshold !== null && !(s.hotThreshold >= 0 && s.hotThreshold <= 1)) {
    throw new UsageError(`hot-threshold must be a number from 0 to 1, got ${String(s.hotThreshold)}`, { setting: 'hotThreshold' });
  }
  for (const name of ['connectTimeoutMs', 'headersTimeoutMs', 'bodyIdleTimeoutMs', 'totalTimeoutMs'] as const) {
    requireInteger(name, s[name], 1);
  }
  // Relevance ranks pages by the query's content words, so a query of only stop words cannot drive a crawl.
  if (termCounts(s.query).size === 0) {
    throw new UsageError(`the query "${s.query}" has no content words (only stop words, numbers or single letters)`, { setting: 'query' });
  }
  return s;
}

/** Seed URLs in canonical form; a URL that cannot be crawled is a UsageError naming it. */
export function canonicalSeeds(seeds: readonly string[]): string[] {
  return seeds.map((seed) => {
    try {
      return canonicalize(seed);
    } catch (err) {
      throw new UsageError(`invalid seed URL "${seed}": ${err instanceof Error ? err.message : String(err)}`, { seed });
    }
  });
}
