/**
 * Stored pages for the viewer, read from collections through the library's PageLookup
 * (library/page-lookup.ts, on a read-only view of each connection). The body column holds the gzipped
 * body bytes as received (after Content-Encoding); `charset` is the encoding the parser
 * decoded it with, so decoding it again with that label gives the text the crawler read.
 */
import { gunzipSync } from 'node:zlib';
import { decodeHtml } from '../parse/charset.ts';
import { isParseableHtml, parseContentType } from '../parse/content-type.ts';
import { documentFile } from '../library/document-rows.ts';
import { PageLookup, type StoredPageRow } from '../library/page-lookup.ts';
import type { DocumentType } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { RenderRows } from '../library/render-rows.ts';
import { documentContentType, documentFileName } from './document-file.ts';
import type { StoredRequisite } from './sanitize-html.ts';

export interface StoredPage {
  /** The canonical URL the page was fetched from. */
  url: string;
  status: number;
  contentType: string | null;
  /** The decoded HTML; null when the page is not HTML or has no body. */
  html: string | null;
  /** A plain-text document's decoded text, shown as text; null for anything else. */
  plainText: string | null;
  /** The document type the page was read as; null for a web page and for an earlier version. */
  documentType: DocumentType | null;
  /** Bytes of the body as received (0 when none was stored). */
  bodyBytes: number;
  /** Where a 3xx pointed, when the page is a redirect. */
  redirectTo: string | null;
}

export interface StoredPageSource {
  /** The page's latest version, or version `version` of it. Throws what `openDb` throws for an unknown collection (e.g. CollectionError). */
  page(collection: string, seq: number, version?: number): StoredPage | undefined;
  /**
   * The page to show for a canonical URL: its stored 2xx HTML page or document, found through
   * at most MAX_REDIRECT_HOPS stored redirects; undefined when there is none.
   */
  seqOfUrl(collection: string, canonicalUrl: string): number | undefined;
  /** A stylesheet or image the collection stored as a page requisite (or for a render), by absolute URL. */
  requisite(collection: string, url: string): StoredRequisite | undefined;
  /** The bytes as received of the document stored as page `seq`; undefined when it is no document or kept no body. */
  file(collection: string, seq: number): StoredFile | undefined;
}

/** A stored document as a file to hand out. */
export interface StoredFile {
  bytes: Buffer;
  /** The type to send it with (document-file.ts): never one a browser shows as a page. */
  contentType: string;
  fileName: string;
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
  // A document is never read as HTML, whatever type its server gave it.
  if (row.body === null || row.documentType !== null || !isHtmlPage(row.contentType, true, row.note)) return null;
  return decodeStoredBody(row.body, row.charset, row.contentType);
}

function decodeText(row: StoredPageRow): string | null {
  if (row.body === null || row.documentType !== 'text') return null;
  return decodeStoredBody(row.body, row.charset, row.contentType);
}

/**
 * A stored body (gzip of the bytes as received) as the bytes received; null when it cannot be
 * read back. `bodyBytes`, the size stored with it, lets a document larger than the usual
 * bound through: a body never inflates past its own size.
 */
export function inflateStoredBody(body: Buffer, bodyBytes = 0): Buffer | null {
  try {
    return gunzipSync(body, { maxOutputLength: Math.max(MAX_INFLATED_BYTES, bodyBytes) });
  } catch {
    return null;
  }
}

/** A stored body (gzip of the bytes as received) as text, decoded with its charset; null when it cannot be read back. */
export function decodeStoredBody(body: Buffer, charset: string | null, contentType: string | null): string | null {
  const bytes = inflateStoredBody(body);
  return bytes === null ? null : decodeHtml(bytes, charset ?? parseContentType(contentType ?? undefined).charset).text;
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
        plainText: decodeText(row),
        documentType: row.documentType,
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

    file(collection, seq) {
      const row = documentFile(openDb(collection), seq);
      if (row === undefined || row.body === null) return undefined;
      const bytes = inflateStoredBody(row.body, row.bodyBytes);
      if (bytes === null) return undefined;
      return { bytes, contentType: documentContentType(row.contentType, row.type, row.charset), fileName: documentFileName(row.url, row.type) };
    },

    seqOfUrl(collection, canonicalUrl) {
      const lookup = lookupFor(collection);
      let id = lookup.urlId(canonicalUrl);
      for (let hop = 0; id !== undefined && hop <= MAX_REDIRECT_HOPS; hop++) {
        const page = lookup.pageOfUrl(id);
        if (page === undefined) return undefined;
        if (page.status >= 200 && page.status < 300) {
          const shown = isHtmlPage(page.contentType, page.hasBody, page.note) || (page.hasBody && page.documentType !== null);
          return shown ? page.seq : undefined;
        }
        id = page.status >= 300 && page.status < 400 && page.redirectTo !== null ? page.redirectTo : undefined;
      }
      return undefined;
    },
  };
}
