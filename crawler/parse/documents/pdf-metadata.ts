/*
 * A PDF's own metadata as DocumentFacts.metadata: each field from the Info dictionary, else
 * from the XMP packet, as text; dates as ISO strings when they parse. And the document's title.
 */
import { PDFDateString } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** What pdf.js's Metadata (the XMP packet) offers: values by lowercased name, a string or a list. */
export interface XmpValues {
  get(name: string): unknown;
}

/** Each metadata field: its Info dictionary key, and the XMP property to fall back on. */
const FIELDS: readonly { field: string; info: string; xmp: string; date?: true }[] = [
  { field: 'title', info: 'Title', xmp: 'dc:title' },
  { field: 'author', info: 'Author', xmp: 'dc:creator' },
  { field: 'subject', info: 'Subject', xmp: 'dc:description' },
  { field: 'keywords', info: 'Keywords', xmp: 'pdf:keywords' },
  { field: 'creator', info: 'Creator', xmp: 'xmp:creatortool' },
  { field: 'producer', info: 'Producer', xmp: 'pdf:producer' },
  { field: 'created', info: 'CreationDate', xmp: 'xmp:createdate', date: true },
  { field: 'modified', info: 'ModDate', xmp: 'xmp:modifydate', date: true },
  { field: 'language', info: 'Language', xmp: 'dc:language' },
];

/** A metadata value is for showing and searching: a document's whole text hidden in its Keywords is not. */
const MAX_VALUE_CHARS = 1000;

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

/** Text fit to keep: controls dropped, whitespace collapsed, bounded; '' when nothing is left. */
function cleanValue(value: unknown): string {
  const text = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').join(', ') : typeof value === 'string' ? value : '';
  return text.replace(CONTROL_CHARS, ' ').replace(/\s+/g, ' ').trim().slice(0, MAX_VALUE_CHARS);
}

/** An ISO date for a PDF date string (D:YYYYMMDDHHmmSS+HH'mm') or an XMP one; the text as written when neither parses. */
function isoDate(value: string): string {
  const date = PDFDateString.toDateObject(value) ?? new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

export function pdfMetadata(info: Readonly<Record<string, unknown>>, xmp: XmpValues | null): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const { field, info: key, xmp: property, date } of FIELDS) {
    const value = cleanValue(info[key]) || cleanValue(xmp?.get(property));
    if (value !== '') metadata[field] = date === true ? isoDate(value) : value;
  }
  return metadata;
}
