import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import type { ResponseInput } from '../../../../../crawler/parse/analyse-response.ts';
import { DOCUMENT_NOTES } from '../../../../../crawler/parse/documents/document-notes.ts';
import { DocumentPool } from '../../../../../crawler/parse/documents/document-pool.ts';
import { ParsePool } from '../../../../../crawler/parse/parse-pool.ts';
import { ResponseReader } from '../../../../../crawler/parse/response-reader.ts';
import { simplePdf } from '../../../../support/hostile-pdfs.ts';

const MISBEHAVING = new URL('./misbehaving-document-worker.ts', import.meta.url);

function response(url: string, contentType: string, body: Uint8Array, documents: ResponseInput['documents'] = ['pdf', 'text']): ResponseInput {
  return { url, status: 200, contentType, xRobotsTag: undefined, body, agentToken: 'forager', maxLinks: 100, kind: 'page', maxDecodedBytes: 1 << 24, documents };
}

const html = (name: string): ResponseInput => response(`https://site.example/${name}.html`, 'text/html', Buffer.from(`<title>${name}</title><p>A page about ${name}.</p>`));
const pdf = (name: string, contentType = 'application/pdf'): ResponseInput => response(`https://site.example/${name}.pdf`, contentType, simplePdf([[`A document about ${name}.`]]));

describe('the response reader', () => {
  it('sends PDFs to the document pool (an octet-stream one too) and the rest to the parse pool', async () => {
    const reader = new ResponseReader({ parseWorkers: 1 });
    try {
      const [page, document, octet, text, notRead] = await Promise.all([
        reader.analyse(html('bees')),
        reader.analyse(pdf('wasps')),
        reader.analyse(pdf('ants', 'application/octet-stream')),
        reader.analyse(response('https://site.example/notes.txt', 'text/plain', Buffer.from('Hornets\nand more'))),
        reader.analyse(response('https://site.example/moths.pdf', 'application/pdf', simplePdf([['moths']]), ['text'])),
      ]);
      assert.deepEqual([page.page?.title, page.document], ['bees', null]);
      assert.deepEqual([document.page?.title, document.document?.type], ['A document about wasps.', 'pdf']);
      assert.deepEqual([octet.page?.title, octet.document?.type], ['A document about ants.', 'pdf']);
      assert.deepEqual([text.page?.title, text.document?.type], ['Hornets', 'text']);
      assert.deepEqual([notRead.note, notRead.page, notRead.document], ['not-html:application/pdf', null, null]);
    } finally {
      await reader.close();
    }
  });

  it('a PDF whose reading its worker could not finish is recorded with the reason and its body', { timeout: 60_000 }, async () => {
    const reader = new ResponseReader({ parseWorkers: 1, documentPool: new DocumentPool({ workerFile: MISBEHAVING, cpuTimeMs: 500, heapMb: 64 }) });
    try {
      const spin = pdf('spin');
      const timedOut = await reader.analyse(spin);
      assert.equal(timedOut.note, DOCUMENT_NOTES.timeout);
      assert.deepEqual(timedOut.document, { type: 'pdf', pageCount: 0, pagesRead: 0, pageStarts: [], metadata: {} });
      assert.ok(timedOut.storedBody !== null);
      assert.deepEqual(gunzipSync(timedOut.storedBody), Buffer.from(spin.body as Uint8Array), 'the bytes as received are kept');
      const outOfMemory = await reader.analyse(pdf('hog'));
      assert.equal(outOfMemory.note, DOCUMENT_NOTES.outOfMemory);
      assert.ok(outOfMemory.storedBody !== null);
      assert.equal((await reader.analyse(pdf('next'))).page?.title, 'A document about next.');
    } finally {
      await reader.close();
    }
  });

  it('one PDF that takes long holds up no web page', { timeout: 30_000 }, async () => {
    const reader = new ResponseReader({ parseWorkers: 1, documentPool: new DocumentPool({ workerFile: MISBEHAVING, cpuTimeMs: 5000 }) });
    try {
      let documentDone = false;
      const document = reader.analyse(pdf('spin')).finally(() => (documentDone = true));
      const pages = await Promise.all(Array.from({ length: 20 }, (_, i) => reader.analyse(html(`page-${i}`))));
      assert.equal(documentDone, false, 'the pages were parsed while the document was still being read');
      assert.deepEqual(pages.map((p) => p.page?.title), Array.from({ length: 20 }, (_, i) => `page-${i}`));
      assert.equal((await document).note, DOCUMENT_NOTES.timeout);
    } finally {
      await reader.close();
    }
  });

  it('uses the pools it is given and closes them', async () => {
    const parsePool = new ParsePool(0);
    const documentPool = new DocumentPool();
    const reader = new ResponseReader({ parsePool, documentPool });
    assert.equal((await reader.analyse(html('inline'))).page?.title, 'inline');
    await reader.close();
    await assert.rejects(documentPool.analyse(pdf('late')), { code: 'PARSE_POOL_CLOSED' });
  });
});
