import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tempDir } from '../support/crawl-harness.ts';
import { runCli, spawnCli, type RunningCli } from '../support/cli.ts';
import { launchChromium, missingChromium, SCREENSHOTS, skipWhenMissing, startServe, stopServe, waitFor, type ServedApp } from '../support/e2e-app.ts';
import { startManyHostWeb, type ManyHostWeb } from '../support/many-host-web.ts';
import { REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

/*
 * `forager serve --redis URL --cluster NAME` in Debian's Chromium: a real redis-server, a
 * cluster defined by `forager cluster create` over a ten-host loopback web, one real
 * `forager worker`. The Cluster screen must show the worker and its pages rising as the
 * workers publish them, the crawl's end, and Redis going away and coming back; a serve
 * without --redis offers no Cluster screen at all.
 */

const NAME = 'e2e-docs';
// Slow enough politeness that the ten hosts' thirty pages take several polls to store.
const DELAY_MS = 1200;

const skip = skipWhenMissing(missingChromium(), existsSync(REDIS_SERVER_BIN) ? undefined : `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)`);

async function figure(page: Page, id: string): Promise<number> {
  return Number(((await page.getByTestId(id).textContent()) ?? '').replace(/[^\d.]/g, ''));
}

describe('the Cluster screen of forager serve', { skip, timeout: 180_000 }, () => {
  let web: ManyHostWeb;
  let redis: RedisServer;
  let served: ServedApp;
  let worker: RunningCli | undefined;
  let browser: Browser;
  let page: Page;
  const dir = tempDir('forager-e2e-cluster-');

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    web = await startManyHostWeb({ hosts: 10, pagesPerHost: 3 });
    // Kept on disk, so that the restart below finds the cluster again.
    redis = await startRedisServer({ appendonly: true, appendfsync: 'always' });
    const created = await runCli([
      'cluster', 'create', '--redis', redis.url, '--name', NAME, '--query', 'test pages', ...web.seeds.flatMap((seed) => ['--seed', seed]),
      '--allow-private', '--scope', 'any', '--max-pages', '1000', '--delay-ms', String(DELAY_MS), '--delay-factor', '0', '--lease-ms', '3000',
    ]);
    assert.equal(created.code, 0, created.stderr);
    served = await startServe(['--dir', join(dir.dir, 'collections'), '--redis', redis.url, '--cluster', NAME]);
    assert.match(served.cli.stdout(), new RegExp(`Showing crawl cluster "${NAME}"`));
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1024, height: 700 } })).newPage();
    await page.goto(served.url);
  });

  after(async () => {
    await browser?.close();
    worker?.child.kill('SIGTERM');
    await worker?.done;
    await stopServe(served?.cli);
    await redis?.close();
    await web?.close();
    dir.cleanup();
  });

  it('offers the Cluster screen, which shows the defined crawl before any worker joins', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Cluster' }).click();
    await page.getByRole('heading', { name: `Cluster ${NAME}` }).waitFor();
    assert.match((await page.getByText('Query: test pages').textContent()) ?? '', /test pages/);
    assert.equal(await page.getByTestId('cluster-state').textContent(), 'Crawling');
    assert.equal(await figure(page, 'cluster-pages'), 0);
    await page.getByText('No worker is alive').waitFor();
  });

  it('shows a worker that joins, and the pages stored rising as it crawls', async () => {
    const running = spawnCli(['worker', '--redis', redis.url, '--name', NAME, '--dir', join(dir.dir, 'shards'), '--parse-workers', '0'], { timeoutMs: 170_000 });
    worker = running;
    const rows = page.getByTestId('cluster-workers').locator('tbody tr');
    await waitFor(() => rows.count(), (n) => n === 1, "the worker's row");
    const first = await waitFor(() => figure(page, 'cluster-pages'), (n) => n > 0, 'the first pages stored');
    const later = await waitFor(() => figure(page, 'cluster-pages'), (n) => n > first, `pages stored to rise past ${first}`);
    assert.ok(later > first);

    // The row is the worker's own: its id as it logged it, the partitions it leased, its pages.
    const id = /worker (\S+) joined cluster/.exec(running.stderr())?.[1];
    assert.ok(id !== undefined, running.stderr());
    const cells = await rows.first().locator('td').allTextContents();
    assert.equal(cells[0], id);
    assert.ok(Number(cells[1]?.replace(/,/g, '')) > 0, `partitions leased: ${cells[1]}`);
    assert.ok(Number(cells[3]?.replace(/,/g, '')) > 0, `pages: ${cells[3]}`);
    assert.match(cells[6] ?? '', /^(crawling|idle)$/);
    assert.ok((await figure(page, 'cluster-leased')) > 0, 'the partitions are leased');
    await page.screenshot({ path: join(SCREENSHOTS, 'cluster-1-crawling.png'), fullPage: true });

    // Thirty pages (and a few sitemap probes) later the crawl is finished and the worker leaves.
    await waitFor(() => page.getByTestId('cluster-state').textContent(), (s) => s === 'Finished', 'the crawl to finish', 90_000);
    const ended = await running.done;
    assert.equal(ended.code, 0, ended.stderr);
    assert.ok((await figure(page, 'cluster-pages')) >= 30, 'every page of the web was stored');
    await page.getByText('No worker is alive').waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(SCREENSHOTS, 'cluster-2-finished.png'), fullPage: true });
  });

  it('says when Redis cannot be reached, and recovers when it is back', async () => {
    const pages = await figure(page, 'cluster-pages');
    await redis.stop();
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 15_000 });
    assert.match((await alert.textContent()) ?? '', /cannot reach Redis|lost Redis/);
    assert.equal(await figure(page, 'cluster-pages'), pages, 'the last status read stays on screen');
    await page.screenshot({ path: join(SCREENSHOTS, 'cluster-3-redis-down.png'), fullPage: true });
    await redis.restart();
    await alert.waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await page.getByTestId('cluster-state').textContent(), 'Finished');
  });

  it('offers no Cluster screen when serve was started without --redis', async () => {
    const half = await runCli(['serve', '--dir', join(dir.dir, 'collections'), '--port', '0', '--redis', redis.url]);
    assert.equal(half.code, 2);
    assert.match(half.stderr, /give --redis URL and --cluster NAME together/);
    const plain = await startServe(['--dir', join(dir.dir, 'collections')]);
    try {
      const other = await browser.newPage();
      await other.goto(plain.url);
      await other.getByRole('heading', { name: 'No collections yet' }).waitFor();
      const main = other.getByRole('navigation', { name: 'Main' });
      assert.equal(await main.getByRole('link', { name: 'Collections' }).count(), 1);
      assert.equal(await main.getByRole('link', { name: 'Cluster' }).count(), 0);
      // Typed by hand, the address explains instead of failing.
      await other.evaluate('window.location.hash = "#/cluster"');
      await other.getByRole('heading', { name: 'No cluster to show' }).waitFor();
      await other.close();
    } finally {
      await stopServe(plain.cli);
    }
  });
});
