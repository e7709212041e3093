import { CrawlEngine, type RunOutcome } from '../../../../crawler/engine/engine.ts';
import { RefreshPolicy } from '../../../../crawler/engine/run-policy.ts';
import { finishRefresh, startRefresh } from '../../../../crawler/engine/refresh-run.ts';
import type { Db } from '../../../../crawler/store/database.ts';
import { crawlOnce, tempDir, testSettings, type CrawlRun } from '../../../support/crawl-harness.ts';
import { startTestSite, type TestSite } from '../../../support/test-site.ts';

/** One page of the site as it is served now; an ETag, when given, answers a matching If-None-Match with 304. */
export interface ServedPage {
  title: string;
  body: string;
  status?: number;
  etag?: string;
}

export interface VersionedSite {
  site: TestSite;
  pages: Map<string, ServedPage>;
  run: CrawlRun;
  db: Db;
  /** Revisits every stored page (the refresh engine, as `forager refresh` runs it) and returns its outcome. */
  refresh(): Promise<RunOutcome>;
  close(): Promise<void>;
}

/**
 * A loopback site crawled once into a fresh collection, whose pages a test then changes and
 * refreshes: /a gains and loses words, /b answers 304, /c goes away, /d answers the same 200.
 */
export async function crawlVersionedSite(): Promise<VersionedSite> {
  const pages = new Map<string, ServedPage>([
    ['/', { title: 'Home', body: '<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a> <a href="/d">d</a>' }],
    ['/a', { title: 'Checkpoints', body: '<p>The WAL is flushed at every checkpoint.</p><p>Old paragraph about starvation.</p>', etag: '"a1"' }],
    ['/b', { title: 'Steady', body: '<p>Nothing here changes.</p>', etag: '"b1"' }],
    ['/c', { title: 'Doomed', body: '<p>This page will be removed.</p>' }],
    ['/d', { title: 'Plain', body: '<p>Served the same, without validators.</p>' }],
  ]);
  const site = await startTestSite({}, (req, res) => {
    const page = pages.get(req.url ?? '/');
    if (page === undefined || (page.status ?? 200) !== 200) return void res.writeHead(page?.status ?? 404, { 'content-type': 'text/plain' }).end('not here');
    if (page.etag !== undefined && req.headers['if-none-match'] === page.etag) return void res.writeHead(304, { etag: page.etag }).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(page.etag === undefined ? {} : { etag: page.etag }) })
      .end(`<!doctype html><html><head><title>${page.title}</title></head><body>${page.body}</body></html>`);
  });
  const dir = tempDir('forager-versions-');
  const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: 'checkpoint' }));
  const refresh = async (): Promise<RunOutcome> => {
    const plan = startRefresh(run.db, {});
    const outcome = await new CrawlEngine(run.db, run.engine.settings, { policy: new RefreshPolicy(plan) }).run();
    finishRefresh(run.db, outcome);
    return outcome;
  };
  return {
    site,
    pages,
    run,
    db: run.db,
    refresh,
    close: async () => {
      run.db.close();
      await site.close();
      dir.cleanup();
    },
  };
}

/** Waits until the clock has moved past `ms`, so that times stored before and after differ. */
export async function tick(ms = 5): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) await new Promise((resolve) => setTimeout(resolve, 1));
  return Date.now();
}
