/**
 * A site resource's hints as strategies see them: one per listed URL the resource says
 * something about, carrying the URL's id. The recorder pairs entries with the ids admission
 * gave them; replays (resume, explain, the lab) re-read the stored body with the same
 * parser and pair entries with the ids of the links stored for the resource, so that they
 * see the hints the crawl saw, in the same order.
 */
import { gunzipSync } from 'node:zlib';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { ResourceEntry } from './resource-entries.ts';
import { analyseSiteResource } from './site-resources.ts';
import type { UrlHint, UrlKind } from './url-kind.ts';
import { tryCanonicalize } from '../url/canonical.ts';

/** Entries in order; a URL listed twice is hinted once, by its first entry with a hint. */
export function entryHints(entries: readonly ResourceEntry[], idOf: (entry: ResourceEntry, index: number) => number | undefined): UrlHint[] {
  const hints: UrlHint[] = [];
  const hinted = new Set<number>();
  entries.forEach((entry, index) => {
    if (entry.hint === undefined) return;
    const id = idOf(entry, index);
    if (id === undefined || hinted.has(id)) return;
    hinted.add(id);
    hints.push({ id, ...entry.hint });
  });
  return hints;
}

/** A stored response of a site resource, as the pages and urls tables hold it. */
export interface StoredResource {
  /** The resource's canonical URL. */
  url: string;
  kind: UrlKind;
  status: number;
  /** pages.body: gzip of the body as received. */
  body: Buffer | null;
}

/** The crawl's limits (its settings): the same bounds give the same entries. */
export type StoredResourceLimits = Pick<CrawlSettings, 'maxBodyBytes' | 'maxDecodedBytes' | 'maxUrlLength'>;

/**
 * The hints a stored resource gave when it was fetched. `linkIds` maps the canonical URL of
 * each link stored for it to the link's target id: an entry whose URL has no link (it did
 * not pass admission) gives no hint, as in the crawl.
 */
export function storedResourceHints(resource: StoredResource, linkIds: ReadonlyMap<string, number>, limits: StoredResourceLimits): UrlHint[] {
  if (resource.kind === 'page' || resource.body === null || resource.status < 200 || resource.status >= 300 || linkIds.size === 0) return [];
  let body: Buffer;
  try {
    body = gunzipSync(resource.body, { maxOutputLength: Math.max(limits.maxBodyBytes, limits.maxDecodedBytes) });
  } catch {
    // The crawl stored it, so it was readable then; a damaged row gives no hints rather than stopping a replay.
    return [];
  }
  const analysis = analyseSiteResource(resource.kind, body, resource.url, { maxDecodedBytes: limits.maxDecodedBytes });
  return entryHints(analysis.entries, (entry) => {
    const canon = tryCanonicalize(entry.href, resource.url, { maxLength: limits.maxUrlLength });
    return canon.ok ? linkIds.get(canon.url) : undefined;
  });
}
