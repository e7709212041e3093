import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { analyseResponse, documentToRead, type ResponseInput } from '../../../../../crawler/parse/analyse-response.ts';
import { MAX_DERIVED_TITLE_CHARS } from '../../../../../crawler/parse/documents/document-title.ts';
import { readPlainText, textEncoding } from '../../../../../crawler/parse/documents/read-text.ts';

function response(body: Uint8Array, over: Partial<ResponseInput> = {}): ResponseInput {
  return {
    url: 'https://notes.example/papers/readme.txt',
    status: 200,
    contentType: 'text/plain',
    xRobotsTag: undefined,
    body,
    agentToken: 'forager',
    maxLinks: 100,
    kind: 'page',
    maxDecodedBytes: 1 << 20,
    documents: ['pdf', 'text'],
    ...over,
  };
}

const README = ['', '   Write-ahead   logging in practice   ', '', 'The log is flushed before the data page (see https://www.postgresql.org/docs/current/wal.html).', 'Notes: ../notes/checkpoints.txt and http://mirror.example/wal.'].join('\n');

describe('a plain-text document', () => {
  it('is read as a page: first line as title, lines kept, URLs written in it as links, its document facts', () => {
    const analysis = analyseResponse(response(Buffer.from(README)));
    assert.equal(analysis.note, null);
    assert.equal(analysis.charset, 'utf-8');
    const page = analysis.page;
    assert.ok(page !== null);
    assert.equal(page.title, 'Write-ahead logging in practice');
    assert.equal(page.text, 'Write-ahead logging in practice\nThe log is flushed before the data page (see https://www.postgresql.org/docs/current/wal.html).\nNotes: ../notes/checkpoints.txt and http://mirror.example/wal.');
    assert.equal(page.wordCount, 18);
    assert.deepEqual(
      page.links.map((l) => [l.href, l.anchor, l.contextBefore, l.contextAfter]),
      [
        ['https://www.postgresql.org/docs/current/wal.html', 'https://www.postgresql.org/docs/current/wal.html', 'practice The log is flushed before the data page (see', '). Notes: ../notes/checkpoints.txt and http://mirror.example/wal.'],
        ['http://mirror.example/wal', 'http://mirror.example/wal', 'flushed before the data page (see https://www.postgresql.org/docs/current/wal.html). Notes: ../notes/checkpoints.txt and', '.'],
      ],
    );
    assert.deepEqual(analysis.document, { type: 'text', pageCount: 1, pagesRead: 1, pageStarts: [0], metadata: {} });
    assert.ok(analysis.terms.includes('log'));
    assert.ok(analysis.storedBody !== null && analysis.bodyHash !== null);
  });

  it('is decoded by the header charset, else its BOM, else UTF-8 when valid, else windows-1252', () => {
    const latin1 = Buffer.from('Café crème\n', 'latin1');
    assert.equal(analyseResponse(response(latin1, { contentType: 'text/plain; charset=iso-8859-1' })).page?.title, 'Café crème');
    assert.equal(analyseResponse(response(latin1)).page?.title, 'Café crème', 'not UTF-8: windows-1252');
    assert.equal(analyseResponse(response(Buffer.from('Café crème\n'))).charset, 'utf-8');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße\n', 'utf16le')]);
    const analysis = analyseResponse(response(utf16));
    assert.equal(analysis.charset, 'utf-16le');
    assert.equal(analysis.page?.title, 'Grüße');
    // A text file quoting HTML is not an HTML page: its meta charset says nothing about the file.
    assert.equal(textEncoding(Buffer.from('<meta charset="koi8-r"> quoted in a text file'), undefined), 'utf-8');
  });

  it('has a bounded title, and text bounded by maxDecodedBytes characters', () => {
    const long = `${'word '.repeat(100)}\nsecond line`;
    const reading = readPlainText(Buffer.from(long), undefined, { url: 'https://notes.example/a.txt', maxLinks: 10, maxTextChars: 30 });
    assert.ok(reading.page.title.length <= MAX_DERIVED_TITLE_CHARS);
    assert.equal(reading.page.text.length, 30);
    assert.equal(reading.page.textTruncated, true);
  });

  it('is noted as not HTML when the documents setting leaves text out, as before', () => {
    const analysis = analyseResponse(response(Buffer.from(README), { documents: ['pdf'] }));
    assert.equal(analysis.note, 'not-html:text/plain');
    assert.equal(analysis.page, null);
    assert.equal(analysis.document, null);
  });

  it('with binary bytes is a content-type mismatch, as an HTML page is', () => {
    const analysis = analyseResponse(response(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0])));
    assert.equal(analysis.note, 'content-type-mismatch:text/plain');
    assert.equal(analysis.page, null);
  });
});

describe('which responses are read as documents', () => {
  const pdf = Buffer.from('%PDF-1.7\n%...');
  it('a PDF by its type, or by its bytes when the type says only "bytes"', () => {
    assert.equal(documentToRead(response(pdf, { contentType: 'application/pdf' })), 'pdf');
    assert.equal(documentToRead(response(pdf, { contentType: 'application/octet-stream' })), 'pdf');
    assert.equal(documentToRead(response(pdf, { contentType: undefined })), 'pdf');
    assert.equal(documentToRead(response(Buffer.from('just bytes'), { contentType: 'application/octet-stream' })), undefined);
    assert.equal(documentToRead(response(pdf, { contentType: 'image/png' })), undefined);
  });

  it('only the types the setting names, only pages, only 2xx responses with a body', () => {
    assert.equal(documentToRead(response(pdf, { contentType: 'application/pdf', documents: ['text'] })), undefined);
    assert.equal(documentToRead(response(pdf, { contentType: 'application/pdf', documents: [] })), undefined);
    assert.equal(documentToRead(response(pdf, { contentType: 'application/pdf', kind: 'sitemap' })), undefined);
    assert.equal(documentToRead(response(pdf, { contentType: 'application/pdf', status: 404 })), undefined);
    assert.equal(documentToRead(response(new Uint8Array(0), { contentType: 'application/pdf' })), undefined);
    assert.equal(documentToRead(response(Buffer.from('text'), { contentType: 'text/plain; charset=utf-8' })), 'text');
  });

  it('a PDF that reaches the parse worker is noted as not HTML: the document worker reads PDFs', () => {
    assert.equal(analyseResponse(response(pdf, { contentType: 'application/pdf' })).note, 'not-html:application/pdf');
  });
});
