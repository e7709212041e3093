/**
 * What the mirror reads of a collection, one page at a time (the library's MirrorRows: point
 * queries by seq, so that nothing but the current page is in memory). A stored body is the
 * gzip of the bytes as received; decoding them with the stored charset gives the text the
 * crawler parsed, as in the viewer (page-source.ts).
 */
import { MirrorRows, type MirrorBodyRow, type MirrorIndexFacts } from '../../library/mirror-rows.ts';
import { isParseableHtml, parseContentType } from '../../parse/content-type.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { decodeStoredBody, isHtmlPage } from '../../viewer/page-source.ts';

export type { MirrorIndexFacts };

export interface MirrorSourcePage {
  url: string;
  fetchedAt: number;
  /** The decoded HTML, or null when the body cannot be read back. */
  html: string | null;
}

export class MirrorSource {
  readonly #rows: MirrorRows;

  constructor(db: ReadonlyDb) {
    this.#rows = new MirrorRows(db);
  }

  /** Whether the page has an HTML body to mirror; `contentType` comes with the selection. */
  hasHtml(seq: number, contentType: string | null): boolean {
    if (!isParseableHtml(parseContentType(contentType ?? undefined).mime)) return false;
    const row = this.#rows.bodyFacts(seq);
    return row !== undefined && isHtmlPage(contentType, row.hasBody, row.note);
  }

  page(seq: number): MirrorSourcePage | undefined {
    const row = this.#rows.body(seq);
    if (row === undefined) return undefined;
    return { url: row.url, fetchedAt: row.fetchedAt, html: decodeBody(row) };
  }

  indexFacts(seq: number): MirrorIndexFacts | undefined {
    return this.#rows.indexFacts(seq);
  }
}

function decodeBody(row: MirrorBodyRow): string | null {
  return row.body === null ? null : decodeStoredBody(row.body, row.charset, row.contentType);
}
