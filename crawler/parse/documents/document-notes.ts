/*
 * The notes a document's analysis carries (ResponseAnalysis.note): why it was read only in part,
 * or not at all. Several may apply; they are joined with spaces, as a site resource's are.
 */
export const DOCUMENT_NOTES = {
  /** It needs a password. */
  encrypted: 'document:encrypted',
  /** Its structure cannot be read, or pages of it cannot. */
  malformed: 'document:malformed',
  /** It ends before its end (no %%EOF): what could be read was. */
  truncated: 'document:truncated',
  /** A stream of it decodes past maxDecodedBytes: the pages that draw it are not read. */
  inflatesPastCap: 'document:inflates-past-cap',
  /** More pages than are read of one document; the rest count in pageCount only. */
  pagesCapped: 'document:pages-capped',
  /** The reading budget ran out before the last page: the pages read are kept. */
  timeCapped: 'document:time-capped',
  /** The text reached maxDecodedBytes characters. */
  textCapped: 'document:text-capped',
  /** Read, but there is no text in it (a scan without OCR, drawings). */
  noText: 'document:no-text',
  /** Its worker's CPU or wall-clock cap ended the reading: nothing was read. */
  timeout: 'document:timeout',
  /** Its worker ran out of heap: nothing was read. */
  outOfMemory: 'document:failed:out-of-memory',
  /** Its worker failed otherwise. */
  failed: 'document:failed',
} as const;

/** Notes as one ResponseAnalysis note: null when there are none. */
export function joinNotes(notes: Iterable<string | null>): string | null {
  const present = [...new Set([...notes].filter((note): note is string => note !== null && note !== ''))];
  return present.length === 0 ? null : present.join(' ');
}
