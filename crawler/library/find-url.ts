import { OUT_OF_SCOPE_ORIGIN } from '../store/host-store.ts';
import { UsageError } from '../errors.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { canonicalize } from '../url/canonical.ts';
import { fingerprint } from '../url/fingerprint.ts';

/*
 * URLs of a collection: found by what a user typed (canonical form, host, fingerprint), and
 * the few columns the UI shows, by id.
 */

/** The id of a URL the collection knows, found by its canonical form; a UsageError when it does not know it. */
export function findUrlId(db: ReadonlyDb, rawUrl: string): number {
  let url: string;
  try {
    url = canonicalize(rawUrl);
  } catch (err) {
    throw new UsageError(`invalid URL "${rawUrl}": ${err instanceof Error ? err.message : String(err)}`, { url: rawUrl });
  }
  const fp = fingerprint(url);
  const hostIdOf = db.prepare('SELECT id FROM hosts WHERE origin = ?').pluck();
  const urlIdIn = (hostId: number | undefined): number | undefined =>
    hostId === undefined ? undefined : (db.prepare('SELECT id FROM urls WHERE host_id = ? AND fp = ?').pluck().get(hostId, fp) as number | undefined);
  // An out-of-scope URL is filed under one shared row rather than its origin's.
  const id = urlIdIn(hostIdOf.get(new URL(url).origin) as number | undefined) ?? urlIdIn(hostIdOf.get(OUT_OF_SCOPE_ORIGIN) as number | undefined);
  if (id === undefined) throw new UsageError(`${url} is not in this collection`, { url });
  return id;
}

export interface UrlRow {
  id: number;
  url: string;
  depth: number;
}

/** The URL and depth of each id the collection knows (in no particular order; unknown ids are left out). */
export function urlRows(db: ReadonlyDb, ids: readonly number[]): UrlRow[] {
  if (ids.length === 0) return [];
  return db.prepare(`SELECT id, url, depth FROM urls WHERE id IN (${ids.map(() => '?').join(',')})`).all(...ids) as UrlRow[];
}
