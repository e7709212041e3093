import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { setLabel } from '../../crawler/library/labels.ts';
import type { LinkEvent, OrderingStrategy, PageVerdict } from '../../crawler/ordering/strategy.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';

/**
 * A site the default hot bar learns on: /early mentions checkpoints twice and comes first
 * (breadth-first); then ten pages mention them fifty times each, and the bar rises past
 * /early.
 */
function risingBarSite(): Record<string, ReturnType<typeof html>> {
  const routes: Record<string, ReturnType<typeof html>> = {
    '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /sitemap.xml\n'),
    '/': html(`<a href="/early">early</a> ${Array.from({ length: 10 }, (_, i) => `<a href="/deep-${i}">deep ${i}</a>`).join(' ')}`, 'Start'),
    '/early': html('<p>A checkpoint, another checkpoint, and then gardening.</p>', 'Early notes'),
  };
  for (let i = 0; i < 10; i++) routes[`/deep-${i}`] = html(`<p>${'checkpoint '.repeat(50)} part ${i}</p>`, `Deep dive ${i}`);
  return routes;
}

describe('stored verdicts follow the judge', () => {
  let site: TestSite;
  const tmp = tempDir('forager-verdicts-');
  before(async () => {
    site = await startTestSite(risingBarSite());
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('revises a page judged hot against an early, lower bar once the best pages raise it', async () => {
    const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { query: 'checkpoints', strategy: 'bfs' }));
    const early = run.db.prepare('SELECT p.hot, p.judged_hot AS judgedHot, p.relevance FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').get(`${site.origin}/early`) as {
      hot: number;
      judgedHot: number;
      relevance: number;
    };
    const deep = run.db.prepare("SELECT count(*) FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE '%/deep-%' AND p.hot = 1").pluck().get();
    const hotStored = run.db.prepare('SELECT count(*) FROM pages WHERE hot = 1').pluck().get();
    assert.ok(early.relevance > 0, 'the early page is somewhat relevant');
    assert.deepEqual([early.hot, early.judgedHot], [0, 0], 'below the bar the best pages set, by the end of the run');
    assert.equal(deep, 10);
    assert.equal(run.engine.stats().hot, hotStored, 'the live count follows the revision');
    run.db.close();
  });
});

/** Records labelled() calls, with bfs's order otherwise. */
class LabelWatch implements OrderingStrategy {
  readonly name = 'label-watch';
  readonly labels: [number, boolean | null][] = [];
  linked(_link: LinkEvent): void {}
  fetched(_page: PageVerdict): void {}
  labelled(id: number, relevant: boolean | null): void {
    this.labels.push([id, relevant]);
  }
  priority(): number {
    return 0;
  }
  takeChanged(): number[] {
    return [];
  }
  explain() {
    return { priority: 0, signals: [] };
  }
}

describe('a label during a running crawl', () => {
  let site: TestSite;
  const tmp = tempDir('forager-live-label-');
  before(async () => {
    site = await startTestSite(risingBarSite());
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('reaches the ordering at once and moves the live hot count', async () => {
    const settings = testSettings([`${site.origin}/`], { query: 'checkpoints', delayMs: 30 });
    const db = openCollection(join(tmp.dir, 'live.db'), { create: true });
    saveSettings(db, settings);
    const strategy = new LabelWatch();
    const engine = new CrawlEngine(db, settings, { strategy });
    let labelled = false;
    engine.on('page', (page) => {
      if (labelled || !page.url.endsWith('/')) return;
      labelled = true;
      const result = setLabel(db, page.url, 'relevant');
      const before = engine.stats().hot;
      engine.applyLabel(result.urlId, true, Number(result.hot) - Number(result.wasHot));
      assert.equal(engine.stats().hot, before + (result.wasHot ? 0 : 1));
      assert.deepEqual(strategy.labels, [[result.urlId, true]]);
    });
    await engine.run();
    assert.ok(labelled, 'the seed was fetched and labelled');
    assert.equal(engine.stats().hot, db.prepare('SELECT count(*) FROM pages WHERE hot = 1').pluck().get());
    db.close();
  });
});
