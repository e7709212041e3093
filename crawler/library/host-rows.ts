import type { CollectionHost } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { OUT_OF_SCOPE_ORIGIN } from '../store/host-store.ts';
import { hasVersions } from '../store/stored-body.ts';
import { isoOrNull } from './version-columns.ts';

/**
 * The hosts a collection stored pages from, most pages first, with how many of their pages
 * changed or are gone and when the host last answered about one: what choosing a host to
 * refresh needs. One pass over the pages (the dashboard asks once, while no crawl runs).
 */
export function collectionHosts(db: ReadonlyDb, limit: number): CollectionHost[] {
  const versioned = hasVersions(db);
  const rows = db
    .prepare(
      `SELECT h.origin, count(*) AS pages,
              ${versioned ? 'sum(p.version > 1)' : '0'} AS changed, ${versioned ? 'sum(p.gone_at IS NOT NULL)' : '0'} AS gone,
              max(${versioned ? 'coalesce(p.checked_at, p.fetched_at)' : 'p.fetched_at'}) AS lastCheckedAt
         FROM pages p JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id
        WHERE h.origin <> ?
        GROUP BY h.id ORDER BY pages DESC, h.origin LIMIT ?`,
    )
    .all(OUT_OF_SCOPE_ORIGIN, limit) as (Omit<CollectionHost, 'lastCheckedAt'> & { lastCheckedAt: number | null })[];
  return rows.map((row) => ({ ...row, lastCheckedAt: isoOrNull(row.lastCheckedAt) }));
}
