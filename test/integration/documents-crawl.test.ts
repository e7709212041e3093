import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { explainUrl } from '../../crawler/library/explain.ts';
import { documentOf } from '../../crawler/store/document-store.ts';
import type { Db } from '../../crawler/store/database.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';

/*
 * A crawl that reads documents: a PDF (a real one, from Debian's R manuals) and a plain-text
 * file linked from an HTML page are fetched whole, read, judged, indexed and kept with their
 * facts; the text file's own link joins the frontier. With `--documents none` they are
 * recorded from their headers alone, as before.
 */

const PDF_PATH = '/usr/share/doc/r-doc-pdf/manual/R-FAQ.pdf';
const PDF = readFileSync(PDF_PATH);
const PDF_PAGES = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [PDF_PATH], { encoding: 'utf8' }))?.[1]);

interface StoredRow {
  seq: number;
  url: string;
  body: Buffer | null;
  note: string | null;
  title: string | null;
  text: string | null;
  relevance: number | null;
  contentType: string | null;
}

function row(db: Db, path: string): StoredRow | undefined {
  return db
    .prepare('SELECT p.seq, u.url, p.body, p.note, p.title, p.text, p.relevance, p.content_type AS contentType FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE ?')
    .get(`%${path}`) as StoredRow | undefined;
}

describe('documents in a crawl', () => {
  let site: TestSite;
  const tmp = tempDir('forager-documents-');

  before(async () => {
    site = await startTestSite({
      '/': html('<h1>R questions</h1><p>Frequently asked questions about R packages.</p><a href="/r-faq.pdf">The R FAQ (PDF)</a> <a href="/notes.txt">notes</a>', 'R packages'),
      '/r-faq.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF),
      '/notes.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`Notes on R packages\n\nInstalling add-on packages from CRAN: see ${site.origin}/from-text.html for more.\n`),
      '/from-text.html': html('<p>Reached through a link written in a text file.</p>', 'from text'),
    });
  });

  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('reads a PDF and a text file: body kept, text indexed, judged, facts stored, links followed', async () => {
    const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { query: 'R add-on packages', maxPages: 20 }));
    try {
      const db = run.db;
      const pdf = row(db, '/r-faq.pdf');
      assert.ok(pdf !== undefined, 'the PDF is stored');
      assert.equal(pdf.note, null, 'read, not dropped');
      assert.ok(pdf.body !== null && gunzipSync(pdf.body).equals(PDF), 'its bytes are kept, compressed like a body');
      assert.match(pdf.title ?? '', /R FAQ|Frequently Asked/i);
      assert.match(pdf.text ?? '', /add-on packages/i);
      assert.ok(pdf.relevance !== null && pdf.relevance > 0, 'judged against the query');
      const facts = documentOf(db, pdf.seq);
      assert.equal(facts?.type, 'pdf');
      assert.equal(facts?.pageCount, PDF_PAGES);
      assert.equal(facts?.pageStarts.length, facts?.pagesRead);

      const hits = db.prepare("SELECT rowid FROM pages_fts WHERE pages_fts MATCH 'bioconductor'").pluck().all() as number[];
      assert.ok(hits.includes(pdf.seq), 'the PDF\'s words are in the full-text index');

      const text = row(db, '/notes.txt');
      assert.ok(text !== undefined && text.note === null);
      assert.equal(text.title, 'Notes on R packages');
      assert.equal(documentOf(db, text.seq)?.type, 'text');
      assert.ok(row(db, '/from-text.html') !== undefined, "a URL written in the text file was followed");
      assert.equal(run.engine.stats().documents, 2);

      const why = explainUrl(db, run.engine.settings, `${site.origin}/r-faq.pdf`);
      assert.equal(why.state, 'fetched');
      assert.ok(why.fetched !== null && why.fetched.relevance !== null);
    } finally {
      run.db.close();
    }
  });

  it('with --documents none, a PDF is recorded from its headers alone', async () => {
    const dir = tempDir('forager-documents-none-');
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: 'R add-on packages', maxPages: 20, documents: 'none' }));
    try {
      const pdf = row(run.db, '/r-faq.pdf');
      assert.equal(pdf?.note, 'not-html:application/pdf');
      assert.equal(pdf?.body, null);
      assert.equal(row(run.db, '/from-text.html'), undefined);
      assert.equal(run.engine.stats().documents, 0);
    } finally {
      run.db.close();
      dir.cleanup();
    }
  });
});
