import { CookieStore } from '../store/cookie-store.ts';
import type { MergedCollection } from './merged-collection.ts';
import type { ShardReader } from './shard-reader.ts';

/**
 * The session: every shard's jar started with the cluster's cookies and kept what its own
 * hosts set. A cookie held by several shards keeps the copy set or used last, as a jar would.
 */
export function mergeCookies(shards: readonly ShardReader[], out: MergedCollection): number {
  const latest = new Map<string, { row: CookieRow; at: number }>();
  for (const shard of shards) {
    for (const row of shard.query<CookieRow>('SELECT domain, path, name, cookie FROM cookies').iterate()) {
      const key = JSON.stringify([row.domain, row.path, row.name]);
      const at = lastUsed(row.cookie);
      const kept = latest.get(key);
      if (kept === undefined || at > kept.at) latest.set(key, { row, at });
    }
  }
  const store = new CookieStore(out.db);
  for (const { row } of latest.values()) store.put(row.domain, row.path, row.name, row.cookie);
  return latest.size;
}

interface CookieRow {
  domain: string;
  path: string;
  name: string;
  cookie: string;
}

/** When a stored cookie was last set or sent (tough-cookie's lastAccessed, else its creation); 0 when unknown. */
function lastUsed(serialized: string): number {
  try {
    const parsed = JSON.parse(serialized) as { lastAccessed?: unknown; creation?: unknown };
    const at = Date.parse(String(parsed.lastAccessed ?? parsed.creation ?? ''));
    return Number.isFinite(at) ? at : 0;
  } catch {
    return 0;
  }
}
