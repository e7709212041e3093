/**
 * Where a host's sitemaps are: the Sitemap lines of its robots.txt or, for a seed origin
 * whose robots.txt names none, the conventional /sitemap.xml. Only seed origins are asked
 * for the conventional name, so the other hosts a crawl meets cost nothing.
 */
import { sitemaps } from '../robots/index.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import type { HostState } from './host-state.ts';

/** A robots.txt naming more sitemaps than this is not describing one site. */
const MAX_ROBOTS_SITEMAPS = 1000;

/** The sitemap URLs to admit for a host whose robots.txt is usable (rules or none at all). */
export function sitemapUrls(host: HostState, isSeedOrigin: boolean): string[] {
  const { robots } = host;
  if (robots.kind !== 'rules' && robots.kind !== 'allow-all') return [];
  const listed = robots.kind === 'rules' ? sitemaps(robots.robots).slice(0, MAX_ROBOTS_SITEMAPS) : [];
  if (listed.length > 0) return listed;
  return isSeedOrigin ? [`${host.origin}/sitemap.xml`] : [];
}

/** The seeds' origins, spelled as hosts are keyed (a canonical URL's scheme://authority). */
export function seedOriginsOf(settings: Pick<CrawlSettings, 'seeds' | 'maxUrlLength'>): Set<string> {
  const origins = new Set<string>();
  for (const seed of settings.seeds) {
    const canon = tryCanonicalize(seed, seed, { maxLength: settings.maxUrlLength });
    if (canon.ok) origins.add(new URL(canon.url).origin);
  }
  return origins;
}
