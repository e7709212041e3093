/*
 * Reading a plain-text document (text/plain): decoded by the response's charset, else its
 * byte-order mark, else UTF-8 when the bytes are valid UTF-8, else windows-1252 (as an HTML page
 * without a meta charset; a text file has no meta to look for). Its lines are kept, their
 * whitespace collapsed; its title is its first line, its links the URLs written in it.
 */
import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { detectBom, resolveEncodingLabel } from '../charset.ts';
import type { ExtractedPage } from '../extract-html.ts';
import type { DocumentFacts } from './document-facts.ts';
import { documentPage } from './document-page.ts';
import { firstLineTitle } from './document-title.ts';
import { documentLinks } from './text-links.ts';

export interface TextLimits {
  url: string;
  maxLinks: number;
  maxTextChars: number;
}

export interface TextReading {
  page: ExtractedPage;
  facts: DocumentFacts;
  /** The WHATWG name of the encoding the text was decoded with. */
  charset: string;
}

/** The encoding of a text body: the header's charset, unless a byte-order mark names another; else the BOM's; else UTF-8 or windows-1252. */
export function textEncoding(bytes: Uint8Array, headerCharset: string | undefined): string {
  const bom = detectBom(bytes);
  const fromHeader = headerCharset === undefined ? null : resolveEncodingLabel(headerCharset.trim());
  if (fromHeader !== null && (bom === null || bom === fromHeader)) return fromHeader;
  return bom ?? (isUtf8(bytes) ? 'utf-8' : 'windows-1252');
}

/** Lines with their whitespace collapsed, blank ones dropped. */
function normaliseLines(text: string): string {
  return text
    .split(/\r\n|\r|\n|\f|\u2028|\u2029/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

export function readPlainText(bytes: Uint8Array, headerCharset: string | undefined, limits: TextLimits): TextReading {
  const charset = textEncoding(bytes, headerCharset);
  const whole = normaliseLines(new TextDecoder(charset).decode(bytes));
  const text = whole.length > limits.maxTextChars ? whole.slice(0, limits.maxTextChars) : whole;
  const page = documentPage({
    url: limits.url,
    title: firstLineTitle(text),
    text,
    textTruncated: text.length < whole.length,
    links: documentLinks(text, [], limits.url, limits.maxLinks),
    lang: undefined,
  });
  return { page, charset, facts: { type: 'text', pageCount: 1, pagesRead: 1, pageStarts: [0], metadata: {} } };
}
