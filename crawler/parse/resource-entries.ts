/**
 * What every site resource reader produces: the URLs a sitemap or search index lists, each
 * with what the resource says about it. Shared by the readers (sitemap.ts, search-index.ts)
 * and the dispatcher (site-resources.ts), and by what records and replays the entries.
 */
import type { UrlHint, UrlKind } from './url-kind.ts';

export type ResourceKind = Exclude<UrlKind, 'page'>;

/** What a resource says about one URL it lists: a UrlHint without the URL's id. */
export type ResourceHint = Omit<UrlHint, 'id'>;

export interface ResourceEntry {
  /** The URL as listed (absolute, or resolved by admission against the resource's URL). */
  href: string;
  /** The page's title from a search index; '' from a sitemap. */
  anchor: string;
  /** 'sitemap' for a sitemap that a sitemap index lists; absent for a page. */
  kind?: ResourceKind;
  hint?: ResourceHint;
}

/** What one reader makes of a resource's text. */
export interface ResourceContents {
  /** What was wrong or dropped while reading it (e.g. 'sitemap:malformed entries-dropped:12'), or null. */
  note: string | null;
  entries: ResourceEntry[];
}

/**
 * The protocol's limit for one sitemap file; search indexes get the same bound. Entries
 * beyond it are counted in the note and dropped.
 */
export const MAX_RESOURCE_ENTRIES = 50_000;

/** Joins the notes that apply, or null when none does. */
export function joinNotes(...notes: (string | null)[]): string | null {
  const present = notes.filter((n): n is string => n !== null && n !== '');
  return present.length === 0 ? null : present.join(' ');
}
