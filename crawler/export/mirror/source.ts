/**
 * What the mirror reads of a collection, one page at a time (the library's MirrorRows: point
 * queries by seq, so that nothing but the current page is in memory). A stored body is the
 * gzip of the bytes as received; decoding them with the stored charset gives the text the
 * crawler parsed, as in the viewer (page-source.ts). A document's bytes are its file.
 */
import { gunzipSync } from 'node:zlib';
import type { ExportPage } from '../../library/export-selection.ts';
import { MirrorRows, type MirrorBodyRow, type MirrorIndexFacts } from '../../library/mirror-rows.ts';
import { parseContentType } from '../../parse/content-type.ts';
import { documentTypeOfMime } from '../../parse/documents/document-facts.ts';
import type { ReadonlyDb } from '../../store/database.ts';
import { decodeStoredBody, isHtmlPage } from '../../viewer/page-source.ts';
import { ExportError } from '../export-error.ts';
import type { MirrorFileKind } from './names.ts';

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

  /**
   * The file a selected page becomes: its HTML, a document's bytes (a PDF or plain text,
   * read or not, as long as its bytes were kept), or none when nothing stored can be shown.
   */
  fileKind(page: Pick<ExportPage, 'seq' | 'contentType' | 'documentType'>): MirrorFileKind | undefined {
    const row = this.#rows.bodyFacts(page.seq);
    if (row === undefined) return undefined;
    const document = page.documentType ?? documentTypeOfMime(parseContentType(page.contentType ?? undefined).mime);
    if (document !== undefined) return row.hasBody ? document : undefined;
    return isHtmlPage(page.contentType, row.hasBody, row.note) ? 'html' : undefined;
  }

  page(seq: number): MirrorSourcePage | undefined {
    const row = this.#rows.body(seq);
    if (row === undefined) return undefined;
    return { url: row.url, fetchedAt: row.fetchedAt, html: decodeBody(row) };
  }

  /** A document's file: its bytes as received (any Content-Encoding removed), as the crawl stored them. */
  documentBytes(seq: number): Buffer {
    const body = this.#rows.body(seq)?.body ?? null;
    if (body === null) throw new ExportError(`document ${seq} left the collection during the export`, { seq });
    try {
      return gunzipSync(body);
    } catch (err) {
      throw new ExportError(`the stored body of document ${seq} is corrupt`, { seq }, { cause: err });
    }
  }

  indexFacts(seq: number): MirrorIndexFacts | undefined {
    return this.#rows.indexFacts(seq);
  }
}

function decodeBody(row: MirrorBodyRow): string | null {
  return row.body === null ? null : decodeStoredBody(row.body, row.charset, row.contentType);
}
