import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { DocumentFacts } from '../../../../crawler/parse/documents/document-facts.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { openCollection, type Db } from '../../../../crawler/store/database.ts';
import { DocumentStore } from '../../../../crawler/store/document-store.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import { PageStore } from '../../../../crawler/store/page-store.ts';
import { saveSettings } from '../../../../crawler/store/settings-store.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';
import { UrlStore } from '../../../../crawler/store/url-store.ts';
import { canonicalize } from '../../../../crawler/url/canonical.ts';
import { fingerprint } from '../../../../crawler/url/fingerprint.ts';

/*
 * A collection holding documents beside web pages, written through the store's own API as
 * the crawler writes a document: a page row (the bytes gzipped, the text with pages joined by
 * blank lines) and its documents row. The PDF is a real one from Debian's r-doc-pdf, its text
 * read with PDF.js page by page.
 */

export const R_FAQ_PDF = '/usr/share/doc/r-doc-pdf/manual/R-FAQ.pdf';
export const SITE = 'http://docs.example';
export const PDF_URL = `${SITE}/manual/R-FAQ.pdf`;
export const TEXT_URL = `${SITE}/notes/readme.txt`;
export const HTML_URL = `${SITE}/`;
/** A plain-text document that holds markup: shown and served, it must stay text. */
export const HOSTILE_TEXT = '<script>document.title = "ran"</script><h1>Not a heading</h1>\nNotes on installing R packages from the quokkaverse mirror.\n';
/** A word of the PDF's stored title that its text does not hold. */
export const PDF_TITLE_WORD = 'zyzzyva';
export const COLLECTION = 'documents';

export interface DocumentCollection {
  db: Db;
  path: string;
  pdfSeq: number;
  textSeq: number;
  htmlSeq: number;
  /** The PDF's extracted text and its page starts, as stored. */
  pdfText: string;
  pdfPageStarts: number[];
  pdfBytes: Buffer;
}

/** Each page's text of a PDF, read with PDF.js's Node build (no worker, no eval, no network). */
export async function pdfPageTexts(bytes: Buffer): Promise<string[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const loading = pdfjs.getDocument({ data: new Uint8Array(bytes), enableXfa: false, verbosity: 0 });
  const document = await loading.promise;
  const pages: string[] = [];
  for (let n = 1; n <= document.numPages; n++) {
    const content = await (await document.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : ' ') : '')).join('').trim());
  }
  await loading.destroy();
  return pages;
}

/** Pages joined as the store keeps them, with where each starts. */
export function joinPages(pages: readonly string[]): { text: string; pageStarts: number[] } {
  const pageStarts: number[] = [];
  let text = '';
  for (const page of pages) {
    if (pageStarts.length > 0) text += '\n\n';
    pageStarts.push(text.length);
    text += page;
  }
  return { text, pageStarts };
}

class Writer {
  readonly #hosts: HostStore;
  readonly #urls: UrlStore;
  readonly #pages: PageStore;
  readonly #documents: DocumentStore;

  constructor(db: Db) {
    this.#hosts = new HostStore(db);
    this.#urls = new UrlStore(db);
    this.#pages = new PageStore(db);
    this.#documents = new DocumentStore(db);
  }

  page(raw: string, p: { contentType: string; body: Buffer; title: string; text: string; relevance: number; hot?: boolean; charset?: string }, facts: DocumentFacts | null): number {
    const url = canonicalize(raw);
    const hostId = this.#hosts.idFor(url.slice(0, url.indexOf('/', url.indexOf('//') + 2)));
    const urlId = this.#urls.insert({ fp: fingerprint(url), url, hostId, depth: 0, state: UrlState.fetched, parentId: null, redirects: 0, reason: null });
    const now = Date.now();
    const seq = this.#pages.insert({
      urlId, status: 200, httpVersion: '1.1', statusText: 'OK', headers: [['content-type', p.contentType]], contentType: p.contentType, charset: p.charset ?? null,
      body: gzipSync(p.body), bodyBytes: p.body.length, wireBytes: p.body.length, title: p.title, text: p.text, terms: null,
      relevance: p.relevance, hot: p.hot ?? false, judgedHot: p.hot ?? false, noindex: false, nofollow: false, canonical: null, redirectTo: null, note: null,
      startedAt: now, fetchedAt: now, responseMs: 5, remoteAddress: '127.0.0.1', requestHead: null, payload: null,
      simhash: null, bodyHash: null, duplicateOf: null, soft404: false,
    });
    this.#documents.save(seq, facts);
    return seq;
  }
}

/** Builds the collection `COLLECTION` in `dir`: an HTML page, the R FAQ as a PDF and a plain-text file holding markup. */
export async function buildDocumentCollection(dir: string): Promise<DocumentCollection> {
  const path = join(dir, `${COLLECTION}.forager`);
  const db = openCollection(path, { create: true });
  saveSettings(db, { ...DEFAULT_SETTINGS, query: 'R packages installation', seeds: [HTML_URL] });
  const writer = new Writer(db);
  const pdfBytes = readFileSync(R_FAQ_PDF);
  const { text: pdfText, pageStarts: pdfPageStarts } = joinPages(await pdfPageTexts(pdfBytes));
  const html = '<!doctype html><title>R documents</title><h1>R documents</h1><a href="/manual/R-FAQ.pdf">the R FAQ</a> <a href="/notes/readme.txt">notes</a>';
  const htmlSeq = writer.page(HTML_URL, { contentType: 'text/html; charset=utf-8', body: Buffer.from(html), title: 'R documents', text: 'R documents the R FAQ notes', relevance: 0.2 }, null);
  const pdfSeq = writer.page(PDF_URL, { contentType: 'application/pdf', body: pdfBytes, title: `The R FAQ, ${PDF_TITLE_WORD} edition`, text: pdfText, relevance: 0.9, hot: true }, {
    type: 'pdf', pageCount: pdfPageStarts.length, pagesRead: pdfPageStarts.length, pageStarts: pdfPageStarts, metadata: { producer: 'pdfTeX' },
  });
  const textSeq = writer.page(TEXT_URL, { contentType: 'text/plain', charset: 'utf-8', body: Buffer.from(HOSTILE_TEXT), title: 'Not a heading', text: HOSTILE_TEXT, relevance: 0.5 }, {
    type: 'text', pageCount: 1, pagesRead: 1, pageStarts: [0], metadata: {},
  });
  return { db, path, pdfSeq, textSeq, htmlSeq, pdfText, pdfPageStarts, pdfBytes };
}
