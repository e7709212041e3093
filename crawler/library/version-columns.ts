import type { ReadonlyDb } from '../store/database.ts';
import { hasVersions } from '../store/stored-body.ts';

/*
 * A page's versions as page lists show and filter them, for the UI's table and the CLI's
 * list alike. A pages row is the latest version: it changed when it has more than one, last
 * at its own fetch; it is new since the fetch of its first. Collections older than schema 8
 * (read as they are) have one version per page and none gone.
 */

/** Which pages a list keeps, by their versions. Every condition given must hold. */
export interface VersionFilter {
  /** A revisit found it changed at or after this time (epoch ms). */
  changedSince?: number;
  /** Its first version was fetched at or after this time (epoch ms). */
  newSince?: number;
  /** A revisit found it gone (true), or it is not gone (false). */
  gone?: boolean;
}

/** The version facts of the pages row `alias` as columns version, firstFetchedAt, lastChangedAt and goneAt (epoch ms or NULL). */
export function versionColumnsSql(db: ReadonlyDb, alias: string): string {
  if (!hasVersions(db)) return `1 AS version, ${alias}.fetched_at AS firstFetchedAt, NULL AS lastChangedAt, NULL AS goneAt`;
  return `${alias}.version AS version, coalesce(${alias}.first_fetched_at, ${alias}.fetched_at) AS firstFetchedAt,
          CASE WHEN ${alias}.version > 1 THEN ${alias}.fetched_at END AS lastChangedAt, ${alias}.gone_at AS goneAt`;
}

/** The conditions (to be joined with AND) and their parameters that keep the pages `filter` asks for. */
export function versionFilterSql(db: ReadonlyDb, alias: string, filter: VersionFilter): { where: string[]; params: unknown[] } {
  const versioned = hasVersions(db);
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.changedSince !== undefined) {
    where.push(versioned ? `${alias}.version > 1 AND ${alias}.fetched_at >= ?` : '0');
    if (versioned) params.push(filter.changedSince);
  }
  if (filter.newSince !== undefined) {
    where.push(versioned ? `coalesce(${alias}.first_fetched_at, ${alias}.fetched_at) >= ?` : `${alias}.fetched_at >= ?`);
    params.push(filter.newSince);
  }
  if (filter.gone === true) where.push(versioned ? `${alias}.gone_at IS NOT NULL` : '0');
  else if (filter.gone === false && versioned) where.push(`${alias}.gone_at IS NULL`);
  return { where, params };
}

/** An epoch-ms column as ISO text, NULL kept. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
