/**
 * Stored pages for the viewer, read from collections through the library's PageLookup
 * (library/page-lookup.ts, on a read-only view of each connection). The body column holds the gzipped
 * body bytes as received (after Content-Encoding); `charset` is the encoding the parser
 * decoded it with, so decoding it again with that label gives the text the crawler read.
 */
import { gunzipSync } from 'node:zlib';
import { decodeHtml } from '../parse/charset.ts';
import { isParseableHtml, parseContentType } from '../parse/content-type.ts';
import { PageLookup, type StoredPageRow } from '../library/page-lookup.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { RenderRows } from '../library/render-rows.ts';
import type { StoredRequisite } from './sanitize-html.ts';

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
  /** The page's latest version, or version `version` of it. Throws what `openDb` throws for an unknown collection (e.g. CollectionError). */
  page(collection: string, seq: number, version?: number): StoredPage | undefined;
  /**
   * The page to show for a canonical URL: its stored 2xx HTML page, found through at most
   * MAX_REDIRECT_HOPS stored redirects; undefined when there is none.
   */
  seqOfUrl(collection: string, canonicalUrl: string): number | undefined;
  /** A stylesheet or image the collection stored as a page requisite (or for a render), by absolute URL. */
  requisite(collection: string, url: string): StoredRequisite | undefined;
}

export const MAX_REDIRECT_HOPS = 5;
/** The longest URL a crawl may store: longer links cannot name a page of a collection. */
export const MAX_STORED_URL_LENGTH = 1_000_000;
/** A stored body never inflates past this; the crawler's own limit is far lower. */
const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

/** HTML the parser would read: an HTML type, a body, and bytes that did not look binary. */
export function isHtmlPage(contentType: string | null, hasBody: boolean, note: string | null): boolean {
  return hasBody && isParseableHtml(parseContentType(contentType ?? undefined).mime) && !(note?.startsWith('content-type-mismatch') ?? false);
}

function decodeBody(row: StoredPageRow): string | null {
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

export function createCollectionPageSource(openDb: (collection: string) => ReadonlyDb): StoredPageSource {
  const lookups = new WeakMap<ReadonlyDb, PageLookup>();
  const renderRows = new WeakMap<ReadonlyDb, RenderRows>();
  const lookupFor = (collection: string): PageLookup => {
    const db = openDb(collection);
    let lookup = lookups.get(db);
    if (lookup === undefined) {
      lookup = new PageLookup(db);
      lookups.set(db, lookup);
    }
    return lookup;
  };

  return {
    page(collection, seq, version) {
      const row = lookupFor(collection).page(seq, version);
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

    requisite(collection, url) {
      const db = openDb(collection);
      let rows = renderRows.get(db);
      if (rows === undefined) {
        rows = new RenderRows(db);
        renderRows.set(db, rows);
      }
      return rows.shownResource(url);
    },

    seqOfUrl(collection, canonicalUrl) {
      const lookup = lookupFor(collection);
      let id = lookup.urlId(canonicalUrl);
      for (let hop = 0; id !== undefined && hop <= MAX_REDIRECT_HOPS; hop++) {
        const page = lookup.pageOfUrl(id);
        if (page === undefined) return undefined;
        if (page.status >= 200 && page.status < 300) {
          return isHtmlPage(page.contentType, page.hasBody, page.note) ? page.seq : undefined;
        }
        id = page.status >= 300 && page.status < 400 && page.redirectTo !== null ? page.redirectTo : undefined;
      }
      return undefined;
    },
  };
}
