/**
 * Reads stored pages for the viewer from collections. The body column holds the gzipped
 * body bytes as received (after Content-Encoding); `charset` is the encoding the parser
 * decoded it with, so decoding it again with that label gives the text the crawler read.
 */
import { gunzipSync } from 'node:zlib';
import { decodeHtml } from '../parse/charset.ts';
import { isParseableHtml, parseContentType } from '../parse/content-type.ts';
import type { Db } from '../store/database.ts';
import { fingerprint } from '../url/fingerprint.ts';

export interface StoredPage {
  /** The canonical URL the page was fetched from. */
  url: string;
  status: number;
  contentType: string | null;
  /** The decoded HTML; null when the page is not HTML or has no body. */
  html: string | null;
  /** Bytes of the body as received (0 when none was stored). */
  bodyBytes: number;
  /** Where a 3xx pointed, when the page is a redirect. */
  redirectTo: string | null;
}

export interface StoredPageSource {
  /** Throws what `openDb` throws for an unknown collection (e.g. CollectionError). */
  page(collection: string, seq: number): StoredPage | undefined;
  /**
   * The page to show for a canonical URL: its stored 2xx HTML page, found through at most
   * MAX_REDIRECT_HOPS stored redirects; undefined when there is none.
   */
  seqOfUrl(collection: string, canonicalUrl: string): number | undefined;
}

export const MAX_REDIRECT_HOPS = 5;
/** The longest URL a crawl may store: longer links cannot name a page of a collection. */
export const MAX_STORED_URL_LENGTH = 1_000_000;
/** A stored body never inflates past this; the crawler's own limit is far lower. */
const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

interface PageRow {
  url: string;
  status: number;
  contentType: string | null;
  charset: string | null;
  body: Buffer | null;
  bodyBytes: number;
  note: string | null;
  redirectTo: string | null;
}

interface PageByUrl {
  seq: number;
  status: number;
  contentType: string | null;
  hasBody: number;
  note: string | null;
  redirectTo: number | null;
}

interface Statements {
  page: (seq: number) => PageRow | undefined;
  hostId: (origin: string) => number | undefined;
  urlByFingerprint: (hostId: number, fp: bigint) => { id: number; url: string } | undefined;
  pageOfUrl: (urlId: number) => PageByUrl | undefined;
}

function prepare(db: Db): Statements {
  const page = db.prepare(
    `SELECT u.url, p.status, p.content_type AS contentType, p.charset, p.body, p.body_bytes AS bodyBytes, p.note,
            r.url AS redirectTo
       FROM pages p JOIN urls u ON u.id = p.url_id LEFT JOIN urls r ON r.id = p.redirect_to
      WHERE p.seq = ?`,
  );
  const hostId = db.prepare('SELECT id FROM hosts WHERE origin = ?').pluck();
  const urlByFingerprint = db.prepare('SELECT id, url FROM urls WHERE host_id = ? AND fp = ?');
  const pageOfUrl = db.prepare(
    `SELECT seq, status, content_type AS contentType, body IS NOT NULL AS hasBody, note, redirect_to AS redirectTo
       FROM pages WHERE url_id = ?`,
  );
  return {
    page: (seq) => page.get(seq) as PageRow | undefined,
    hostId: (origin) => hostId.get(origin) as number | undefined,
    urlByFingerprint: (host, fp) => urlByFingerprint.get(host, fp) as { id: number; url: string } | undefined,
    pageOfUrl: (urlId) => pageOfUrl.get(urlId) as PageByUrl | undefined,
  };
}

/** HTML the parser would read: an HTML type, a body, and bytes that did not look binary. */
export function isHtmlPage(contentType: string | null, hasBody: boolean, note: string | null): boolean {
  return hasBody && isParseableHtml(parseContentType(contentType ?? undefined).mime) && !(note?.startsWith('content-type-mismatch') ?? false);
}

function decodeBody(row: PageRow): string | null {
  if (row.body === null || !isHtmlPage(row.contentType, true, row.note)) return null;
  return decodeStoredBody(row.body, row.charset, row.contentType);
}

/** A stored body (gzip of the bytes as received) as text, decoded with its charset; null when it cannot be read back. */
export function decodeStoredBody(body: Buffer, charset: string | null, contentType: string | null): string | null {
  let bytes: Buffer;
  try {
    bytes = gunzipSync(body, { maxOutputLength: MAX_INFLATED_BYTES });
  } catch {
    return null;
  }
  return decodeHtml(bytes, charset ?? parseContentType(contentType ?? undefined).charset).text;
}

/** The hosts-table key of a canonical URL: everything before its path, as the crawler stores it. */
export function originOf(canonicalUrl: string): string | undefined {
  const scheme = canonicalUrl.indexOf('//');
  const path = scheme === -1 ? -1 : canonicalUrl.indexOf('/', scheme + 2);
  return path === -1 ? undefined : canonicalUrl.slice(0, path);
}

export function createCollectionPageSource(openDb: (collection: string) => Db): StoredPageSource {
  const statements = new WeakMap<Db, Statements>();
  const statementsFor = (collection: string): Statements => {
    const db = openDb(collection);
    let prepared = statements.get(db);
    if (prepared === undefined) {
      prepared = prepare(db);
      statements.set(db, prepared);
    }
    return prepared;
  };

  const urlId = (sql: Statements, canonicalUrl: string): number | undefined => {
    const origin = originOf(canonicalUrl);
    const host = origin === undefined ? undefined : sql.hostId(origin);
    if (host === undefined) return undefined;
    const row = sql.urlByFingerprint(host, fingerprint(canonicalUrl));
    // Fingerprints can collide, in principle: the stored URL must be this one.
    return row !== undefined && row.url === canonicalUrl ? row.id : undefined;
  };

  return {
    page(collection, seq) {
      const row = statementsFor(collection).page(seq);
      if (row === undefined) return undefined;
      return {
        url: row.url,
        status: row.status,
        contentType: row.contentType,
        html: decodeBody(row),
        bodyBytes: row.bodyBytes,
        redirectTo: row.redirectTo,
      };
    },

    seqOfUrl(collection, canonicalUrl) {
      const sql = statementsFor(collection);
      let id = urlId(sql, canonicalUrl);
      for (let hop = 0; id !== undefined && hop <= MAX_REDIRECT_HOPS; hop++) {
        const page = sql.pageOfUrl(id);
        if (page === undefined) return undefined;
        if (page.status >= 200 && page.status < 300) {
          return isHtmlPage(page.contentType, page.hasBody === 1, page.note) ? page.seq : undefined;
        }
        id = page.status >= 300 && page.status < 400 && page.redirectTo !== null ? page.redirectTo : undefined;
      }
      return undefined;
    },
  };
}
