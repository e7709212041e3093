/*
 * A document's extracted text as the viewer's text view shows it: cut into its pages at the
 * stored page starts, so each can be marked "Page N". And the document's bytes from the
 * base64 the API carries them in.
 */

export interface TextPage {
  /** From 1. */
  page: number;
  text: string;
}

/**
 * The text's pages, each without the blank lines that joined it to the next. Page starts that
 * do not rise from 0 within the text (a damaged row) are not trusted: the text is then one page.
 */
export function splitPages(text: string, pageStarts: readonly number[]): TextPage[] {
  const valid = pageStarts[0] === 0 && pageStarts.every((start, i) => Number.isInteger(start) && start <= text.length && (i === 0 || start >= (pageStarts[i - 1] as number)));
  const starts = valid ? pageStarts : [0];
  return starts.map((start, i) => ({ page: i + 1, text: text.slice(start, starts[i + 1] ?? text.length).replace(/\n+$/, '') }));
}

/** Base64 to bytes, in one pass over the decoded string (a PDF may be tens of megabytes). */
export function decodeBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
