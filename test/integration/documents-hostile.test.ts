import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../crawler/store/database.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { deeplyNestedPdf, encryptedPdf, inflationBombPdf, malformedPdf, manyPagesPdf, simplePdf, truncatedPdf } from '../support/hostile-pdfs.ts';
import { startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

/*
 * Hostile documents in a crawl: each ends with a recorded reason, the crawl finishes, and the
 * pages around them (fetched before, between and after) are all stored.
 */

const HOSTILE: Record<string, { pdf: () => Buffer; note: RegExp }> = {
  encrypted: { pdf: encryptedPdf, note: /document:encrypted/ },
  malformed: { pdf: malformedPdf, note: /document:(malformed|truncated)/ },
  truncated: { pdf: () => truncatedPdf(0.6), note: /document:(truncated|malformed)/ },
  bomb: { pdf: () => inflationBombPdf(1024 * 1024 * 1024), note: /document:(inflates-past-cap|failed|timeout)/ },
  nested: { pdf: () => deeplyNestedPdf(100_000), note: /document:/ },
  'many-pages': { pdf: () => manyPagesPdf(100_000), note: /document:(pages-capped|time-capped|timeout)/ },
};

const send = (body: Buffer, type: string): Handler => (_req, res) => void res.writeHead(200, { 'content-type': type }).end(body);

function stored(db: Db): Map<string, string | null> {
  const rows = db.prepare('SELECT u.url, p.note FROM pages p JOIN urls u ON u.id = p.url_id').all() as { url: string; note: string | null }[];
  return new Map(rows.map((r) => [new URL(r.url).pathname, r.note]));
}

describe('hostile documents in a crawl', () => {
  let site: TestSite;
  const tmp = tempDir('forager-documents-hostile-');
  const names = Object.keys(HOSTILE);

  before(async () => {
    const routes: Record<string, Handler> = {};
    // The seed links every hostile PDF, each followed by an ordinary page that links a good PDF.
    const links = names.map((name) => `<a href="/${name}.pdf">${name} checkpoint report</a> <a href="/after-${name}.html">after ${name}</a>`).join(' ');
    routes['/'] = send(Buffer.from(`<!doctype html><title>reports</title><p>checkpoint reports</p>${links}`), 'text/html');
    for (const name of names) {
      routes[`/${name}.pdf`] = send((HOSTILE[name] as { pdf: () => Buffer }).pdf(), 'application/pdf');
      routes[`/after-${name}.html`] = send(Buffer.from(`<!doctype html><title>after ${name}</title><p>checkpoint notes</p><a href="/good-${name}.pdf">good report</a>`), 'text/html');
      routes[`/good-${name}.pdf`] = send(simplePdf([[`A good checkpoint report after the ${name} one.`]], { title: `good ${name}` }), 'application/pdf');
    }
    site = await startTestSite(routes);
  });

  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('records a reason for each, finishes the crawl, and keeps every other page', { timeout: 180_000 }, async () => {
    const started = Date.now();
    const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { query: 'checkpoint report', maxPages: 100, totalTimeoutMs: 30_000 }));
    try {
      assert.equal(run.outcome, 'exhausted', 'the crawl finished');
      const notes = stored(run.db);
      for (const name of names) {
        const note = notes.get(`/${name}.pdf`);
        assert.ok(note !== undefined, `${name}: recorded`);
        assert.match(note ?? '', (HOSTILE[name] as { note: RegExp }).note, `${name}: its reason`);
        assert.ok(notes.has(`/after-${name}.html`), `${name}: the page after it is stored`);
        assert.equal(notes.get(`/good-${name}.pdf`), null, `${name}: a good PDF after it is read`);
      }
      // Six hostile documents, each ending within its caps (30 s at most): never one stall after another.
      assert.ok(Date.now() - started < names.length * 30_000, `took ${Date.now() - started} ms`);
    } finally {
      run.db.close();
    }
  });
});
