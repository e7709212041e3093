import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResponseAnalysis, ResponseInput } from '../../../../../crawler/parse/analyse-response.ts';
import { DOCUMENT_NOTES } from '../../../../../crawler/parse/documents/document-notes.ts';
import { ResponseReader } from '../../../../../crawler/parse/response-reader.ts';
import { deeplyNestedPdf, encryptedPdf, inflationBombPdf, malformedPdf, manyPagesPdf, simplePdf, truncatedPdf } from '../../../../support/hostile-pdfs.ts';

/*
 * Each hostile PDF, read by the real document worker, ends within 30 s with its reason in the
 * analysis note, its body still stored; and the document after it is read as usual.
 */

const WITHIN_MS = 30_000;
const MAX_DECODED_BYTES = 32 * 1024 * 1024;

function pdfResponse(name: string, body: Uint8Array): ResponseInput {
  return { url: `https://docs.example/${name}.pdf`, status: 200, contentType: 'application/pdf', xRobotsTag: undefined, body, agentToken: 'forager', maxLinks: 1000, kind: 'page', maxDecodedBytes: MAX_DECODED_BYTES, documents: ['pdf', 'text'] };
}

const reader = new ResponseReader({ parseWorkers: 1 });
after(() => reader.close());

/** Reads the hostile document, then a normal one; the hostile one's analysis and the time it took. */
async function readThenNormal(name: string, body: Uint8Array): Promise<{ analysis: ResponseAnalysis; ms: number }> {
  const started = performance.now();
  const analysis = await reader.analyse(pdfResponse(name, body));
  const ms = performance.now() - started;
  const normal = await reader.analyse(pdfResponse(`after-${name}`, simplePdf([[`Read after the ${name} one.`]])));
  assert.equal(normal.note, null);
  assert.equal(normal.page?.title, `Read after the ${name} one.`);
  assert.ok(analysis.storedBody !== null && analysis.storedBody.length > 0, 'the body is stored all the same');
  assert.ok(ms < WITHIN_MS, `${name} took ${Math.round(ms)} ms`);
  return { analysis, ms };
}

describe('hostile PDFs end with a recorded reason, and the next document is read', { timeout: 6 * WITHIN_MS }, () => {
  it('encrypted: document:encrypted', async () => {
    const { analysis } = await readThenNormal('encrypted', encryptedPdf());
    assert.equal(analysis.note, DOCUMENT_NOTES.encrypted);
    assert.equal(analysis.page, null);
    assert.deepEqual(analysis.document, { type: 'pdf', pageCount: 0, pagesRead: 0, pageStarts: [], metadata: {} });
  });

  it('malformed: document:malformed', async () => {
    const { analysis } = await readThenNormal('malformed', malformedPdf());
    assert.equal(analysis.note, DOCUMENT_NOTES.malformed);
    assert.equal(analysis.page, null);
  });

  it('truncated: document:truncated', async () => {
    const { analysis } = await readThenNormal('truncated', truncatedPdf());
    assert.equal(analysis.note, DOCUMENT_NOTES.truncated);
  });

  it('a stream inflating to a gigabyte: document:inflates-past-cap, without the gigabyte', async () => {
    let peakRss = 0;
    const baseline = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
    try {
      const { analysis } = await readThenNormal('bomb', inflationBombPdf(1024 * 1024 * 1024));
      assert.equal(analysis.note, DOCUMENT_NOTES.inflatesPastCap);
      assert.equal(analysis.document?.pageCount, 1);
    } finally {
      clearInterval(sampler);
    }
    // The cap (maxDecodedBytes, 32 MB) with pdf.js's doubling buffer and the JavaScript inflater's work: well under 400 MB.
    assert.ok(peakRss - baseline < 400 * 1024 * 1024, `memory grew by ${Math.round((peakRss - baseline) / 1048576)} MB`);
  });

  it('an array nested 100,000 deep: document:malformed', async () => {
    const { analysis } = await readThenNormal('nested', deeplyNestedPdf());
    assert.equal(analysis.note, DOCUMENT_NOTES.malformed);
  });

  it('100,000 pages: the first 2,000 read, document:pages-capped', async () => {
    const { analysis } = await readThenNormal('many-pages', manyPagesPdf());
    assert.equal(analysis.note, DOCUMENT_NOTES.pagesCapped);
    assert.equal(analysis.document?.pageCount, 100_000);
    assert.equal(analysis.document?.pagesRead, 2000);
    assert.equal(analysis.page?.title, 'One of very many pages.');
  });
});
