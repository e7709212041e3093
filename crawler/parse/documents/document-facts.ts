/*
 * Documents: responses that are not web pages but are read all the same (PDF, plain text).
 * A document becomes a page row like any other (its title, its text, its links, its verdict);
 * what only a document has is kept beside it as DocumentFacts (the store's `documents` table).
 */

export const DOCUMENT_TYPES = ['pdf', 'text'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** What was read from a document besides its title, text and links. */
export interface DocumentFacts {
  type: DocumentType;
  /** Pages the document has (a PDF's page tree); 1 for plain text. */
  pageCount: number;
  /** Pages whose text was read: fewer than pageCount when the page cap or the time cap cut the reading short. */
  pagesRead: number;
  /** Where each page read starts in the extracted text (UTF-16 offsets, ascending, the first 0). */
  pageStarts: number[];
  /** The document's own metadata, as text: title, author, subject, keywords, creator, producer, created, modified, language. */
  metadata: Record<string, string>;
}

/** The document type a response's MIME type names, if Forager reads that type at all. */
export function documentTypeOfMime(mime: string): DocumentType | undefined {
  if (mime === 'application/pdf' || mime === 'application/x-pdf') return 'pdf';
  if (mime === 'text/plain') return 'text';
  return undefined;
}

/** Whether the bytes begin as a PDF file does (servers send PDFs as application/octet-stream too). */
export function looksLikePdf(body: Uint8Array): boolean {
  // %PDF- within the first KiB: the specification allows leading junk, readers accept it.
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 1024)).toString('latin1');
  return head.includes('%PDF-');
}

/**
 * The `documents` setting (`pdf,text`, `pdf`, `none`) as the types it names. The settings schema
 * checks its form; this reads it.
 */
export function documentTypesOf(setting: string): DocumentType[] {
  if (setting.trim() === 'none') return [];
  return DOCUMENT_TYPES.filter((type) => setting.split(',').some((part) => part.trim() === type));
}

/** The page (1-based) of a document that the text offset falls on. */
export function pageAtOffset(pageStarts: readonly number[], offset: number): number {
  let low = 0;
  let high = pageStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((pageStarts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}
