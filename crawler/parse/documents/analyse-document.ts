/*
 * The analysis of a PDF response, in the document worker: what analyseResponse gives a web
 * page (stored body, body hash, terms, line hashes, simhash), from the document's text.
 */
import { analyseResponse, baseAnalysis, bodyHashOf, documentToRead, linksDroppedNote, pageAnalysis, type ResponseAnalysis, type ResponseInput } from '../analyse-response.ts';
import { setAllocationLimit } from './allocation-cap.ts';
import { joinNotes } from './document-notes.ts';
import { readPdf } from './read-pdf.ts';

/** Reads a response that documentToRead names a PDF; anything else is analysed as the parse worker would. */
export async function analyseDocument(input: ResponseInput): Promise<ResponseAnalysis> {
  const body = input.body;
  if (body === undefined || documentToRead(input) !== 'pdf') return analyseResponse(input);
  // Stored and hashed first: reading hands the bytes to pdf.js, which detaches them.
  const base = baseAnalysis(input);
  const bodyHash = bodyHashOf(body);
  // No stream of the document may decode past the cap a body has (pdf.js may also copy the file itself).
  setAllocationLimit(Math.max(input.maxDecodedBytes, body.length));
  const reading = await readPdf(body, { url: input.url, maxLinks: input.maxLinks, maxTextChars: input.maxDecodedBytes });
  if (reading.page === null) return { ...base, note: joinNotes(reading.notes), document: reading.facts };
  return pageAnalysis(base, reading.page, {
    note: joinNotes([...reading.notes, linksDroppedNote(reading.page)]),
    charset: null,
    bodyHash,
    browserNeed: null,
    document: reading.facts,
  });
}
