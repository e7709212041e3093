import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runLab } from '../../crawler/lab/run-lab.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { simplePdf } from '../support/hostile-pdfs.ts';
import { startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

/*
 * Focus on documents: a site whose on-topic material is PDF reports behind HTML pages, among
 * sections on other topics with reports of their own. The hot pages are the on-topic reports
 * (their titles say "checkpoint"; no HTML page's title does). A focused crawl must find them at
 * least as early as the naive best-first ordering does: a link to a PDF is scored by its anchor,
 * its URL and its parents like a page's, not pushed aside as a download.
 */

const SECTIONS = [
  { dir: 'db', topical: true, words: ['write-ahead log', 'checkpoint', 'fsync', 'recovery', 'redo log', 'WAL segment'] },
  { dir: 'garden', topical: false, words: ['tomato', 'compost', 'pruning', 'seedling', 'mulch', 'irrigation'] },
  { dir: 'travel', topical: false, words: ['railway', 'ferry', 'itinerary', 'hostel', 'passport', 'luggage'] },
  { dir: 'cooking', topical: false, words: ['sourdough', 'braise', 'stock', 'knife', 'oven', 'spice'] },
] as const;
const PAGES = 10;
const REPORTS = 5;

function words(seed: number, pool: readonly string[], count: number): string {
  let x = (seed * 2654435761) >>> 0;
  return Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) >>> 0;
    return pool[x % pool.length] as string;
  }).join(' ');
}

const page = (title: string, body: string): Handler => (_req, res) =>
  void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${title}</title><body>${body}</body>`);

function routes(): Record<string, Handler> {
  const all: Record<string, Handler> = {};
  const sectionLinks = SECTIONS.map((s) => `<a href="/${s.dir}/">${s.dir}</a>`).join(' ');
  all['/'] = page('Home', `<p>Sections: ${sectionLinks}</p>`);
  for (const [k, section] of SECTIONS.entries()) {
    const subject = section.topical ? 'checkpoint' : section.words[0];
    const pageLinks = Array.from({ length: PAGES }, (_, i) => `<a href="/${section.dir}/p${i}.html">${words(k * 100 + i, section.words, 3)}</a>`).join(' ');
    all[`/${section.dir}/`] = page(`${section.dir} index`, `<p>${words(k, section.words, 20)}</p>${pageLinks}`);
    for (let i = 0; i < PAGES; i++) {
      // Each page links one report of its section and a page of the next section.
      const report = i % REPORTS;
      const next = SECTIONS[(k + 1) % SECTIONS.length] as (typeof SECTIONS)[number];
      all[`/${section.dir}/p${i}.html`] = page(
        `${section.dir} note ${i}`,
        `<p>${words(k * 1000 + i, section.words, 60)}</p><a href="/${section.dir}/report-${report}.pdf">report ${report}: ${words(i, section.words, 2)}</a> <a href="/${next.dir}/p${i}.html">more</a>`,
      );
    }
    for (let r = 0; r < REPORTS; r++) {
      const lines = Array.from({ length: 12 }, (_, l) => words(k * 10_000 + r * 100 + l, section.words, 8));
      const pdf = simplePdf([lines, lines.slice(0, 6)], { title: `${subject} report ${r}` });
      all[`/${section.dir}/report-${r}.pdf`] = (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    }
  }
  return all;
}

describe('focus on documents', () => {
  let site: TestSite;
  const tmp = tempDir('forager-documents-focus-');

  before(async () => {
    site = await startTestSite(routes());
  });

  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('finds the hot PDFs behind HTML pages at least as early as naive best-first (PST@10%)', async () => {
    const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { query: 'write-ahead log checkpoint recovery', maxPages: 500 }));
    try {
      assert.equal(run.outcome, 'exhausted', 'the whole site is in the collection, for the replays');
      const report = runLab(run.db, { strategies: ['focused', 'naive'], budgets: [0.1, 0.25], hot: 'title:checkpoint' });
      assert.equal(report.collection.hotPages, REPORTS, 'the hot pages are the on-topic reports, all read');
      const pst = (strategy: string, budget: number): number => report.results.find((r) => r.strategy === strategy)?.budgets.find((b) => b.budget === budget)?.pst ?? -1;
      console.log(`# PST@10%: focused ${pst("focused", 0.1)} naive ${pst("naive", 0.1)}; PST@25%: focused ${pst("focused", 0.25)} naive ${pst("naive", 0.25)}`);
      assert.ok(pst('focused', 0.1) >= pst('naive', 0.1), `focused PST@10% ${pst('focused', 0.1)} against naive ${pst('naive', 0.1)}`);
      assert.ok(pst('focused', 0.25) >= 0.8, `focused finds most hot reports within a quarter of the site: ${pst('focused', 0.25)}`);
    } finally {
      run.db.close();
    }
  });
});
