import { isParseableHtml, parseContentType } from '../parse/content-type.ts';
import { documentTypeOfMime, type DocumentFacts } from '../parse/documents/document-facts.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { documentOf } from '../store/document-store.ts';
import { hasDocuments } from './document-columns.ts';
import type { ExportPage } from './export-selection.ts';

export interface Outlink {
  url: string;
  anchor: string;
}

/** A page's history as lines of JSONL and CSV give it. */
export interface VersionFacts {
  versions: number;
  /** ISO 8601: when the latest version was fetched, if a revisit ever found the page changed; else null. */
  lastChangedAt: string | null;
  /** ISO 8601: when a revisit found the page gone; null while it is there. */
  gone: string | null;
}

export function versionFacts(page: ExportPage): VersionFacts {
  return {
    versions: page.version,
    lastChangedAt: page.version > 1 ? new Date(page.fetchedAt).toISOString() : null,
    gone: page.goneAt === null ? null : new Date(page.goneAt).toISOString(),
  };
}

/**
 * What a page is, in a word: `html`, a document type (`pdf`, `text`), else its MIME type's
 * subtype (`png`, `zip`, `svg+xml`), `unknown` without one. A PDF or plain text the crawl
 * did not read is still `pdf` or `text` (its pageCount says it was not read).
 */
export function pageType(page: Pick<ExportPage, 'contentType' | 'documentType'>): string {
  if (page.documentType !== null) return page.documentType;
  const { mime } = parseContentType(page.contentType ?? undefined);
  if (isParseableHtml(mime)) return 'html';
  const document = documentTypeOfMime(mime);
  if (document !== undefined) return document;
  if (mime === '') return 'unknown';
  return mime.slice(mime.indexOf('/') + 1).replace(/^x-/, '');
}

/** Per-page facts that live in other tables: outlinks with anchors, a document's facts, and where a redirect chain began. */
export class PageFacts {
  readonly #db: ReadonlyDb;
  readonly #outlinks;
  readonly #redirectedFrom;
  readonly #hasDocuments: boolean;

  constructor(db: ReadonlyDb) {
    this.#db = db;
    this.#hasDocuments = hasDocuments(db);
    this.#outlinks = db.prepare('SELECT u.url, l.anchor FROM links l JOIN urls u ON u.id = l.dst_id WHERE l.src_seq = ?');
    this.#redirectedFrom = db.prepare('SELECT r.url_id AS urlId, u.url FROM pages r JOIN urls u ON u.id = r.url_id WHERE r.redirect_to = ? LIMIT 1');
  }

  /** What was read from the page as a document (type, pages, metadata); null for a web page. */
  document(seq: number): DocumentFacts | null {
    return this.#hasDocuments ? documentOf(this.#db, seq) : null;
  }

  outlinks(seq: number): Outlink[] {
    return this.#outlinks.all(seq) as Outlink[];
  }

  /** The URL first asked for: followed back through stored redirects (at most 5 hops). */
  requestedUrl(page: ExportPage): string {
    let urlId = page.urlId;
    let url = page.url;
    for (let hop = 0; hop < 5; hop++) {
      const from = this.#redirectedFrom.get(urlId) as { urlId: number; url: string } | undefined;
      if (from === undefined) break;
      urlId = from.urlId;
      url = from.url;
    }
    return url;
  }
}
