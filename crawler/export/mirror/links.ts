/**
 * Where a link of a mirrored page leads: the mirror path of the page it names, found as the
 * viewer finds it (the canonical URL, then at most MAX_REDIRECT_HOPS stored redirects), or
 * nothing when that page is not in the mirror.
 */
import type { Db } from '../../store/database.ts';
import { tryCanonicalize } from '../../url/canonical.ts';
import { fingerprint } from '../../url/fingerprint.ts';
import { MAX_REDIRECT_HOPS, MAX_STORED_URL_LENGTH, originOf } from '../../viewer/page-source.ts';

export class MirrorLinks {
  readonly #paths: ReadonlyMap<string, string>;
  readonly #hostId;
  readonly #urlByFingerprint;
  readonly #redirect;

  /** `paths`: canonical URL → mirror path of every mirrored page. */
  constructor(db: Db, paths: ReadonlyMap<string, string>) {
    this.#paths = paths;
    this.#hostId = db.prepare('SELECT id FROM hosts WHERE origin = ?').pluck();
    this.#urlByFingerprint = db.prepare('SELECT id, url FROM urls WHERE host_id = ? AND fp = ?');
    this.#redirect = db.prepare(
      `SELECT t.url FROM pages p JOIN urls t ON t.id = p.redirect_to
        WHERE p.url_id = ? AND p.status BETWEEN 300 AND 399`,
    ).pluck();
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
    const origin = originOf(canonicalUrl);
    const host = origin === undefined ? undefined : (this.#hostId.get(origin) as number | undefined);
    if (host === undefined) return undefined;
    const row = this.#urlByFingerprint.get(host, fingerprint(canonicalUrl)) as { id: number; url: string } | undefined;
    // Fingerprints can collide, in principle: the stored URL must be this one.
    if (row === undefined || row.url !== canonicalUrl) return undefined;
    return this.#redirect.get(row.id) as string | undefined;
  }
}
