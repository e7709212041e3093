/**
 * robots.txt that misbehaves, end to end. Each crawl has two seeds on two origins: the site
 * under test and a well-behaved site, so every test also checks that the crawl went on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROBOTS_MAX_BYTES } from '../../crawler/robots/index.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { UrlState, URL_STATE_NAMES, type UrlStateValue } from '../../crawler/store/url-state.ts';
import { crawlOnce, tempDir, testSettings, urlRecord, type CrawlRun } from '../support/crawl-harness.ts';
import { bytes, neverAnswer, redirect, statusOnly } from '../support/hostile-pages.ts';
import { pseudoRandomBytes } from '../support/random.ts';
import { html, startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

const SITE_PAGES: Record<string, Handler> = {
  '/': html('<a href="/public">public</a> <a href="/private">private</a> <a href="/x">x</a> <a href="/y">y</a>', 'Home'),
  '/public': html('<p>Public page.</p>', 'Public'),
  '/private': html('<p>Private page.</p>', 'Private'),
  '/x': html('<p>Page x.</p>', 'X'),
  '/y': html('<p>Page y.</p>', 'Y'),
};

const GOOD_PAGES: Record<string, Handler> = {
  '/robots.txt': (_req, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('none'),
  '/': html('<a href="/about">about</a>', 'Good home'),
  '/about': html('<p>About the good site.</p>', 'Good about'),
};

interface RobotsCrawl {
  site: TestSite;
  good: TestSite;
  run: CrawlRun;
  settings: CrawlSettings;
  url(path: string): string;
  /** User-Agent headers the site under test received. */
  userAgents: string[];
}

/** Crawls the site under test (SITE_PAGES plus `robots`) and the good site to the end. */
async function crawlWithRobots(robots: Record<string, Handler>, overrides: Partial<CrawlSettings>, check: (crawl: RobotsCrawl) => void): Promise<void> {
  const userAgents: string[] = [];
  const routes: Record<string, Handler> = {};
  for (const [path, handler] of Object.entries({ ...SITE_PAGES, ...robots })) {
    routes[path] = (req, res) => {
      userAgents.push(req.headers['user-agent'] ?? '');
      handler(req, res);
    };
  }
  const site = await startTestSite(routes);
  const good = await startTestSite(GOOD_PAGES);
  const tmp = tempDir('forager-robots-');
  let run: CrawlRun | undefined;
  try {
    const settings = testSettings([`${site.origin}/`, `${good.origin}/`], overrides);
    run = await crawlOnce(tmp.dir, settings);
    check({ site, good, run, settings, url: (path) => `${site.origin}${path}`, userAgents });
  } finally {
    run?.db.close();
    await site.close();
    await good.close();
    tmp.cleanup();
  }
}

function assertGoodSiteCrawled(crawl: RobotsCrawl): void {
  assert.ok(crawl.run.outcome === 'exhausted' || crawl.run.outcome === 'budget', `outcome ${crawl.run.outcome}`);
  for (const path of ['/', '/about']) {
    assert.equal(crawl.good.count(path), 1, `good site ${path} fetched once`);
    assert.equal(urlRecord(crawl.run.db, `${crawl.good.origin}${path}`)?.state, UrlState.fetched);
  }
  assert.equal(crawl.good.count('/robots.txt'), 1);
}

function stateOf(crawl: RobotsCrawl, path: string): { state: string; reason: string | null } | undefined {
  const record = urlRecord(crawl.run.db, crawl.url(path));
  return record === undefined ? undefined : { state: URL_STATE_NAMES[record.state as UrlStateValue], reason: record.reason };
}

/** Requests for pages: not robots.txt, nor the /sitemap.xml a seed host is asked for once its robots.txt is usable. */
function pagePaths(crawl: RobotsCrawl): string[] {
  return crawl.site.requests.filter((p) => p !== '/robots.txt' && p !== '/real-robots.txt' && p !== '/sitemap.xml').sort();
}

describe('robots.txt that cannot be had', () => {
  const overrides = { headersTimeoutMs: 300, robotsRetryMs: 50, robotsMaxAttempts: 2 };

  it('never answers: nothing else is fetched from the host, its URLs end robots:unavailable:timeout:headers after robotsMaxAttempts tries', async () => {
    const started = Date.now();
    await crawlWithRobots({ '/robots.txt': neverAnswer() }, overrides, (crawl) => {
      assertGoodSiteCrawled(crawl);
      assert.deepEqual(pagePaths(crawl), [], 'no page of the host was requested');
      assert.equal(crawl.site.count('/robots.txt'), overrides.robotsMaxAttempts);
      assert.deepEqual(stateOf(crawl, '/'), { state: 'robots-blocked', reason: 'robots:unavailable:timeout:headers' });
    });
    assert.ok(Date.now() - started < 5000, 'the crawl ended soon after the last robots.txt attempt');
  });

  it('503: same as unreachable, and the reason names the status', async () => {
    await crawlWithRobots({ '/robots.txt': statusOnly(503) }, overrides, (crawl) => {
      assertGoodSiteCrawled(crawl);
      assert.deepEqual(pagePaths(crawl), []);
      assert.equal(crawl.site.count('/robots.txt'), overrides.robotsMaxAttempts);
      assert.deepEqual(stateOf(crawl, '/'), { state: 'robots-blocked', reason: 'robots:unavailable:http:503' });
    });
  });
});

describe('robots.txt that is odd but usable', () => {
  it('follows a 301 to the real file and obeys it', async () => {
    await crawlWithRobots(
      {
        '/robots.txt': redirect('/real-robots.txt', 301),
        '/real-robots.txt': bytes('text/plain', Buffer.from('User-agent: *\nDisallow: /private\n')),
      },
      {},
      (crawl) => {
        assertGoodSiteCrawled(crawl);
        assert.equal(crawl.site.count('/real-robots.txt'), 1);
        assert.deepEqual(stateOf(crawl, '/private'), { state: 'robots-blocked', reason: 'robots:disallowed' });
        assert.equal(crawl.site.count('/private'), 0);
        assert.deepEqual(pagePaths(crawl), ['/', '/public', '/x', '/y']);
      },
    );
  });

  it('16 KB of gzip inflating to 16 MiB: read and stored up to 512 KiB, its rules obeyed', async () => {
    const inflated = Buffer.concat([Buffer.from('User-agent: *\nDisallow: /private\n'), Buffer.alloc(16 * 1024 * 1024, '#')]);
    const wire = gzipSync(inflated, { level: 9 });
    assert.ok(wire.length < 32 * 1024, `the bomb is small on the wire (${wire.length} bytes)`);
    const bomb: Handler = (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(wire);
    await crawlWithRobots({ '/robots.txt': bomb }, {}, (crawl) => {
      assertGoodSiteCrawled(crawl);
      assert.deepEqual(stateOf(crawl, '/private'), { state: 'robots-blocked', reason: 'robots:disallowed' });
      const stored = crawl.run.db.prepare('SELECT max(length(robots_body)) FROM hosts').pluck().get() as number;
      assert.ok(stored <= ROBOTS_MAX_BYTES, `stored ${stored} bytes`);
    });
  });

  it('1 MiB of random bytes: crawled as if there were no rules', async () => {
    await crawlWithRobots({ '/robots.txt': bytes('text/plain', pseudoRandomBytes(1024 * 1024)) }, {}, (crawl) => {
      assertGoodSiteCrawled(crawl);
      assert.deepEqual(pagePaths(crawl), ['/', '/private', '/public', '/x', '/y']);
      assert.equal(stateOf(crawl, '/private')?.state, 'fetched');
      const blocked = crawl.run.db.prepare(`SELECT count(*) FROM urls WHERE state = ${UrlState.robotsBlocked}`).pluck().get();
      assert.equal(blocked, 0);
    });
  });

  it('404: no restrictions', async () => {
    await crawlWithRobots({ '/robots.txt': statusOnly(404) }, {}, (crawl) => {
      assertGoodSiteCrawled(crawl);
      assert.deepEqual(pagePaths(crawl), ['/', '/private', '/public', '/x', '/y']);
      for (const path of ['/', '/private', '/public', '/x', '/y']) assert.equal(stateOf(crawl, path)?.state, 'fetched', path);
    });
  });

  it('is requested exactly once per origin per crawl', async () => {
    await crawlWithRobots({ '/robots.txt': bytes('text/plain', Buffer.from('User-agent: *\nAllow: /\n')) }, { concurrency: 4 }, (crawl) => {
      assertGoodSiteCrawled(crawl);
      assert.equal(pagePaths(crawl).length, 5);
      assert.equal(crawl.site.count('/robots.txt'), 1);
      assert.equal(crawl.good.count('/robots.txt'), 1);
    });
  });

  it('matches our product token case-insensitively (User-agent: FORAGER)', async () => {
    const robots = 'User-agent: FORAGER\nDisallow: /x\n\nUser-agent: *\nDisallow: /y\n';
    await crawlWithRobots({ '/robots.txt': bytes('text/plain', Buffer.from(robots)) }, {}, (crawl) => {
      assertGoodSiteCrawled(crawl);
      assert.match(crawl.userAgents[0] ?? '', /^Forager\//, 'the token in the file differs from ours only in case');
      assert.deepEqual(stateOf(crawl, '/x'), { state: 'robots-blocked', reason: 'robots:disallowed' });
      assert.equal(crawl.site.count('/x'), 0);
      // Our group replaces the * group, so /y is allowed.
      assert.equal(stateOf(crawl, '/y')?.state, 'fetched');
      assert.equal(crawl.site.count('/y'), 1);
    });
  });
});
