import type { DocumentType } from '../protocol/api.ts';
import { hasVersions, storedBodySql, versionBodySql } from '../store/stored-body.ts';
import type { ReadonlyDb } from '../store/database.ts';
import type { PageRow } from '../store/page-row.ts';
import { fingerprint } from '../url/fingerprint.ts';
import { hasDocuments } from './document-columns.ts';

/*
 * Point lookups of stored pages for the viewer and the offline mirror: a page by its fetch
 * number (its latest version, or an earlier one), a URL's id by its canonical form, the page
 * fetched from a URL, and where a stored redirect pointed. Each is one indexed query, prepared
 * once per lookup object.
 */

/** A stored page as the viewer shows it: the body is the gzip of the bytes as received. */
export interface StoredPageRow extends Pick<PageRow, 'status' | 'contentType' | 'charset' | 'body' | 'bodyBytes' | 'note'> {
  /** The canonical URL the page was fetched from. */
  url: string;
  /** The URL a 3xx pointed to, when there is one. */
  redirectTo: string | null;
  /** The document type the latest version was read as; null for a web page and for an earlier version. */
  documentType: DocumentType | null;
}

/** The page fetched from a URL, enough to decide what to show for it. */
export interface PageOfUrl extends Pick<PageRow, 'seq' | 'status' | 'contentType' | 'note' | 'redirectTo'> {
  hasBody: boolean;
  /** The document type the page was read as; null for a web page. */
  documentType: DocumentType | null;
}

/** The hosts-table key of a canonical URL: everything before its path, as the crawler stores it. */
export function originOf(canonicalUrl: string): string | undefined {
  const scheme = canonicalUrl.indexOf('//');
  const path = scheme === -1 ? -1 : canonicalUrl.indexOf('/', scheme + 2);
  return path === -1 ? undefined : canonicalUrl.slice(0, path);
}

export class PageLookup {
  readonly #page;
  readonly #latestVersion;
  readonly #earlierVersion;
  readonly #hostId;
  readonly #urlByFingerprint;
  readonly #pageOfUrl;
  readonly #redirectTarget;

  constructor(db: ReadonlyDb) {
    const documents = hasDocuments(db);
    this.#page = db.prepare(
      `SELECT u.url, p.status, p.content_type AS contentType, p.charset, ${storedBodySql(db, 'p')} AS body, p.body_bytes AS bodyBytes, p.note,
              r.url AS redirectTo, ${documents ? 'doc.type' : 'NULL'} AS documentType
         FROM pages p JOIN urls u ON u.id = p.url_id LEFT JOIN urls r ON r.id = p.redirect_to
              ${documents ? 'LEFT JOIN documents doc ON doc.page_seq = p.seq' : ''}
        WHERE p.seq = ?`,
    );
    const versioned = hasVersions(db);
    this.#latestVersion = db.prepare(`SELECT ${versioned ? 'version' : '1'} FROM pages WHERE seq = ?`).pluck();
    // An earlier version kept no redirect target of its own.
    this.#earlierVersion = versioned
      ? db.prepare(
          `SELECT u.url, v.status, v.content_type AS contentType, v.charset, ${versionBodySql(db, 'v')} AS body, v.body_bytes AS bodyBytes, v.note,
                  NULL AS redirectTo, NULL AS documentType
             FROM page_versions v JOIN pages p ON p.seq = v.page_seq JOIN urls u ON u.id = p.url_id
            WHERE v.page_seq = ? AND v.version = ?`,
        )
      : undefined;
    this.#hostId = db.prepare('SELECT id FROM hosts WHERE origin = ?').pluck();
    this.#urlByFingerprint = db.prepare('SELECT id, url FROM urls WHERE host_id = ? AND fp = ?');
    this.#pageOfUrl = db.prepare(
      `SELECT seq, status, content_type AS contentType, ${storedBodySql(db, 'pages')} IS NOT NULL AS hasBody, note, redirect_to AS redirectTo,
              ${documents ? '(SELECT type FROM documents WHERE page_seq = pages.seq)' : 'NULL'} AS documentType
         FROM pages WHERE url_id = ?`,
    );
    this.#redirectTarget = db.prepare(
      `SELECT t.url FROM pages p JOIN urls t ON t.id = p.redirect_to
        WHERE p.url_id = ? AND p.status BETWEEN 300 AND 399`,
    ).pluck();
  }

  /** The page with fetch number `seq`: its latest version, or version `version` of it when given. */
  page(seq: number, version?: number): StoredPageRow | undefined {
    if (version !== undefined && this.#latestVersion.get(seq) !== version) return this.#earlierVersion?.get(seq, version) as StoredPageRow | undefined;
    return this.#page.get(seq) as StoredPageRow | undefined;
  }

  /** The id of a canonical URL the collection knows; undefined when it does not. */
  urlId(canonicalUrl: string): number | undefined {
    const origin = originOf(canonicalUrl);
    const host = origin === undefined ? undefined : (this.#hostId.get(origin) as number | undefined);
    if (host === undefined) return undefined;
    const row = this.#urlByFingerprint.get(host, fingerprint(canonicalUrl)) as { id: number; url: string } | undefined;
    // Fingerprints can collide, in principle: the stored URL must be this one.
    return row !== undefined && row.url === canonicalUrl ? row.id : undefined;
  }

  /** The page fetched from URL `urlId`, if it was fetched. */
  pageOfUrl(urlId: number): PageOfUrl | undefined {
    const row = this.#pageOfUrl.get(urlId) as (Omit<PageOfUrl, 'hasBody'> & { hasBody: number }) | undefined;
    return row === undefined ? undefined : { ...row, hasBody: row.hasBody === 1 };
  }

  /** Where the stored 3xx response of URL `urlId` pointed, if it has one. */
  redirectTarget(urlId: number): string | undefined {
    return this.#redirectTarget.get(urlId) as string | undefined;
  }
}
