/**
 * What the mirror reads of a collection, one page at a time (point queries by seq, so that
 * nothing but the current page is in memory). A stored body is the gzip of the bytes as
 * received; decoding them with the stored charset gives the text the crawler parsed, as in
 * the viewer (page-source.ts).
 */
import { isParseableHtml, parseContentType } from '../../parse/content-type.ts';
import type { Db } from '../../store/database.ts';
import { decodeStoredBody, isHtmlPage } from '../../viewer/page-source.ts';
/** Enough stored text for a ~200-character snippet after whitespace is collapsed. */
const SNIPPET_SOURCE_CHARS = 600;

export interface MirrorSourcePage {
  url: string;
  fetchedAt: number;
  /** The decoded HTML, or null when the body cannot be read back. */
  html: string | null;
}

export interface MirrorIndexFacts {
  url: string;
  title: string | null;
  /** The start of the stored text. */
  text: string | null;
  relevance: number | null;
  hot: boolean;
}

interface BodyRow {
  url: string;
  fetchedAt: number;
  contentType: string | null;
  charset: string | null;
  body: Buffer | null;
}

export class MirrorSource {
  readonly #bodyFacts;
  readonly #body;
  readonly #indexFacts;

  constructor(db: Db) {
    this.#bodyFacts = db.prepare('SELECT body IS NOT NULL AS hasBody, note FROM pages WHERE seq = ?');
    this.#body = db.prepare(
      `SELECT u.url, p.fetched_at AS fetchedAt, p.content_type AS contentType, p.charset, p.body
         FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?`,
    );
    this.#indexFacts = db.prepare(
      `SELECT u.url, p.title, substr(p.text, 1, ${SNIPPET_SOURCE_CHARS}) AS text, p.relevance, p.hot
         FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?`,
    );
  }

  /** Whether the page has an HTML body to mirror; `contentType` comes with the selection. */
  hasHtml(seq: number, contentType: string | null): boolean {
    if (!isParseableHtml(parseContentType(contentType ?? undefined).mime)) return false;
    const row = this.#bodyFacts.get(seq) as { hasBody: number; note: string | null } | undefined;
    return row !== undefined && isHtmlPage(contentType, row.hasBody === 1, row.note);
  }

  page(seq: number): MirrorSourcePage | undefined {
    const row = this.#body.get(seq) as BodyRow | undefined;
    if (row === undefined) return undefined;
    return { url: row.url, fetchedAt: row.fetchedAt, html: decodeBody(row) };
  }

  indexFacts(seq: number): MirrorIndexFacts | undefined {
    const row = this.#indexFacts.get(seq) as (Omit<MirrorIndexFacts, 'hot'> & { hot: number }) | undefined;
    return row === undefined ? undefined : { ...row, hot: row.hot === 1 };
  }
}

function decodeBody(row: BodyRow): string | null {
  return row.body === null ? null : decodeStoredBody(row.body, row.charset, row.contentType);
}
