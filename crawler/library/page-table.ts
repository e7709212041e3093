import { hasDuplicateColumns, hasVersions, storedBodySql } from '../store/stored-body.ts';
import { UsageError } from '../errors.ts';
import type { PageList, PageListInput, PageRow, PageSort, SearchResult } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { documentColumnsSql, documentFilterSql, documentJoinSql, pageTypeOf } from './document-columns.ts';
import { searchPages, type SearchHit } from './search.ts';
import { isoOrNull, versionColumnsSql, versionFilterSql } from './version-columns.ts';

/*
 * The library's queries for the UI: one page of the page list (sorted, filtered), search
 * results with their verdicts, one page's details, and labelling by fetch number. Rows are
 * the service API's own types.
 */

const BASE_COLUMNS = `p.seq, u.url, p.title, p.status, p.relevance, p.hot, l.relevant AS label, u.depth, p.fetched_at AS fetchedAt, p.content_type AS contentType,
                      p.body_bytes AS bodyBytes`;

/** The pages with their URLs, labels and documents rows. */
function fromSql(db: ReadonlyDb): string {
  return `FROM pages p JOIN urls u ON u.id = p.url_id LEFT JOIN labels l ON l.url_id = p.url_id ${documentJoinSql(db, 'p')}`;
}

/** The row's columns and tables; a collection older than duplicates, versions or documents (opened read-only as it is) has none to show. */
function rowSql(db: ReadonlyDb): { columns: string; from: string } {
  const base = `${BASE_COLUMNS}, ${versionColumnsSql(db, 'p')}, ${documentColumnsSql(db)}`;
  const from = fromSql(db);
  if (!hasDuplicateColumns(db)) return { columns: `${base}, NULL AS duplicateKind, NULL AS duplicateOf, 0 AS soft404`, from };
  return {
    columns: `${base}, p.duplicate_kind AS duplicateKind, du.url AS duplicateOf, p.soft404`,
    from: `${from} LEFT JOIN pages dp ON dp.seq = p.duplicate_of LEFT JOIN urls du ON du.id = dp.url_id`,
  };
}
const ORDER: Record<PageSort, string> = {
  relevance: 'p.relevance IS NULL, p.relevance DESC, p.seq',
  time: 'p.seq DESC',
  url: 'u.url, p.seq',
};

interface RawRow {
  seq: number;
  url: string;
  title: string | null;
  status: number;
  relevance: number | null;
  hot: number;
  label: number | null;
  depth: number;
  fetchedAt: number;
  contentType: string | null;
  bodyBytes: number;
  documentType: string | null;
  pageCount: number | null;
  duplicateKind: 'exact' | 'near' | null;
  duplicateOf: string | null;
  soft404: number;
  version: number;
  firstFetchedAt: number;
  lastChangedAt: number | null;
  goneAt: number | null;
}

function toRow(r: RawRow): PageRow {
  return {
    seq: r.seq,
    url: r.url,
    title: r.title,
    status: r.status,
    relevance: r.relevance,
    hot: r.hot === 1,
    label: r.label === null ? null : r.label === 1 ? 'relevant' : 'irrelevant',
    depth: r.depth,
    fetchedAt: new Date(r.fetchedAt).toISOString(),
    contentType: r.contentType,
    type: pageTypeOf(r.documentType),
    bodyBytes: r.bodyBytes,
    pageCount: r.pageCount,
    duplicate: r.duplicateKind === null || r.duplicateOf === null ? null : { kind: r.duplicateKind, of: r.duplicateOf },
    soft404: r.soft404 === 1,
    version: r.version,
    firstFetchedAt: new Date(r.firstFetchedAt).toISOString(),
    lastChangedAt: isoOrNull(r.lastChangedAt),
    goneAt: isoOrNull(r.goneAt),
  };
}

/** LIKE with the user's text taken literally. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function pageTable(db: ReadonlyDb, query: Omit<PageListInput, 'collection'>): PageList {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.hotOnly === true) where.push('p.hot = 1');
  const filter = query.filter?.trim() ?? '';
  if (filter !== '') {
    where.push(`(u.url LIKE ? ESCAPE '\\' OR p.title LIKE ? ESCAPE '\\')`);
    params.push(likePattern(filter), likePattern(filter));
  }
  const versions = versionFilterSql(db, 'p', query);
  where.push(...versions.where);
  params.push(...versions.params);
  const type = documentFilterSql(db, query.type);
  if (type !== undefined) {
    where.push(type.where);
    params.push(...type.params);
  }
  const clause = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  const total = db.prepare(`SELECT count(*) ${fromSql(db)} ${clause}`).pluck().get(...params) as number;
  const offset = query.offset ?? 0;
  const row = rowSql(db);
  const rows = db
    .prepare(`SELECT ${row.columns} ${row.from} ${clause} ORDER BY ${ORDER[query.sort ?? 'relevance']} LIMIT ? OFFSET ?`)
    .all(...params, query.limit ?? 50, offset) as RawRow[];
  return { total, offset, pages: rows.map(toRow) };
}

export function pageRow(db: ReadonlyDb, seq: number): PageRow {
  const { columns, from } = rowSql(db);
  const row = db.prepare(`SELECT ${columns} ${from} WHERE p.seq = ?`).get(seq) as RawRow | undefined;
  if (row === undefined) throw new UsageError(`there is no page number ${seq} in this collection`, { seq });
  return toRow(row);
}

export interface PageLinks {
  outlinks: number;
  /** Outlinks whose target was fetched too, so the viewer can follow them offline. */
  inCollection: number;
  note: string | null;
  hasBody: boolean;
  /** The server's last answer about the page, fetch or revisit (epoch ms). */
  checkedAt: number;
}

export function pageLinks(db: ReadonlyDb, seq: number): PageLinks {
  const counts = db
    .prepare(`SELECT count(*) AS outlinks, count(t.seq) AS inCollection FROM links l LEFT JOIN pages t ON t.url_id = l.dst_id WHERE l.src_seq = ?`)
    .get(seq) as { outlinks: number; inCollection: number };
  const checked = hasVersions(db) ? 'coalesce(checked_at, fetched_at)' : 'fetched_at';
  const page = db.prepare(`SELECT note, ${storedBodySql(db, 'pages')} IS NOT NULL AS hasBody, ${checked} AS checkedAt FROM pages WHERE seq = ?`).get(seq) as
    | { note: string | null; hasBody: number; checkedAt: number }
    | undefined;
  if (page === undefined) throw new UsageError(`there is no page number ${seq} in this collection`, { seq });
  return { ...counts, note: page.note, hasBody: page.hasBody === 1, checkedAt: page.checkedAt };
}

export interface SearchTableOptions {
  limit: number;
  /** Put around the matched words of each snippet. */
  marks: [string, string];
  allVersions?: boolean;
}

/** Full-text search, best first, with each hit's verdict (an earlier version's own); matched words are wrapped in `marks`. */
export function searchTable(db: ReadonlyDb, text: string, options: SearchTableOptions): SearchResult[] {
  return withVerdicts(db, searchPages(db, text, { limit: options.limit, highlight: options.marks, allVersions: options.allVersions === true }));
}

/** Search hits of this collection as the API's results, each with its verdict (an earlier version's own). */
export function withVerdicts(db: ReadonlyDb, hits: readonly SearchHit[]): SearchResult[] {
  if (hits.length === 0) return [];
  const latestVerdict = db.prepare('SELECT relevance, hot FROM pages WHERE seq = ?');
  const earlierVerdict = hits.some((hit) => !hit.latest) ? db.prepare('SELECT relevance, hot FROM page_versions WHERE page_seq = ? AND version = ?') : undefined;
  return hits.map((hit) => {
    const v = (hit.latest ? latestVerdict.get(hit.seq) : earlierVerdict?.get(hit.seq, hit.version)) as { relevance: number | null; hot: number };
    return {
      seq: hit.seq, url: hit.url, title: hit.title, snippet: hit.snippet, relevance: v.relevance, hot: v.hot === 1,
      version: hit.version, latest: hit.latest, fetchedAt: new Date(hit.fetchedAt).toISOString(),
      type: pageTypeOf(hit.documentType), documentPage: hit.documentPage,
    };
  });
}
