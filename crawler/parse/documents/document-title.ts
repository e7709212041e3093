/*
 * A document's title: what its own metadata says, else its headline (a PDF's largest text on
 * its first page), else the first line of its text that has a letter. Plain text has no
 * metadata, and most PDFs made by TeX none either.
 */

/** A title made from the text's first line: a heading, not a paragraph. */
export const MAX_DERIVED_TITLE_CHARS = 200;

/** The document's title: its metadata's, else its headline, else the first line of its text that has a letter; bounded. */
export function documentTitle(metadataTitle: string | undefined, headline: string, text: string): string {
  if (metadataTitle !== undefined && /\p{L}/u.test(metadataTitle)) return metadataTitle;
  if (/\p{L}/u.test(headline)) return boundedTitle(headline);
  return firstLineTitle(text);
}

/** The first line with a letter, cut at a word within MAX_DERIVED_TITLE_CHARS. */
export function firstLineTitle(text: string): string {
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end).replace(/\s+/g, ' ').trim();
    if (/\p{L}/u.test(line)) return boundedTitle(line);
    start = end + 1;
  }
  return '';
}

function boundedTitle(line: string): string {
  if (line.length <= MAX_DERIVED_TITLE_CHARS) return line;
  const cut = line.slice(0, MAX_DERIVED_TITLE_CHARS);
  const lastSpace = cut.lastIndexOf(' ');
  return lastSpace > 0 ? cut.slice(0, lastSpace) : cut;
}
