import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listPages } from '../../../../crawler/library/page-list.ts';
import { pageRow, pageTable, searchTable } from '../../../../crawler/library/page-table.ts';
import { searchPages } from '../../../../crawler/library/search.ts';
import { snippetOffset } from '../../../../crawler/library/snippet-page.ts';
import { MARK_END, MARK_START } from '../../../../crawler/protocol/api.ts';
import { tempDir } from '../../../support/crawl-harness.ts';
import { buildDocumentCollection, PDF_TITLE_WORD, type DocumentCollection } from './document-collection.ts';

/** A word of at least eight letters that one page of the text holds and no other, with that page (from 1). */
function wordOnOnePage(text: string, pageStarts: number[], fromPage: number): { word: string; page: number } {
  const pages = pageStarts.map((start, i) => text.slice(start, pageStarts[i + 1] ?? text.length).toLowerCase());
  for (let page = fromPage; page <= pages.length; page++) {
    for (const word of new Set(pages[page - 1]?.match(/\b[a-z]{8,}\b/g) ?? [])) {
      const on = pages.filter((p) => new RegExp(`\\b${word}\\b`).test(p)).length;
      if (on === 1) return { word, page };
    }
  }
  throw new Error('no word of one page only');
}

describe('the library over documents', () => {
  const dir = tempDir('forager-documents-library-');
  let built: DocumentCollection;

  before(async () => {
    built = await buildDocumentCollection(dir.dir);
  });

  after(() => {
    built.db.close();
    dir.cleanup();
  });

  it('gives each row its type, size and page count', () => {
    const rows = new Map(pageTable(built.db, { sort: 'url' }).pages.map((row) => [row.seq, row]));
    const pdf = rows.get(built.pdfSeq);
    assert.equal(pdf?.type, 'pdf');
    assert.equal(pdf?.pageCount, built.pdfPageStarts.length);
    assert.equal(pdf?.bodyBytes, built.pdfBytes.length);
    assert.equal(rows.get(built.textSeq)?.type, 'text');
    assert.equal(rows.get(built.textSeq)?.pageCount, 1);
    assert.equal(rows.get(built.htmlSeq)?.type, 'html');
    assert.equal(rows.get(built.htmlSeq)?.pageCount, null);
    assert.equal(pageRow(built.db, built.pdfSeq).type, 'pdf');
  });

  it('filters the page table by type, and counts what the filter keeps', () => {
    const seqs = (type?: 'html' | 'pdf' | 'text' | 'document'): number[] => pageTable(built.db, { sort: 'url', ...(type === undefined ? {} : { type }) }).pages.map((r) => r.seq).sort();
    assert.deepEqual(seqs('pdf'), [built.pdfSeq]);
    assert.deepEqual(seqs('text'), [built.textSeq]);
    assert.deepEqual(seqs('document'), [built.pdfSeq, built.textSeq].sort());
    assert.deepEqual(seqs('html'), [built.htmlSeq]);
    assert.equal(seqs().length, 3);
    assert.equal(pageTable(built.db, { type: 'document' }).total, 2);
    assert.equal(pageTable(built.db, { type: 'pdf', hotOnly: true }).total, 1);
    assert.equal(pageTable(built.db, { type: 'text', hotOnly: true }).total, 0);
  });

  it('lists pages for the CLI by type', () => {
    assert.deepEqual([...listPages(built.db, { type: 'pdf' })].map((p) => [p.seq, p.type, p.pageCount]), [[built.pdfSeq, 'pdf', built.pdfPageStarts.length]]);
    assert.deepEqual([...listPages(built.db, { type: 'html' })].map((p) => p.type), ['html']);
    assert.equal([...listPages(built.db)].length, 3);
  });

  it('names the page of a PDF a search hit is on', () => {
    const { word, page } = wordOnOnePage(built.pdfText, built.pdfPageStarts, 20);
    const [hit] = searchTable(built.db, word, { limit: 5, marks: [MARK_START, MARK_END] });
    assert.equal(hit?.seq, built.pdfSeq, `"${word}" is found in the PDF`);
    assert.equal(hit?.type, 'pdf');
    assert.equal(hit?.documentPage, page, `"${word}" is on page ${page} alone`);
    assert.ok(page > 1);
    assert.match(hit?.snippet ?? '', new RegExp(`${MARK_START}${word}${MARK_END}`, 'i'), 'the caller\'s marks, not the search\'s own');
  });

  it('finds the page of a word on the first page and on the last', () => {
    const last = built.pdfPageStarts.length;
    const onLast = wordOnOnePage(built.pdfText, built.pdfPageStarts, last);
    assert.equal(onLast.page, last);
    assert.equal(searchPages(built.db, onLast.word, { limit: 1 })[0]?.documentPage, last);
    const onFirst = wordOnOnePage(built.pdfText, built.pdfPageStarts, 1);
    if (onFirst.page === 1) assert.equal(searchPages(built.db, onFirst.word, { limit: 1 })[0]?.documentPage, 1);
  });

  it('gives no page to a web page, a plain-text document or a hit on the title alone', () => {
    const [text] = searchPages(built.db, 'quokkaverse', { limit: 1 });
    assert.equal(text?.seq, built.textSeq);
    assert.equal(text?.documentType, 'text');
    assert.equal(text?.documentPage, null);
    const [html] = searchTable(built.db, 'documents', { limit: 5, marks: ['[', ']'] }).filter((hit) => hit.seq === built.htmlSeq);
    assert.equal(html?.type, 'html');
    assert.equal(html?.documentPage, null);
    assert.match(html?.snippet ?? '', /\[documents\]/);
    const [title] = searchPages(built.db, PDF_TITLE_WORD, { limit: 1 });
    assert.equal(title?.seq, built.pdfSeq);
    assert.equal(title?.documentPage, null, 'the title is on no page');
  });
});

describe('snippetOffset: where a snippet\'s first matched word is in the text', () => {
  const marks = { open: '<', close: '>', ellipsis: '…' };
  const text = 'Alpha beta gamma delta epsilon zeta eta theta.';

  it('finds a snippet cut on both sides', () => {
    assert.equal(snippetOffset(text, '…beta <gamma> delta…', marks), text.indexOf('gamma'));
  });

  it('finds a snippet at the start of the text, and marks around several words', () => {
    assert.equal(snippetOffset(text, '<Alpha> beta <gamma>…', marks), 0);
  });

  it('says nothing when the snippet has no matched word or is not in the text', () => {
    assert.equal(snippetOffset(text, 'Alpha beta gamma…', marks), undefined);
    assert.equal(snippetOffset(text, '…iota <kappa>', marks), undefined);
  });
});
