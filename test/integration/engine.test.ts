import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { collectionStats } from '../../crawler/library/stats.ts';
import { crawlOnce, tempDir, testSettings, urlRecord } from '../support/crawl-harness.ts';
import { html, startTestSite, treeSite, type TestSite } from '../support/test-site.ts';

describe('engine on a loopback tree site', () => {
  let site: TestSite;
  const tmp = tempDir();
  before(async () => {
    site = await startTestSite({ '/robots.txt': (_q, r) => void r.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /p/7\n') }, treeSite(40, 3));
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('fetches every reachable page once, breadth first, and obeys robots.txt', async () => {
    const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/p/0`], { maxPages: 1000, concurrency: 4, strategy: 'bfs' }));
    assert.equal(run.outcome, 'exhausted');
    const stats = collectionStats(run.db);
    // 40 pages minus /p/7, and /p/7's children (22, 23, 24) are never discovered; and the
    // seed host's /sitemap.xml (robots.txt names none), a 404 here.
    assert.equal(stats.fetched, 37);
    assert.equal(site.count('/sitemap.xml'), 1);
    assert.equal(stats.robotsBlocked, 1);
    assert.equal(site.count('/robots.txt'), 1);
    assert.equal(site.count('/p/7'), 0);
    for (let n = 0; n < 40; n++) {
      const path = `/p/${n}`;
      assert.ok(site.count(path) <= 1, `${path} fetched ${site.count(path)} times`);
    }
    const depths = run.db.prepare('SELECT u.depth FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.seq').pluck().all() as number[];
    assert.deepEqual(depths, [...depths].sort((a, b) => a - b), 'pages come out in breadth-first order');
    assert.equal(urlRecord(run.db, `${site.origin}/p/7`)?.reason, 'robots:disallowed');
    const text = run.db.prepare("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH 'alpha'").pluck().get() as number;
    assert.ok(text >= 17, `full-text index has the alpha pages (${text})`);
    run.db.close();
  });
});

describe('the links of a page', () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it('stores one link to each URL a page links, the first, with its anchor and context', async () => {
    const site = await startTestSite({
      '/': html('<p>See the log <a href="/a#one">First</a> and <a href="/a#two">Second</a>, then <a href="/a">Third</a> or <a href="/b">Other</a>.</p>'),
      '/a': html('<p>A</p>'),
      '/b': html('<p>B</p>'),
    });
    try {
      const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { maxPages: 10, strategy: 'bfs' }));
      const rows = run.db
        .prepare('SELECT d.url, l.anchor, l.context_after AS after FROM links l JOIN pages p ON p.seq = l.src_seq JOIN urls s ON s.id = p.url_id JOIN urls d ON d.id = l.dst_id WHERE s.url = ? ORDER BY d.url')
        .all(`${site.origin}/`) as { url: string; anchor: string; after: string }[];
      run.db.close();
      assert.deepEqual(rows.map((row) => [row.url, row.anchor]), [[`${site.origin}/a`, 'First'], [`${site.origin}/b`, 'Other']]);
      assert.match(rows[0]?.after ?? '', /^and Second/, 'the context of the first link');
    } finally {
      await site.close();
    }
  });
});

describe('politeness', () => {
  it('keeps one request in flight per host and waits the delay after each response', async () => {
    let inflight = 0;
    let maxInflight = 0;
    const ends: number[] = [];
    const starts: number[] = [];
    const site = await startTestSite({}, (req, res) => {
      inflight++;
      maxInflight = Math.max(maxInflight, inflight);
      starts.push(Date.now());
      const n = Number((req.url ?? '').split('/').pop());
      setTimeout(() => {
        const links = n < 6 ? `<a href="/${n + 1}">next</a><a href="/${n + 10}">side</a>` : '';
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${n}</title>${links}`);
        inflight--;
        ends.push(Date.now());
      }, 20);
    });
    const tmp = tempDir();
    try {
      const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/0`], { delayMs: 120, concurrency: 8 }));
      assert.equal(maxInflight, 1);
      for (let i = 1; i < starts.length; i++) {
        const gap = (starts[i] as number) - (ends[i - 1] as number);
        assert.ok(gap >= 110, `request ${i} came ${gap} ms after the previous response ended`);
      }
      run.db.close();
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });

  it('waits k times the last response time when that is longer than the minimum delay', async () => {
    const starts: number[] = [];
    const ends: number[] = [];
    const site = await startTestSite({ '/robots.txt': (_q, r) => void r.writeHead(404).end(), '/sitemap.xml': (_q, r) => void r.writeHead(404).end() }, (req, res) => {
      starts.push(Date.now());
      const n = Number((req.url ?? '').split('/').pop());
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(n < 3 ? `<a href="/${n + 1}">next</a>` : 'end');
        ends.push(Date.now());
      }, 60);
    });
    const tmp = tempDir();
    try {
      const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/0`], { delayMs: 10, delayFactor: 2 }));
      assert.equal(starts.length, 4);
      for (let i = 1; i < starts.length; i++) {
        const gap = (starts[i] as number) - (ends[i - 1] as number);
        assert.ok(gap >= 100, `gap ${gap} ms must be ≥ 2 × 60 ms response time (less timer slack)`);
      }
      run.db.close();
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });

  it('honours Crawl-delay from robots.txt', async () => {
    const starts: number[] = [];
    const site = await startTestSite(
      {
        '/robots.txt': (_q, r) => void r.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: forager\nCrawl-delay: 0.3\n'),
        '/sitemap.xml': (_q, r) => void r.writeHead(404).end(),
      },
      (req, res) => {
        starts.push(Date.now());
        const n = Number((req.url ?? '').split('/').pop());
        res.writeHead(200, { 'content-type': 'text/html' }).end(n < 2 ? `<a href="/${n + 1}">next</a>` : 'end');
      },
    );
    const tmp = tempDir();
    try {
      const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/0`]));
      assert.equal(starts.length, 3);
      assert.ok((starts[2] as number) - (starts[0] as number) >= 580, 'two gaps of at least 300 ms');
      run.db.close();
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });
});

describe('page budget and states', () => {
  it('stops at the budget and leaves the rest queued', async () => {
    const site = await startTestSite({}, treeSite(50, 4));
    const tmp = tempDir();
    try {
      const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/p/0`], { maxPages: 10 }));
      assert.equal(run.outcome, 'budget');
      const stats = collectionStats(run.db);
      assert.equal(stats.fetched, 10);
      assert.ok(stats.queued > 0);
      const states = run.db.prepare('SELECT DISTINCT state FROM urls').pluck().all() as number[];
      assert.ok(!states.includes(UrlState.inflight), 'nothing left in flight');
      run.db.close();
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });

  it('records out-of-scope, too-deep and trap URLs with a reason, without fetching them', async () => {
    const site = await startTestSite({
      '/': html('<a href="http://other.invalid/x">elsewhere</a><a href="/a/a/a/a/a/">loop</a><a href="/d1">deep</a>'),
      '/d1': html('<a href="/d2">deeper</a>'),
      '/d2': html('<a href="/d3">deepest</a>'),
    });
    const tmp = tempDir();
    try {
      const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { maxDepth: 2 }));
      assert.equal(urlRecord(run.db, 'http://other.invalid/x')?.reason, 'scope');
      assert.equal(urlRecord(run.db, `${site.origin}/d3`)?.reason, 'depth');
      assert.match(urlRecord(run.db, `${site.origin}/a/a/a/a/a/`)?.reason ?? '', /^trap:/);
      assert.equal(site.count('/d3'), 0);
      run.db.close();
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });
});

describe('pause and resume in the same process', () => {
  it('sends no request while paused and finishes after resume', async () => {
    const site = await startTestSite({}, treeSite(30, 2));
    const tmp = tempDir();
    try {
      const db = openCollection(`${tmp.dir}/pause.db`, { create: true });
      const engine = new CrawlEngine(db, testSettings([`${site.origin}/p/0`], { delayMs: 20 }));
      const states: string[] = [];
      engine.on('state', (s) => states.push(s));
      let pausedAt = -1;
      engine.once('page', () => {
        engine.pause();
        pausedAt = site.requests.length;
        setTimeout(() => {
          assert.ok(site.requests.length <= pausedAt + 1, 'at most the request already in flight completes while paused');
          engine.resume();
        }, 300);
      });
      const outcome = await engine.run();
      assert.equal(outcome, 'exhausted');
      assert.deepEqual(states, ['paused', 'running']);
      assert.equal(engine.stats().fetched, 31, "the tree's 30 pages and the seed host's /sitemap.xml");
      db.close();
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });
});
