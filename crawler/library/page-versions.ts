import { UsageError } from '../errors.ts';
import type { PageRevisit, PageVersion, RevisitOutcome, VersionOrder } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import type { PageRow } from '../store/page-row.ts';
import { hasVersions, storedBodySql, versionBodySql } from '../store/stored-body.ts';

/*
 * A page's versions as the viewer lists them: the pages row is the latest version, its
 * earlier ones are in page_versions, and each revisit names the version it checked. A
 * collection older than schema 8 (read as it is) has one version and no revisits.
 */

/** A version as listed, with whether a body was kept (the service decides where it can be shown). */
export interface VersionRow extends Omit<PageVersion, 'viewPath'> {
  hasBody: boolean;
}

export interface PageHistory {
  seq: number;
  url: string;
  goneAt: string | null;
  versions: VersionRow[];
}

/** One version's stored words, for comparing. */
export interface VersionText {
  /** The page's URL. */
  url: string;
  version: number;
  fetchedAt: number;
  title: string | null;
  text: string | null;
}

interface RawVersion extends Pick<PageRow, 'fetchedAt' | 'status' | 'title' | 'contentType' | 'relevance' | 'hot'> {
  version: number;
  hasBody: number;
}

/** A version's listed columns, of the pages row or the page_versions row `alias`. */
function versionColumns(alias: string): string {
  return `${alias}.fetched_at AS fetchedAt, ${alias}.status, ${alias}.title, ${alias}.content_type AS contentType, ${alias}.relevance, ${alias}.hot`;
}

function missingPage(seq: number): UsageError {
  return new UsageError(`there is no page number ${seq} in this collection`, { seq });
}

/** The page's versions with the revisits of each, newest first unless asked otherwise. */
export function pageHistory(db: ReadonlyDb, seq: number, order: VersionOrder = 'newest-first'): PageHistory {
  const versioned = hasVersions(db);
  const latest = db
    .prepare(
      `SELECT u.url, ${versioned ? 'p.version' : '1'} AS version, ${versioned ? 'p.gone_at' : 'NULL'} AS goneAt,
              ${versionColumns('p')}, ${storedBodySql(db, 'p')} IS NOT NULL AS hasBody
         FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?`,
    )
    .get(seq) as (RawVersion & { url: string; goneAt: number | null }) | undefined;
  if (latest === undefined) throw missingPage(seq);
  const earlier = versioned
    ? (db
        .prepare(`SELECT v.version, ${versionColumns('v')}, ${versionBodySql(db, 'v')} IS NOT NULL AS hasBody
                    FROM page_versions v WHERE v.page_seq = ? ORDER BY v.version`)
        .all(seq) as RawVersion[])
    : [];
  const revisits = versioned
    ? (db.prepare('SELECT version, outcome, status, fetched_at AS at FROM revisits WHERE page_seq = ? ORDER BY fetched_at, id').all(seq) as {
        version: number;
        outcome: RevisitOutcome;
        status: number;
        at: number;
      }[])
    : [];
  const checks = new Map<number, PageRevisit[]>();
  for (const r of revisits) {
    const list = checks.get(r.version) ?? [];
    list.push({ at: new Date(r.at).toISOString(), outcome: r.outcome, status: r.status });
    checks.set(r.version, list);
  }
  const versions = [...earlier, latest].map((v): VersionRow => ({
    version: v.version,
    fetchedAt: new Date(v.fetchedAt).toISOString(),
    status: v.status,
    title: v.title,
    contentType: v.contentType,
    relevance: v.relevance,
    hot: v.hot === 1,
    latest: v === latest,
    hasBody: v.hasBody === 1,
    revisits: checks.get(v.version) ?? [],
  }));
  if (order === 'newest-first') versions.reverse();
  return { seq, url: latest.url, goneAt: latest.goneAt === null ? null : new Date(latest.goneAt).toISOString(), versions };
}

/** The stored title and text of one version of a page; a version the page does not have is refused. */
export function versionText(db: ReadonlyDb, seq: number, version: number): VersionText {
  const versioned = hasVersions(db);
  const latest = db
    .prepare(`SELECT u.url, ${versioned ? 'p.version' : '1'} AS version, p.fetched_at AS fetchedAt, p.title, p.text FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?`)
    .get(seq) as VersionText | undefined;
  if (latest === undefined) throw missingPage(seq);
  if (version === latest.version) return latest;
  const earlier = versioned
    ? (db.prepare('SELECT version, fetched_at AS fetchedAt, title, text FROM page_versions WHERE page_seq = ? AND version = ?').get(seq, version) as
        | Omit<VersionText, 'url'>
        | undefined)
    : undefined;
  if (earlier === undefined) throw new UsageError(`page ${seq} has no version ${version}; it has versions 1 to ${latest.version}`, { seq, version });
  return { url: latest.url, ...earlier };
}
