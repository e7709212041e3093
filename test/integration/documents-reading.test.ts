/*
 * Reading documents as a crawl does: a loopback site serves web pages, plain text, real PDFs
 * (Debian's R and gnuplot manuals) and hand-made hostile PDFs; each response, fetched as a
 * crawler fetches it, goes to one ResponseReader, several at a time. Every response gets its
 * analysis (no rejection, no stall), each hostile PDF its reason within 30 s, the web pages are
 * parsed while long PDFs are being read, and the real PDFs come out whole.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { ResponseAnalysis, ResponseInput } from '../../crawler/parse/analyse-response.ts';
import { DOCUMENT_NOTES } from '../../crawler/parse/documents/document-notes.ts';
import { ResponseReader } from '../../crawler/parse/response-reader.ts';
import { deeplyNestedPdf, encryptedPdf, inflationBombPdf, malformedPdf, manyPagesPdf, truncatedPdf } from '../support/hostile-pdfs.ts';
import { html, startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

const REAL_PDFS = ['/usr/share/R/doc/manual/R-FAQ.pdf', '/usr/share/R/doc/manual/R-intro.pdf', '/usr/share/R/doc/manual/R-exts.pdf', '/usr/share/doc/gnuplot/gnuplot.pdf'];
const missing = REAL_PDFS.filter((path) => !existsSync(path));
const skip = missing.length > 0 && process.env.CI === undefined ? `needs ${missing.join(', ')} (apt-get install -y r-doc-pdf gnuplot-doc)` : false;

const HOSTILE: Record<string, { body: Buffer; note: string }> = {
  '/hostile/encrypted.pdf': { body: encryptedPdf(), note: DOCUMENT_NOTES.encrypted },
  '/hostile/malformed.pdf': { body: malformedPdf(), note: DOCUMENT_NOTES.malformed },
  '/hostile/truncated.pdf': { body: truncatedPdf(), note: DOCUMENT_NOTES.truncated },
  '/hostile/bomb.pdf': { body: inflationBombPdf(1024 * 1024 * 1024), note: DOCUMENT_NOTES.inflatesPastCap },
  '/hostile/nested.pdf': { body: deeplyNestedPdf(), note: DOCUMENT_NOTES.malformed },
  '/hostile/many-pages.pdf': { body: manyPagesPdf(), note: DOCUMENT_NOTES.pagesCapped },
};
const PAGES = 40;
const CONCURRENCY = 6;

const sendBytes = (type: string, body: Buffer): Handler => (_req, res) => void res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) }).end(body);

interface Outcome {
  path: string;
  analysis: ResponseAnalysis;
  /** From the response's arrival to its analysis. */
  ms: number;
  /** When the analysis came back (performance.now()). */
  doneAt: number;
}

describe('reading documents in a crawl', { skip, timeout: 240_000 }, () => {
  let site: TestSite;
  const routes: Record<string, Handler> = {};
  const outcomes = new Map<string, Outcome>();
  let peakRss = 0;

  before(async () => {
    for (const [path, { body }] of Object.entries(HOSTILE)) routes[path] = sendBytes('application/pdf', body);
    REAL_PDFS.forEach((file, i) => (routes[`/manuals/${i}.pdf`] = sendBytes(i === 0 ? 'application/octet-stream' : 'application/pdf', readFileSync(file))));
    routes['/notes.txt'] = sendBytes('text/plain; charset=utf-8', Buffer.from('Release notes\nSee https://www.r-project.org/ for more.\n'));
    for (let i = 0; i < PAGES; i++) routes[`/page/${i}`] = html(`<p>Page ${i} links <a href="/manuals/${i % REAL_PDFS.length}.pdf">a manual</a>.</p>`, `Page ${i}`);
    site = await startTestSite(routes);

    // Hostile documents first, so that each one's 30 s count from when it arrived, with the real ones queued behind them.
    const paths = [...Object.keys(HOSTILE), ...REAL_PDFS.map((_, i) => `/manuals/${i}.pdf`), '/notes.txt', ...Array.from({ length: PAGES }, (_, i) => `/page/${i}`)];
    const reader = new ResponseReader({ parseWorkers: 1 });
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    try {
      const pending: Promise<void>[] = [];
      let next = 0;
      const fetchAndRead = async (): Promise<void> => {
        for (let path = paths[next++]; path !== undefined; path = paths[next++]) {
          const response = await fetch(`${site.origin}${path}`);
          const body = new Uint8Array(await response.arrayBuffer());
          const arrived = performance.now();
          const input: ResponseInput = { url: `${site.origin}${path}`, status: response.status, contentType: response.headers.get('content-type') ?? undefined, xRobotsTag: undefined, body, agentToken: 'forager', maxLinks: 10_000, kind: 'page', maxDecodedBytes: 32 * 1024 * 1024, documents: ['pdf', 'text'] };
          // Not awaited here, as the engine does not: the next request goes out while this one is read.
          const done = reader.analyse(input).then((analysis) => void outcomes.set(path, { path, analysis, ms: performance.now() - arrived, doneAt: performance.now() }));
          if (path.endsWith('.pdf')) pending.push(done);
          else await done;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, fetchAndRead));
      await Promise.all(pending);
    } finally {
      clearInterval(sampler);
      await reader.close();
    }
  });

  after(() => site?.close());

  it('gives every response its analysis', () => {
    assert.equal(outcomes.size, Object.keys(routes).length);
  });

  it('ends each hostile PDF with its reason within 30 s, its body stored', () => {
    for (const [path, { note, body }] of Object.entries(HOSTILE)) {
      const outcome = outcomes.get(path);
      assert.ok(outcome !== undefined, path);
      assert.equal(outcome.analysis.note, note, path);
      assert.ok(outcome.ms < 30_000, `${path} took ${Math.round(outcome.ms)} ms`);
      assert.ok((outcome.analysis.storedBody?.length ?? 0) > 0 && body.length > 0, `${path} is stored`);
    }
  });

  it('parses the web pages while the long PDFs are still being read', () => {
    const lastPdf = Math.max(...[...outcomes.values()].filter((o) => o.path.endsWith('.pdf')).map((o) => o.doneAt));
    const pages = [...outcomes.values()].filter((o) => o.path.startsWith('/page/'));
    assert.equal(pages.length, PAGES);
    assert.ok(pages.every((o) => o.doneAt < lastPdf), 'every page was parsed before the last PDF was read');
    assert.ok(Math.max(...pages.map((o) => o.ms)) < 5000, `the slowest page took ${Math.round(Math.max(...pages.map((o) => o.ms)))} ms`);
    assert.ok(pages.every((o) => o.analysis.page?.title.startsWith('Page ')));
  });

  it('reads the real PDFs whole: their pages as pdfinfo counts them, a title, http(s) links, an octet-stream one too', () => {
    REAL_PDFS.forEach((file, i) => {
      const { analysis } = outcomes.get(`/manuals/${i}.pdf`) as Outcome;
      const pages = Number(/^Pages:\s+(\d+)$/m.exec(execFileSync('pdfinfo', [file]).toString())?.[1]);
      assert.equal(analysis.note, null, file);
      assert.equal(analysis.document?.pageCount, pages, file);
      assert.equal(analysis.document?.pagesRead, pages, file);
      assert.ok((analysis.page?.title ?? '') !== '', file);
      assert.ok((analysis.page?.links.length ?? 0) > 0 && analysis.page?.links.every((link) => /^https?:/.test(link.href)), file);
      assert.ok(analysis.terms.length > 0 && analysis.bodyHash !== null && analysis.simhash !== null, file);
    });
  });

  it('reads plain text', () => {
    const { analysis } = outcomes.get('/notes.txt') as Outcome;
    assert.equal(analysis.page?.title, 'Release notes');
    assert.deepEqual(analysis.page?.links.map((link) => link.href), ['https://www.r-project.org/']);
  });

  it('keeps memory bounded: a gigabyte bomb and a 100,000-page file among them', (t) => {
    t.diagnostic(`peak RSS ${Math.round(peakRss / 1048576)} MB`);
    assert.ok(peakRss < 700 * 1024 * 1024, `peak RSS ${Math.round(peakRss / 1048576)} MB`);
  });
});
