/*
 * The pages row, in one place: the page as the crawl hands it to the store (NewPage), the row
 * as SQLite holds it and readers select it (PageRow, a column's name in camelCase), and the
 * columns a page is written with, in one order for the store's INSERT, a new version's
 * UPDATE and the merge's read of a shard's row.
 */

/** A page to store, as the crawl, a revisit, the import and the merge give it. */
export interface NewPage {
  urlId: number;
  status: number;
  httpVersion: string | null;
  statusText: string | null;
  headers: [string, string][];
  contentType: string | null;
  /** The charset the parser decoded the body with. */
  charset: string | null;
  /** gzip of the decoded body; null when there was none, or (read without storedBodySql) when an exact duplicate's original holds it. */
  body: Buffer | null;
  bodyBytes: number;
  wireBytes: number;
  title: string | null;
  text: string | null;
  terms: string | null;
  relevance: number | null;
  /** The verdict: the user's label when there is one, else the judge's. */
  hot: boolean;
  /** The judge's own verdict; null when the page was not judged. */
  judgedHot: boolean | null;
  noindex: boolean;
  nofollow: boolean;
  canonical: string | null;
  /** The URL id a 3xx pointed at. */
  redirectTo: number | null;
  /** Why the body was not parsed, if it was not. */
  note: string | null;
  startedAt: number;
  fetchedAt: number;
  responseMs: number;
  remoteAddress: string | null;
  /** Request line and header lines exactly as sent, each ending in CRLF; null before schema 2. */
  requestHead: string | null;
  /** The body as received, when a Content-Encoding made it differ from `body`'s contents. */
  payload: Buffer | null;
  /** simhashToInt of the text's simhash. */
  simhash: bigint | null;
  bodyHash: string | null;
  /** The earlier page this one duplicates: 'exact' stores no body or payload of its own. */
  duplicateOf: { seq: number; kind: 'exact' | 'near' } | null;
  soft404: boolean;
}

/** A flag as SQLite stores it: 1 or 0. */
type Stored<T> = T extends boolean ? number : T;

/** A pages row as SQLite holds it (page_versions holds a version's content in the same columns). */
export type PageRow = Omit<{ [K in keyof NewPage]: Stored<NewPage[K]> }, 'headers' | 'simhash' | 'duplicateOf'> & {
  seq: number;
  /** The response headers as received: JSON of [name, value] pairs, latin1-decoded. */
  headers: string;
  /** The 64-bit simhash in decimal (as PAGE_ROW_SQL reads it: a JavaScript number would lose bits); null when unparsed. */
  simhash: string | null;
  duplicateOf: number | null;
  duplicateKind: string | null;
};

interface PageColumn {
  name: string;
  /** The column as PAGE_ROW_SQL selects it, when not by its name. */
  read?: string;
  field: keyof PageRow;
  value(p: NewPage): unknown;
}

const flag = (on: boolean): number => (on ? 1 : 0);

/** The columns a page is written with, in the order their values bind. */
const PAGE_COLUMNS: readonly PageColumn[] = [
  { name: 'url_id', field: 'urlId', value: (p) => p.urlId },
  { name: 'status', field: 'status', value: (p) => p.status },
  { name: 'http_version', field: 'httpVersion', value: (p) => p.httpVersion },
  { name: 'status_text', field: 'statusText', value: (p) => p.statusText },
  { name: 'headers', field: 'headers', value: (p) => JSON.stringify(p.headers) },
  { name: 'content_type', field: 'contentType', value: (p) => p.contentType },
  { name: 'charset', field: 'charset', value: (p) => p.charset },
  { name: 'body', field: 'body', value: (p) => p.body },
  { name: 'body_bytes', field: 'bodyBytes', value: (p) => p.bodyBytes },
  { name: 'wire_bytes', field: 'wireBytes', value: (p) => p.wireBytes },
  { name: 'title', field: 'title', value: (p) => p.title },
  { name: 'text', field: 'text', value: (p) => p.text },
  { name: 'terms', field: 'terms', value: (p) => p.terms },
  { name: 'relevance', field: 'relevance', value: (p) => p.relevance },
  { name: 'hot', field: 'hot', value: (p) => flag(p.hot) },
  { name: 'noindex', field: 'noindex', value: (p) => flag(p.noindex) },
  { name: 'nofollow', field: 'nofollow', value: (p) => flag(p.nofollow) },
  { name: 'canonical', field: 'canonical', value: (p) => p.canonical },
  { name: 'redirect_to', field: 'redirectTo', value: (p) => p.redirectTo },
  { name: 'note', field: 'note', value: (p) => p.note },
  { name: 'started_at', field: 'startedAt', value: (p) => p.startedAt },
  { name: 'fetched_at', field: 'fetchedAt', value: (p) => p.fetchedAt },
  { name: 'response_ms', field: 'responseMs', value: (p) => p.responseMs },
  { name: 'remote_address', field: 'remoteAddress', value: (p) => p.remoteAddress },
  { name: 'request_head', field: 'requestHead', value: (p) => p.requestHead },
  { name: 'payload', field: 'payload', value: (p) => p.payload },
  { name: 'judged_hot', field: 'judgedHot', value: (p) => (p.judgedHot === null ? null : flag(p.judgedHot)) },
  { name: 'simhash', read: 'CAST(simhash AS TEXT)', field: 'simhash', value: (p) => p.simhash },
  { name: 'body_hash', field: 'bodyHash', value: (p) => p.bodyHash },
  { name: 'duplicate_of', field: 'duplicateOf', value: (p) => p.duplicateOf?.seq ?? null },
  { name: 'duplicate_kind', field: 'duplicateKind', value: (p) => p.duplicateOf?.kind ?? null },
  { name: 'soft404', field: 'soft404', value: (p) => flag(p.soft404) },
];

/** `INSERT INTO pages (…) VALUES (…)`: binds pageValues(page). */
export const INSERT_PAGE_SQL = `INSERT INTO pages (${PAGE_COLUMNS.map((c) => c.name).join(', ')}) VALUES (${PAGE_COLUMNS.map(() => '?').join(', ')})`;

/** The columns a new version replaces, as `column = ?` in pageValues' order after url_id (which a page keeps). */
export const REPLACE_PAGE_SET_SQL = PAGE_COLUMNS.slice(1).map((c) => `${c.name} = ?`).join(', ');

/** A page's values in the written columns' order: url_id first. */
export function pageValues(page: NewPage): unknown[] {
  return PAGE_COLUMNS.map((c) => c.value(page));
}

/** `SELECT … FROM pages WHERE seq = ?`: the row a page was written as, with its seq, as a PageRow. */
export const PAGE_ROW_SQL = `SELECT seq, ${PAGE_COLUMNS.map((c) => (c.read ?? c.name) === c.field ? c.field : `${c.read ?? c.name} AS ${c.field}`).join(', ')} FROM pages WHERE seq = ?`;

/** A row read back as a page to store, its ids still the row's own; throws a SyntaxError when its headers are not JSON. */
export function newPageOf(row: PageRow): NewPage {
  // seq is the row's place, not the page's; duplicateKind goes into duplicateOf.
  const { seq, duplicateKind, ...same } = row;
  return {
    ...same,
    headers: JSON.parse(row.headers) as [string, string][],
    hot: row.hot === 1,
    judgedHot: row.judgedHot === null ? null : row.judgedHot === 1,
    noindex: row.noindex === 1,
    nofollow: row.nofollow === 1,
    simhash: row.simhash === null ? null : BigInt(row.simhash),
    duplicateOf: row.duplicateOf === null ? null : { seq: row.duplicateOf, kind: duplicateKind as 'exact' | 'near' },
    soft404: row.soft404 === 1,
  };
}
