/**
 * Where a link of a mirrored page leads: the mirror path of the page it names, found as the
 * viewer finds it (the canonical URL, then at most MAX_REDIRECT_HOPS stored redirects), or
 * nothing when that page is not in the mirror.
 */
import { PageLookup } from '../../library/page-lookup.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { tryCanonicalize } from '../../url/canonical.ts';
import { MAX_REDIRECT_HOPS, MAX_STORED_URL_LENGTH } from '../../viewer/page-source.ts';

export class MirrorLinks {
  readonly #paths: ReadonlyMap<string, string>;
  readonly #lookup: PageLookup;

  /** `paths`: canonical URL → mirror path of every mirrored page. */
  constructor(db: ReadonlyDb, paths: ReadonlyMap<string, string>) {
    this.#paths = paths;
    this.#lookup = new PageLookup(db);
  }

  /** The mirror path for an absolute http(s) URL (its #fragment ignored), or undefined. */
  pathFor(absoluteUrl: string): string | undefined {
    const canonical = tryCanonicalize(absoluteUrl, undefined, { maxLength: MAX_STORED_URL_LENGTH });
    if (!canonical.ok) return undefined;
    let url: string | undefined = canonical.url;
    for (let hop = 0; url !== undefined && hop <= MAX_REDIRECT_HOPS; hop++) {
      const path = this.#paths.get(url);
      if (path !== undefined) return path;
      url = this.#redirectFrom(url);
    }
    return undefined;
  }

  /** Where the stored 3xx response of `canonicalUrl` pointed, if there is one. */
  #redirectFrom(canonicalUrl: string): string | undefined {
    const id = this.#lookup.urlId(canonicalUrl);
    return id === undefined ? undefined : this.#lookup.redirectTarget(id);
  }
}
