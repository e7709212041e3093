/*
 * Checking crawl settings. Their types, defaults and limits are the schema in
 * protocol/settings.ts; this is the thin layer on top that needs the rest of the crawler
 * (which protocol/ cannot import): the query must have content words, the User-Agent a
 * product token, the strategy a known name, include and exclude patterns must compile, and
 * seeds a canonical form.
 */
import { UsageError } from './errors.ts';
import { requireStrategy } from './ordering/registry.ts';
import { checkProxySetting } from './net/proxy-config.ts';
import { checkSettings, type CrawlSettings } from './protocol/settings.ts';
import { termCounts } from './relevance/text.ts';
import { productToken } from './robots/index.ts';
import { canonicalize } from './url/canonical.ts';
import { UrlRules } from './url/url-rules.ts';

/**
 * Parses settings from outside (an imported archive): the schema's types and limits, defaults
 * for the missing ones, unknown keys dropped; then the crawler's own checks, a known strategy
 * included. Throws a UsageError naming the first bad setting and its range.
 */
export function parseSettings(input: unknown): CrawlSettings {
  const s = checked(input, 'drop');
  requireStrategy(s.strategy);
  return s;
}

/** Checks settings that came from a user or from a stored collection; throws UsageError naming the bad one. */
export function validateSettings(s: CrawlSettings): CrawlSettings {
  // Keys this version does not know (written by a newer Forager) are kept, so saving the settings again keeps them.
  return checked(s, 'keep');
}

/** validateSettings for settings a user has just chosen: the strategy must also be one this Forager has. */
export function validateNewSettings(s: CrawlSettings): CrawlSettings {
  requireStrategy(s.strategy);
  // The environment's proxy variables are this process's: checked when a crawl is chosen here, not when stored settings are read.
  checkProxySetting(s.proxy, process.env);
  return validateSettings(s);
}

function checked(input: unknown, unknownKeys: 'drop' | 'keep'): CrawlSettings {
  const result = checkSettings(input, unknownKeys);
  if (!result.ok) throw new UsageError(result.message, { setting: result.key, value: result.value });
  const s = result.value;
  // robots.txt groups are matched on the product token, so the User-Agent must start with one.
  productToken(s.userAgent);
  // Relevance ranks pages by the query's content words, so a query of only stop words cannot drive a crawl.
  if (termCounts(s.query).size === 0) {
    throw new UsageError(`the query "${s.query}" has no content words (only stop words, numbers or single letters)`, { setting: 'query' });
  }
  // An include or exclude pattern that cannot be compiled is refused before anything starts (UrlPatternError names it).
  new UrlRules(s);
  // A proxy URL with another scheme, a path or no host is refused before anything starts.
  checkProxySetting(s.proxy);
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
