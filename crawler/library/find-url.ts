import { UsageError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import { HostStore } from '../store/host-store.ts';
import { UrlStore } from '../store/url-store.ts';
import { canonicalize } from '../url/canonical.ts';
import { fingerprint } from '../url/fingerprint.ts';

/** The id of a URL the collection knows, found by its canonical form; a UsageError when it does not know it. */
export function findUrlId(db: Db, rawUrl: string): number {
  let url: string;
  try {
    url = canonicalize(rawUrl);
  } catch (err) {
    throw new UsageError(`invalid URL "${rawUrl}": ${err instanceof Error ? err.message : String(err)}`, { url: rawUrl });
  }
  const origin = new URL(url).origin;
  const hostId = new HostStore(db).find(origin);
  const id = hostId === undefined ? undefined : new UrlStore(db).findIdByFingerprint(hostId, fingerprint(url));
  if (id === undefined) throw new UsageError(`${url} is not in this collection`, { url });
  return id;
}
