/**
 * What a URL is expected to hold, and what a site resource says about a listed page. These
 * are facts the parser finds, so they live here; strategies, the store and the engine all
 * read them.
 */

/** An ordinary page, or a site resource that lists pages. */
export type UrlKind = 'page' | 'sitemap' | 'search-index';

/** What a site resource says about a page before it is fetched. */
export interface UrlHint {
  /** The page (a URL id given in an earlier linked()). */
  id: number;
  source: 'sitemap' | 'search-index';
  /** Content terms (Porter stems as text.ts makes them) a search index lists for the page's body. */
  terms?: readonly string[];
  /** Terms of the page's title, from a search index. */
  titleTerms?: readonly string[];
  /** A sitemap's lastmod, in epoch ms. */
  lastModified?: number;
}

/** A link event's kind field: absent for an ordinary page. */
export function linkKind(kind: UrlKind): { kind?: UrlKind } {
  return kind === 'page' ? {} : { kind };
}
