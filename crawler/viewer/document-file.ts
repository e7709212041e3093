/*
 * A stored document handed out as a file: a download, or the copy the desktop app opens in
 * the system's viewer. The bytes are the server's, so nothing else about the file is taken
 * from outside as it is: the name's extension comes from the document's type (a URL ending
 * in .desktop or .exe must not name what the system opens), and a type a browser would run
 * (HTML, SVG, XML) is never sent, whatever the server said.
 */
import { parseContentType } from '../parse/content-type.ts';
import type { DocumentType } from '../protocol/api.ts';

const EXTENSIONS: Record<DocumentType, string> = { pdf: '.pdf', text: '.txt' };
const CANONICAL_TYPES: Record<DocumentType, string> = { pdf: 'application/pdf', text: 'text/plain' };
/** Server types a document of each type is sent with as they were: no browser shows them as a page. */
const KEPT_TYPES: Record<DocumentType, ReadonlySet<string>> = {
  pdf: new Set(['application/pdf', 'application/x-pdf', 'application/octet-stream']),
  text: new Set(['text/plain']),
};
const MAX_NAME_LENGTH = 100;

/** A file name for the document fetched from `url`: its last path segment, made safe, with its type's extension. */
export function documentFileName(url: string, type: DocumentType): string {
  const path = URL.parse(url)?.pathname ?? '';
  let segment = path.slice(path.lastIndexOf('/') + 1);
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // Kept as written: its percent signs become underscores below.
  }
  // A decoded %2F is no folder of the name.
  const base = segment.slice(Math.max(segment.lastIndexOf('/'), segment.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  const stem = (dot > 0 ? base.slice(0, dot) : base)
    .replace(/[^\p{L}\p{N}_ -]+/gu, '_')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/^[\s_-]+|[\s_-]+$/g, '');
  return `${stem === '' ? 'document' : stem}${EXTENSIONS[type]}`;
}

/**
 * The Content-Type to send a document's bytes with: the server's type when it is a harmless
 * one, else the document type's own; a text document's charset is the one it was read with.
 */
export function documentContentType(stored: string | null, type: DocumentType, readWith: string | null): string {
  const sent = parseContentType(stored ?? undefined);
  const mime = KEPT_TYPES[type].has(sent.mime) ? sent.mime : CANONICAL_TYPES[type];
  const charset = type === 'text' ? (readWith ?? sent.charset) : undefined;
  return charset === undefined || !/^[\w.:-]{1,40}$/.test(charset) ? mime : `${mime}; charset=${charset}`;
}

/** Content-Disposition for a download of `fileName`: a plain ASCII name for old clients, the exact one in filename*. */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\w.-]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
