import { pageAtOffset } from '../parse/documents/document-facts.ts';
import { pageStartsOf } from '../store/document-store.ts';

/*
 * The page of a document a search snippet is on. FTS5's snippet() copies a stretch of the
 * stored text with marks around the matched words and an ellipsis where it cuts the text
 * short, so without its marks and ellipses the snippet is found in the text as is; its first
 * matched word's offset there, against the document's page starts, gives the page.
 */

export interface SnippetMarks {
  open: string;
  close: string;
  ellipsis: string;
}

/** The offset in `text` of the snippet's first matched word; undefined when it has none (a match on the title) or is not found. */
export function snippetOffset(text: string, snippet: string, marks: SnippetMarks): number | undefined {
  const firstMark = snippet.indexOf(marks.open);
  if (firstMark === -1) return undefined;
  let plain = snippet.replaceAll(marks.open, '').replaceAll(marks.close, '');
  let markAt = firstMark;
  if (plain.startsWith(marks.ellipsis)) {
    plain = plain.slice(marks.ellipsis.length);
    markAt -= marks.ellipsis.length;
  }
  if (plain.endsWith(marks.ellipsis)) plain = plain.slice(0, -marks.ellipsis.length);
  const at = text.indexOf(plain);
  return at === -1 ? undefined : at + markAt;
}

/** The page (from 1) of the snippet's first matched word, or null when it cannot be told; `pageStarts` is the stored JSON. */
export function snippetPage(text: string, snippet: string, pageStarts: string, marks: SnippetMarks): number | null {
  const starts = pageStartsOf(pageStarts);
  const offset = snippetOffset(text, snippet, marks);
  return starts === undefined || offset === undefined ? null : pageAtOffset(starts, offset);
}

