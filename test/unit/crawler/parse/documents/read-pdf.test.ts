import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { pageAtOffset } from '../../../../../crawler/parse/documents/document-facts.ts';
import { DOCUMENT_NOTES } from '../../../../../crawler/parse/documents/document-notes.ts';
import { readPdf, type PdfLimits } from '../../../../../crawler/parse/documents/read-pdf.ts';
import { simplePdf } from '../../../../support/hostile-pdfs.ts';

/*
 * readPdf on real PDFs (R's manuals, Debian's r-doc-pdf) and on small hand-made ones. The real
 * ones are skipped where the package is missing, except under CI, where they fail.
 */

const R_FAQ = '/usr/share/R/doc/manual/R-FAQ.pdf';
const R_INTS = '/usr/share/R/doc/manual/R-ints.pdf';
const skipReal = !existsSync(R_FAQ) && process.env.CI === undefined ? `no ${R_FAQ} (apt-get install -y r-doc-pdf)` : false;
const URL_OF_DOC = 'https://cran.example/doc/manuals/R-FAQ.pdf';

function limits(over: Partial<PdfLimits> = {}): PdfLimits {
  return { url: URL_OF_DOC, maxLinks: 10_000, maxTextChars: 32 * 1024 * 1024, ...over };
}

/** readPdf takes its bytes (pdf.js detaches them): each reading gets a copy of its own. */
const bytesOf = (buffer: Uint8Array): Uint8Array => new Uint8Array(buffer);

describe('readPdf on R FAQ (52 pages, URI link annotations)', { skip: skipReal }, () => {
  const file = skipReal === false ? readFileSync(R_FAQ) : Buffer.alloc(0);

  it('reads every page: title, page count, where each page starts, the metadata', async () => {
    const reading = await readPdf(bytesOf(file), limits());
    assert.deepEqual(reading.notes, []);
    const page = reading.page;
    assert.ok(page !== null);
    // No Title in its Info dictionary: the title is the first page's largest text.
    assert.equal(page.title, 'R FAQ');
    assert.equal(reading.facts.type, 'pdf');
    assert.equal(reading.facts.pageCount, 52);
    assert.equal(reading.facts.pagesRead, 52);
    assert.equal(reading.facts.pageStarts.length, 52);
    assert.equal(reading.facts.pageStarts[0], 0);
    for (let i = 1; i < 52; i++) {
      const start = reading.facts.pageStarts[i] as number;
      assert.ok(start > (reading.facts.pageStarts[i - 1] as number), `page ${i + 1} starts after page ${i}`);
      assert.equal(page.text.slice(start - 2, start), '\n\n', `page ${i + 1} follows a blank line`);
    }
    assert.equal(reading.facts.metadata.producer, 'pdfTeX-1.40.24');
    assert.equal(reading.facts.metadata.created, '2023-01-20T16:49:27.000Z');
    assert.ok(page.wordCount > 19_000, `${page.wordCount} words`);
  });

  it('puts a known phrase on its page', async () => {
    const reading = await readPdf(bytesOf(file), limits());
    const text = reading.page?.text ?? '';
    const at = text.indexOf('The latest version of this document is always available from');
    assert.ok(at > 0);
    assert.equal(pageAtOffset(reading.facts.pageStarts, at), 5);
    assert.equal(pageAtOffset(reading.facts.pageStarts, text.indexOf('Frequently Asked Questions on R')), 1);
  });

  it('takes links from URI annotations, with the text under them as anchor and the words around them as context', async () => {
    const reading = await readPdf(bytesOf(file), limits());
    const links = reading.page?.links ?? [];
    // An annotation over words that are not a URL: only the annotation knows where they lead.
    const txt = links.find((link) => link.href === 'https://cran.r-project.org/doc/FAQ/R-FAQ.txt');
    assert.ok(txt !== undefined, 'the link under "plain ASCII text"');
    assert.equal(txt.anchor, 'plain ASCII text,');
    assert.equal(txt.contextBefore, 'from https://CRAN.R-project.org/doc/FAQ/ From there, you can obtain versions converted to');
    assert.equal(txt.contextAfter, 'GNU info, HTML, PDF, as well as the Texinfo source');
    assert.deepEqual({ nofollow: txt.nofollow, rel: txt.rel, tag: txt.tag }, { nofollow: false, rel: '', tag: 'a' });
    const hrefs = links.map((link) => link.href);
    assert.equal(new Set(hrefs).size, hrefs.length, 'each target once');
    assert.ok(hrefs.every((href) => /^https?:\/\//.test(href)), 'http(s) only: mailto: and internal destinations are no links to crawl');
    assert.ok(links.length > 80, `${links.length} links`);
  });

  it("without a Title in its metadata, the title is the first page's largest text, not its whole first line", { skip: existsSync(R_INTS) ? false : skipReal }, async () => {
    const reading = await readPdf(bytesOf(readFileSync(R_INTS)), limits({ maxPages: 1 }));
    assert.equal(reading.page?.title, 'R Internals');
    assert.ok(reading.page?.text.startsWith('R Internals Version 4.2.2 Patched'), 'pdf.js sets title and version on one line');
  });

  it('reads at most the page cap, and says so', async () => {
    const reading = await readPdf(bytesOf(file), limits({ maxPages: 10 }));
    assert.deepEqual(reading.notes, [DOCUMENT_NOTES.pagesCapped]);
    assert.equal(reading.facts.pageCount, 52);
    assert.equal(reading.facts.pagesRead, 10);
    assert.equal(reading.facts.pageStarts.length, 10);
  });

  it('stops at the text cap, and says so', async () => {
    const reading = await readPdf(bytesOf(file), limits({ maxTextChars: 5000 }));
    assert.deepEqual(reading.notes, [DOCUMENT_NOTES.textCapped]);
    assert.equal(reading.page?.text.length, 5000);
    assert.equal(reading.page?.textTruncated, true);
    assert.ok(reading.facts.pagesRead < 52);
  });

  it('stops when its time budget is spent, keeping the pages read', async () => {
    // The budget is looked at before each page: the first is always read, and all 52 take ten times this.
    const reading = await readPdf(bytesOf(file), limits({ wallBudgetMs: 50 }));
    assert.deepEqual(reading.notes, [DOCUMENT_NOTES.timeCapped]);
    assert.equal(reading.facts.pageCount, 52);
    assert.ok(reading.facts.pagesRead >= 1 && reading.facts.pagesRead < 52, `${reading.facts.pagesRead} pages read`);
    assert.ok(reading.page?.text.startsWith('R FAQ'));
  });
});

describe('readPdf on hand-made PDFs', () => {
  const pages = [
    ['Write-ahead logging explained', 'A log record is written before the page it describes.', 'See the PostgreSQL manual for checkpoints.'],
    ['Second page', 'Sources are listed at https://www.postgresql.org/docs/current/wal.html, and mirrored.', 'Mail us at the office.'],
  ];
  const links = [
    { page: 1, line: 2, uri: 'https://www.postgresql.org/docs/current/wal-intro.html' },
    { page: 2, line: 2, uri: 'mailto:office@example.org' },
    { page: 2, line: 0, uri: 'appendix.pdf#page=2' },
    // The same target as the URL written on page 2: kept once, where it comes first.
    { page: 1, line: 0, uri: 'https://www.postgresql.org/docs/current/wal.html' },
  ];

  it('title from the Info dictionary, the Catalog language, links from annotations and from the text', async () => {
    const reading = await readPdf(bytesOf(simplePdf(pages, { title: 'WAL notes', author: 'A. Writer', links })), limits({ url: 'https://docs.example/papers/wal.pdf' }));
    assert.deepEqual(reading.notes, []);
    const page = reading.page;
    assert.ok(page !== null);
    assert.equal(page.title, 'WAL notes');
    assert.equal(page.lang, 'en-GB');
    assert.deepEqual(reading.facts.metadata, { title: 'WAL notes', author: 'A. Writer', created: '2024-01-31T12:00:00.000Z', language: 'en-GB' });
    assert.equal(page.text, `${pages[0]!.join('\n')}\n\n${pages[1]!.join('\n')}`);
    assert.deepEqual(reading.facts.pageStarts, [0, pages[0]!.join('\n').length + 2]);
    assert.deepEqual(
      page.links.map((l) => [l.href, l.anchor]),
      [
        ['https://www.postgresql.org/docs/current/wal.html', 'Write-ahead logging explained'],
        ['https://www.postgresql.org/docs/current/wal-intro.html', 'See the PostgreSQL manual for checkpoints.'],
        ['https://docs.example/papers/appendix.pdf#page=2', 'Second page'],
      ],
    );
    assert.equal(page.resolvedBase, 'https://docs.example/papers/wal.pdf');
    assert.deepEqual(page.robots, { noindex: false, nofollow: false });
    assert.deepEqual([page.siteResources, page.requisites], [[], []]);
  });

  it("leaves out a link annotation flagged as not to be seen (NoView), as pdf.js's page annotations do", async () => {
    const made = simplePdf([pages[0]!], { links: [{ page: 1, line: 2, uri: 'https://hidden.example/' }, { page: 1, line: 1, uri: 'https://shown.example/' }] }).toString('latin1');
    // Same length, so the cross-reference table still points right.
    const flagged = made.replace('/Border[0 0 0]', '/F 32/Border[]');
    assert.notEqual(flagged, made);
    const reading = await readPdf(bytesOf(Buffer.from(flagged, 'latin1')), limits());
    assert.deepEqual(
      reading.page?.links.map((l) => [l.href, l.anchor]),
      [['https://shown.example/', 'A log record is written before the page it describes.']],
    );
  });

  it('a URL written in the text is a link, its trailing punctuation left out, with context', async () => {
    const reading = await readPdf(bytesOf(simplePdf(pages)), limits({ url: 'https://docs.example/papers/wal.pdf' }));
    const link = reading.page?.links.find((l) => l.href === 'https://www.postgresql.org/docs/current/wal.html');
    assert.ok(link !== undefined);
    assert.equal(link.anchor, 'https://www.postgresql.org/docs/current/wal.html');
    assert.equal(link.contextBefore, 'PostgreSQL manual for checkpoints. Second page Sources are listed at');
    assert.equal(link.contextAfter, ', and mirrored. Mail us at the office.');
  });

  it('without metadata the title is the first line; links past maxLinks are counted', async () => {
    const many = [Array.from({ length: 12 }, (_, i) => `Reference https://example.org/ref/${i} here`)];
    const reading = await readPdf(bytesOf(simplePdf(many)), limits({ maxLinks: 5 }));
    assert.equal(reading.page?.title, 'Reference https://example.org/ref/0 here');
    assert.equal(reading.page?.links.length, 5);
    assert.equal(reading.page?.linksDropped, 7);
  });

  it('a PDF with no text is read, and noted as having none', async () => {
    const reading = await readPdf(bytesOf(simplePdf([[]])), limits());
    assert.deepEqual(reading.notes, [DOCUMENT_NOTES.noText]);
    assert.equal(reading.page?.text, '');
    assert.equal(reading.facts.pagesRead, 1);
  });
});
