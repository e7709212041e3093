/*
 * Reading a PDF with pdf.js: its text page by page, its metadata and title, its links (URI
 * annotations and URLs written in its text), within a page cap, a text cap and a time budget.
 * A document that cannot be read, wholly or in part, gives notes (document-notes.ts), never an
 * error. The reading runs in the document worker, where a stuck one is ended from outside.
 */
import { AnnotationType, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { ExtractedPage } from '../extract-html.ts';
import { refusedAllocations } from './allocation-cap.ts';
import type { DocumentFacts } from './document-facts.ts';
import { DOCUMENT_NOTES } from './document-notes.ts';
import { documentPage } from './document-page.ts';
import { documentTitle } from './document-title.ts';
import { largestText, pageTextOf, spanUnder, type PageText } from './pdf-page-text.ts';
import { pdfMetadata, type XmpValues } from './pdf-metadata.ts';
import { openPdf } from './pdfjs.ts';
import { documentLinks, type MarkedLink } from './text-links.ts';

/** Pages read of one document at most: a 2,000-page manual is read whole, a 100,000-page trap is not. */
export const MAX_PDF_PAGES_READ = 2000;
/**
 * The reading's own budget, checked between pages: past it the pages read so far are kept. It is
 * below the document pool's hard caps (PDF_CPU_CAP_MS, PDF_WALL_CAP_MS), which end a reading
 * stuck inside one page.
 */
export const PDF_CPU_BUDGET_MS = 15_000;
export const PDF_WALL_BUDGET_MS = 25_000;
/**
 * Pages read from one opening of the document. pdf.js keeps what it parsed of every page until
 * the document is closed: reading R's reference manual in one opening peaked at 321 MB of RSS,
 * reopening it every 500 pages at 230 MB, in the same time.
 */
const PAGES_PER_OPENING = 500;
/** Pages in a row that fail before the rest is not tried: a damaged page tree fails every page. */
const MAX_FAILED_PAGES_IN_A_ROW = 20;
/** Between two pages' texts: a blank line (pdftotext puts a form feed there). */
const PAGE_SEPARATOR = '\n\n';
/** How near its end a whole PDF has its %%EOF: writers may add a little after it. */
const EOF_WINDOW = 1024;

export interface PdfLimits {
  /** The document's URL: links resolve against it. */
  url: string;
  maxLinks: number;
  maxTextChars: number;
  maxPages?: number;
  cpuBudgetMs?: number;
  wallBudgetMs?: number;
}

export interface PdfReading {
  /** The document as a page (title, text, links); null when nothing could be read. */
  page: ExtractedPage | null;
  facts: DocumentFacts;
  notes: string[];
}

/** pdf.js's link annotation data: the fields read here. */
interface LinkAnnotation {
  subtype?: string;
  url?: string;
  unsafeUrl?: string;
  rect?: number[];
  annotationFlags?: number;
  pageIndex?: number;
}

/**
 * Pages a document may claim and still have its links read a range at a time: pdf.js goes over
 * every page index to skip the others, and a page tree may claim billions of pages.
 */
const MAX_PAGES_FOR_LINK_RANGES = 200_000;
/** Annotation flags (PDF 32000-1, 12.5.3) that keep an annotation off the screen, so out of page.getAnnotations(). */
const UNSEEN_FLAGS = 0x01 | 0x20;

/** Whether the bytes hold PDF objects but not the end a whole PDF has: a file cut short, not one that never was a PDF. */
function looksTruncated(bytes: Uint8Array): boolean {
  const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return !whole.includes('%%EOF', Math.max(0, whole.length - EOF_WINDOW), 'latin1') && whole.includes('endobj', 0, 'latin1');
}

/** CPU time this thread has used, in ms (Node 24's threadCpuUsage; the process's where it is missing). */
function threadCpuMs(): number {
  const usage = typeof process.threadCpuUsage === 'function' ? process.threadCpuUsage() : process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** The text of the pages read, joined, with where each starts and the links marked on them. */
class DocumentText {
  text = '';
  readonly pageStarts: number[] = [];
  readonly marked: MarkedLink[] = [];
  truncated = false;
  /** The first page's largest text, a title when the metadata has none. */
  headline = '';
  readonly #maxChars: number;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Adds a page; false when the text cap is reached (the page is cut to fit). */
  add(page: PageText, links: readonly LinkAnnotation[]): boolean {
    const separator = this.pageStarts.length === 0 ? '' : PAGE_SEPARATOR;
    const start = this.text.length + separator.length;
    const room = this.#maxChars - start;
    if (room <= 0) {
      this.truncated = true;
      return false;
    }
    if (this.pageStarts.length === 0) this.headline = largestText(page);
    this.pageStarts.push(start);
    this.text += separator + (page.text.length > room ? page.text.slice(0, room) : page.text);
    for (const link of links) {
      const href = link.unsafeUrl ?? link.url;
      if (href === undefined) continue;
      const span = link.rect === undefined ? undefined : spanUnder(page, link.rect);
      const inText = span !== undefined && span.end <= room;
      this.marked.push({ href, span: inText ? { start: start + span.start, end: start + span.end } : undefined, at: start + (inText ? span.start : 0) });
    }
    if (page.text.length > room) this.truncated = true;
    return !this.truncated;
  }
}

function unreadFacts(): DocumentFacts {
  return { type: 'pdf', pageCount: 0, pagesRead: 0, pageStarts: [], metadata: {} };
}

/** Why pdf.js could not open the document. */
function openFailureNote(err: unknown, truncated: boolean): string {
  if (err instanceof Error && err.name === 'PasswordException') return DOCUMENT_NOTES.encrypted;
  return truncated ? DOCUMENT_NOTES.truncated : DOCUMENT_NOTES.malformed;
}

/**
 * Reads a PDF. It takes the bytes: pdf.js detaches their buffer. Never throws for a bad
 * document: what went wrong is in the notes.
 */
export async function readPdf(bytes: Uint8Array, limits: PdfLimits): Promise<PdfReading> {
  return new PdfReader(limits).read(bytes);
}

/** One document's reading: the openings of it, the pages read so far, the budget left. */
class PdfReader {
  readonly #limits: PdfLimits;
  readonly #text: DocumentText;
  readonly #notes: string[] = [];
  readonly #cpuStart = threadCpuMs();
  readonly #wallStart = performance.now();
  readonly #refusedBefore = refusedAllocations();
  #pageCount = 0;
  #toRead = 0;
  #metadata: Record<string, string> = {};
  #failedPages = 0;
  #failedInARow = 0;

  constructor(limits: PdfLimits) {
    this.#limits = limits;
    this.#text = new DocumentText(limits.maxTextChars);
  }

  async read(bytes: Uint8Array): Promise<PdfReading> {
    const truncated = looksTruncated(bytes);
    if (truncated) this.#notes.push(DOCUMENT_NOTES.truncated);
    let data = bytes;
    for (let first = 1; ; first += PAGES_PER_OPENING) {
      const task = openPdf(data);
      try {
        let doc: PDFDocumentProxy;
        try {
          doc = await task.promise;
        } catch (err) {
          if (first === 1) return { page: null, facts: unreadFacts(), notes: [openFailureNote(err, truncated)] };
          // It opened before: something of this pdf.js cannot face twice. The pages read are kept.
          this.#notes.push(DOCUMENT_NOTES.malformed);
          break;
        }
        if (first === 1) await this.#begin(doc);
        const last = Math.min(this.#toRead, first + PAGES_PER_OPENING - 1);
        if (!(await this.#readPages(doc, first, last)) || last === this.#toRead) break;
        // pdf.js has the bytes (it detached ours): the next opening reads them from it.
        data = await doc.getData();
      } finally {
        await task.destroy().catch(() => undefined);
      }
    }
    return this.#finish();
  }

  async #begin(doc: PDFDocumentProxy): Promise<void> {
    this.#pageCount = doc.numPages;
    this.#toRead = Math.min(this.#pageCount, this.#limits.maxPages ?? MAX_PDF_PAGES_READ);
    if (this.#toRead < this.#pageCount) this.#notes.push(DOCUMENT_NOTES.pagesCapped);
    this.#metadata = await readMetadata(doc);
  }

  /** Reads pages first..last; false when the reading stops here (budget, text cap, a run of failures). */
  async #readPages(doc: PDFDocumentProxy, first: number, last: number): Promise<boolean> {
    const links = await linksOfPages(doc, first, last);
    for (let number = first; number <= last; number++) {
      if (this.#budgetSpent()) {
        this.#notes.push(DOCUMENT_NOTES.timeCapped);
        return false;
      }
      const page = await readPage(doc, number, links && (links.get(number) ?? []));
      if (page === undefined) {
        this.#failedPages++;
        this.#failedInARow++;
      } else {
        this.#failedInARow = 0;
      }
      if (!this.#text.add(page?.text ?? { text: '', runs: [] }, page?.links ?? [])) {
        this.#notes.push(DOCUMENT_NOTES.textCapped);
        return false;
      }
      if (this.#failedInARow >= MAX_FAILED_PAGES_IN_A_ROW) return false;
    }
    return true;
  }

  #budgetSpent(): boolean {
    return threadCpuMs() - this.#cpuStart > (this.#limits.cpuBudgetMs ?? PDF_CPU_BUDGET_MS) || performance.now() - this.#wallStart > (this.#limits.wallBudgetMs ?? PDF_WALL_BUDGET_MS);
  }

  #finish(): PdfReading {
    const text = this.#text;
    if (refusedAllocations() > this.#refusedBefore) this.#notes.push(DOCUMENT_NOTES.inflatesPastCap);
    else if (this.#failedPages > 0) this.#notes.push(DOCUMENT_NOTES.malformed);
    const facts: DocumentFacts = { type: 'pdf', pageCount: this.#pageCount, pagesRead: text.pageStarts.length, pageStarts: text.pageStarts, metadata: this.#metadata };
    if (this.#failedPages > 0 && this.#failedPages === text.pageStarts.length) return { page: null, facts, notes: this.#notes };
    if (text.pageStarts.length > 0 && text.text.trim() === '') this.#notes.push(DOCUMENT_NOTES.noText);
    return { page: pdfPage(text, this.#metadata, this.#limits), facts, notes: this.#notes };
  }
}

/**
 * The link annotations of pages first..last by page number, read together; undefined when pdf.js
 * cannot read them so, or the document claims too many pages. Not page.getAnnotations(): for link annotations it reads the page's text
 * a second time, to find the text under each (their anchor text comes from the page's own text
 * here); getAnnotationsByType builds only the links, and reads no text for them.
 */
async function linksOfPages(doc: PDFDocumentProxy, first: number, last: number): Promise<Map<number, LinkAnnotation[]> | undefined> {
  if (doc.numPages > MAX_PAGES_FOR_LINK_RANGES) return undefined;
  const otherPages = new Set<number>();
  for (let index = 0; index < doc.numPages; index++) if (index < first - 1 || index >= last) otherPages.add(index);
  let found: LinkAnnotation[] | null;
  try {
    found = (await doc.getAnnotationsByType(new Set([AnnotationType.LINK]), otherPages)) as LinkAnnotation[] | null;
  } catch {
    return undefined;
  }
  const byPage = new Map<number, LinkAnnotation[]>();
  for (const link of found ?? []) {
    if (link.pageIndex === undefined || ((link.annotationFlags ?? 0) & UNSEEN_FLAGS) !== 0) continue;
    const number = link.pageIndex + 1;
    const onPage = byPage.get(number);
    if (onPage === undefined) byPage.set(number, [link]);
    else onPage.push(link);
  }
  return byPage;
}

/**
 * One page's text and link annotations; undefined when pdf.js cannot read it. The links are
 * those read with the page's neighbours, or read here when they could not be (none: `[]`).
 */
async function readPage(doc: PDFDocumentProxy, number: number, links: LinkAnnotation[] | undefined): Promise<{ text: PageText; links: LinkAnnotation[] } | undefined> {
  try {
    const page = await doc.getPage(number);
    const content = await page.getTextContent();
    const text = pageTextOf(content.items);
    // A page whose annotations cannot be read still has its text.
    const annotations: LinkAnnotation[] = links ?? (await page.getAnnotations().catch(() => []));
    page.cleanup();
    return { text, links: annotations.filter((a) => a.subtype === 'Link') };
  } catch {
    return undefined;
  }
}

/** The Info dictionary and XMP packet as metadata; none when pdf.js cannot read them. */
async function readMetadata(doc: PDFDocumentProxy): Promise<Record<string, string>> {
  try {
    const { info, metadata } = await doc.getMetadata();
    return pdfMetadata(info as Record<string, unknown>, metadata as XmpValues | null);
  } catch {
    return {};
  }
}

function pdfPage(text: DocumentText, metadata: Record<string, string>, limits: PdfLimits): ExtractedPage {
  return documentPage({
    url: limits.url,
    title: documentTitle(metadata.title, text.headline, text.text),
    text: text.text,
    textTruncated: text.truncated,
    links: documentLinks(text.text, text.marked, limits.url, limits.maxLinks),
    lang: metadata.language,
  });
}
