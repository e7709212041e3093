import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

/**
 * Four sites seeded together, each waiting between requests: one about write-ahead logging,
 * three about other things. Host turns follow the priorities, so a page budget spent on the
 * best URLs goes mostly to the topical site; a crawl that spends time uses every idle host.
 */
const PAGES = 60;

function site(topical: boolean): Handler {
  const subject = topical ? 'write-ahead log checkpoints' : 'garden compost';
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (path === '/robots.txt' || path === '/sitemap.xml') return void res.writeHead(404).end();
    const n = path === '/' ? 0 : Number(path.slice(3));
    if (!Number.isInteger(n) || n < 0 || n >= PAGES) return void res.writeHead(404).end();
    const links = [1, 2, 3].map((k) => (n * 3 + k) % PAGES).map((m) => `<a href="/p-${m}">${subject} part ${m}</a>`);
    const body = `<p>${`${subject} notes. `.repeat(20)}</p>${links.join(' ')}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${subject} ${n}</title><body><h1>${subject} ${n}</h1>${body}</body>`);
  };
}

describe('host turns follow the priorities across sites', () => {
  const sites: TestSite[] = [];
  before(async () => {
    sites.push(await startTestSite({}, site(true)));
    for (let i = 0; i < 3; i++) sites.push(await startTestSite({}, site(false)));
  });
  after(async () => {
    await Promise.all(sites.map((s) => s.close()));
  });

  /** The topical site's share of the pages a crawl of 40 pages fetched, and how long the crawl took. */
  async function crawl(overrides: Partial<CrawlSettings>): Promise<{ share: number; ms: number }> {
    const tmp = tempDir();
    try {
      const seeds = sites.map((s) => `${s.origin}/`);
      const started = performance.now();
      const run = await crawlOnce(tmp.dir, testSettings(seeds, { query: 'write-ahead logging and checkpoints', maxPages: 40, delayMs: 40, concurrency: 4, ...overrides }));
      const ms = performance.now() - started;
      const urls = run.db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[];
      run.db.close();
      assert.equal(urls.length, 40, 'the whole budget is fetched');
      return { share: urls.filter((url) => url.startsWith(sites[0]?.origin as string)).length / urls.length, ms };
    } finally {
      tmp.cleanup();
    }
  }

  it('spends a page budget where the topic is, waiting for its polite host; spending time, idle hosts get turns', async () => {
    const pages = await crawl({ strategy: 'naive', spend: 'pages' });
    assert.ok(pages.share >= 0.7, `spending pages, the topical site got ${pages.share.toFixed(2)} of the fetches (an even spread gives 0.25)`);
    const time = await crawl({ strategy: 'naive', spend: 'time' });
    assert.ok(time.share < pages.share, `spending time, the topical site got ${time.share.toFixed(2)} of the fetches, against ${pages.share.toFixed(2)}`);
    assert.ok(time.ms < pages.ms, `spending time took ${time.ms.toFixed(0)} ms, spending pages ${pages.ms.toFixed(0)} ms`);
  });

  it('without a topic signal (bfs) every ready host gets its turn', async () => {
    const { share } = await crawl({ strategy: 'bfs', spend: 'pages' });
    assert.ok(share < 0.5, `the first site got ${share.toFixed(2)} of the fetches`);
  });
});
