import type { CrawlSettings } from '../protocol/settings.ts';

/**
 * A copy of the named crawl settings and no others. The engine builds each collaborator's
 * options with it, so a collaborator gets (and its type names) only the fields it reads.
 */
export function pickSettings<K extends keyof CrawlSettings>(settings: CrawlSettings, ...keys: K[]): Pick<CrawlSettings, K> {
  const picked = {} as Pick<CrawlSettings, K>;
  for (const key of keys) picked[key] = settings[key];
  return picked;
}
