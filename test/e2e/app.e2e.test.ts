import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { tempDir } from '../support/crawl-harness.ts';
import { runCli } from '../support/cli.ts';
import { launchChromium, missingChromium, skipWhenMissing, startServe, stopServe, waitFor, type ServedApp } from '../support/e2e-app.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';
import { SCRIPT_MARKER, SCRIPTED_PATH, TOPIC_QUERY, topicSite } from '../support/topic-site.ts';

/*
 * The whole journey in Debian's Chromium, driven through `forager serve` as a user would:
 * new crawl, live dashboard, pause and resume, search, the offline viewer (no script runs,
 * nothing leaves for another host), labelling and export. Screenshots of every screen and
 * the dashboard's responsiveness figures are written to test-output/ for review.
 */

const OUTPUT = fileURLToPath(new URL('../../test-output/', import.meta.url));
const SCREENSHOTS = join(OUTPUT, 'screenshots');
const skip = skipWhenMissing(missingChromium());

async function figure(page: Page, id: string): Promise<number> {
  const text = (await page.getByTestId(id).textContent()) ?? '';
  return Number(text.replace(/[^\d.]/g, ''));
}

describe('the app in a browser, through forager serve', { skip, timeout: 180_000 }, () => {
  let canary: TestSite;
  let site: TestSite;
  let serve: ServedApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin = '';
  let serveStartMs = 0;
  let firstScreenMs = 0;
  const foreignRequests: string[] = [];
  const dir = tempDir('forager-e2e-');

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    canary = await startTestSite({});
    // Slow enough responses that the crawl can be watched, paused and resumed.
    site = await startTestSite({}, topicSite(canary.origin.replace('127.0.0.1', 'localhost'), 40));
    const started = performance.now();
    serve = await startServe(['--dir', dir.dir]);
    serveStartMs = performance.now() - started;
    origin = serve.origin;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1024, height: 700 }, acceptDownloads: true });
    context.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) foreignRequests.push(request.url());
    });
    page = await context.newPage();
    const navigated = performance.now();
    await page.goto(serve.url);
    await page.getByRole('heading', { name: 'No collections yet' }).waitFor();
    firstScreenMs = performance.now() - navigated;
  });

  after(async () => {
    await browser?.close();
    await stopServe(serve?.cli);
    await site?.close();
    await canary?.close();
    dir.cleanup();
  });

  it('shows the collections screen with a useful empty state', async () => {
    await page.screenshot({ path: join(SCREENSHOTS, '1-collections-empty.png'), fullPage: true });
    assert.ok(await page.getByRole('button', { name: /new crawl/i }).or(page.getByRole('link', { name: /new crawl/i })).first().isVisible());
  });

  it('starts a crawl from the New crawl screen, and the counters rise; pause holds them, resume continues', async () => {
    await page.getByRole('link', { name: /new crawl/i }).or(page.getByRole('button', { name: /new crawl/i })).first().click();
    await page.getByLabel('Driving query').fill(TOPIC_QUERY);
    await page.getByLabel('Seed URLs').fill('not a url');
    await page.getByLabel('Page budget').fill('80');
    await page.getByLabel('Politeness delay (ms)').fill('60');
    await page.getByText('Advanced settings').click();
    await page.getByLabel('Allow private addresses').check();
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.getByText(/not a url/).first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '2-new-crawl-invalid-seed.png'), fullPage: true });
    await page.getByLabel('Seed URLs').fill(`${site.origin}/`);
    await page.getByRole('button', { name: 'Start crawl' }).click();

    const first = await waitFor(() => figure(page, 'figure-fetched'), (n) => n >= 3, 'pages to be fetched');
    const later = await waitFor(() => figure(page, 'figure-fetched'), (n) => n > first + 2, 'the fetched counter to rise');
    assert.ok(later > first);
    // The hosts panel says where the turns go: the best waiting priority and each host's share of the fetches.
    const hostsPanel = page.locator('section[aria-labelledby="hosts-title"]');
    await hostsPanel.getByRole('columnheader', { name: 'Best waiting' }).waitFor();
    await waitFor(() => hostsPanel.locator('tbody td').allTextContents(), (cells) => cells.some((cell) => cell.endsWith('(100%)')), 'the one seeded host to hold every fetch');
    await page.screenshot({ path: join(SCREENSHOTS, '3-dashboard-running.png'), fullPage: true });

    await page.getByRole('button', { name: 'Pause' }).click();
    await waitFor(() => page.getByRole('button', { name: 'Resume' }).isEnabled(), (enabled) => enabled, 'Resume to be offered');
    // Requests in flight when pausing still finish; after that the count holds.
    await new Promise((r) => setTimeout(r, 600));
    const paused = await figure(page, 'figure-fetched');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await figure(page, 'figure-fetched'), paused, 'no page is fetched while paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await waitFor(() => figure(page, 'figure-fetched'), (n) => n > paused, 'the crawl to continue after Resume');
    await waitFor(() => figure(page, 'figure-fetched'), (n) => n >= 80, 'the page budget to be reached', 60_000);
    assert.ok((await figure(page, 'figure-hot')) > 0, 'hot pages were found');
    await page.screenshot({ path: join(SCREENSHOTS, '4-dashboard-finished.png'), fullPage: true });

    const perf = await page.evaluate(() => (globalThis as unknown as { __foragerPerf?: unknown }).__foragerPerf);
    writeFileSync(join(OUTPUT, 'e2e-perf.json'), `${JSON.stringify({ serveStartMs, firstScreenMs, perf }, null, 2)}\n`);
  });

  it('searches the harvest with highlighted snippets', async () => {
    await page.getByRole('link', { name: 'Library' }).click();
    await page.getByLabel('Search pages').fill('checkpoint');
    await page.getByLabel('Search pages').press('Enter');
    const mark = page.locator('mark').first();
    await mark.waitFor();
    assert.match((await mark.textContent()) ?? '', /checkpoint/i);
    await page.screenshot({ path: join(SCREENSHOTS, '5-library-search.png'), fullPage: true });
  });

  it('opens a stored page offline: its scripts do not run and no request leaves for another host', async () => {
    await page.getByLabel('Search pages').fill('WAL checkpoints part 0');
    await page.getByLabel('Search pages').press('Enter');
    await page.getByText('WAL and checkpoints, part 0', { exact: false }).first().click();
    const frameElement = page.locator('iframe').first();
    await frameElement.waitFor();
    const frame = await (await frameElement.elementHandle())?.contentFrame();
    assert.ok(frame !== null && frame !== undefined, 'the viewer frame is there');
    await frame.waitForLoadState();
    await frame.getByRole('heading', { name: /WAL and checkpoints, part 0/ }).waitFor();
    assert.match(frame.url(), new RegExp(`^${origin}/(s/[\\w-]+/)?stored/`), `the page comes from the serve origin (${frame.url()})`);
    await new Promise((r) => setTimeout(r, 500));
    const html = await frame.content();
    assert.doesNotMatch(html, /<script/i);
    assert.equal(await frame.locator('body').getAttribute('data-marker'), null, 'the page\'s script did not run');
    assert.notEqual(await page.title(), SCRIPT_MARKER);
    assert.deepEqual(foreignRequests, [], 'every request of the session went to the serve origin');
    assert.deepEqual(canary.requests, [], 'the page\'s remote resources were never requested');
    assert.equal(site.count(SCRIPTED_PATH), 1, 'viewing did not fetch the page again');
    // Read at the window's height: the frame was 260 px of an 800 px window when the page's details sat above it.
    const viewport = page.viewportSize();
    const box = await frameElement.boundingBox();
    assert.ok(viewport !== null && box !== null && box.height >= viewport.height * 0.55, `the stored page's frame is ${box?.height} px tall in a ${viewport?.height} px window`);
    assert.equal(await page.getByRole('link', { name: 'Live page' }).getAttribute('href'), `${site.origin}${SCRIPTED_PATH}`);
    await page.screenshot({ path: join(SCREENSHOTS, '6-viewer.png'), fullPage: true });
    await page.getByText('Page details').click();
    await page.locator('.viewer-details').getByText(`${site.origin}${SCRIPTED_PATH}`).waitFor();
  });

  it('labels the open page and exports the labelled pages', async () => {
    await page.getByRole('button', { name: 'Mark relevant' }).click();
    await page.getByText(/labelled relevant|marked relevant/i).first().waitFor();
    await page.getByRole('link', { name: 'Export' }).click();
    await page.getByLabel('Format').selectOption('jsonl');
    await page.getByLabel('Only pages marked relevant').check();
    await page.screenshot({ path: join(SCREENSHOTS, '7-export.png'), fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
    const path = join(dir.dir, 'download.jsonl');
    await download.saveAs(path);
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { url: string; labels: string[]; title: string });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.url, `${site.origin}${SCRIPTED_PATH}`);
    assert.deepEqual(lines[0]?.labels, ['relevant']);
  });

  it('runs the lab and shows its results', async () => {
    await page.getByRole('link', { name: 'Lab' }).click();
    await page.getByRole('button', { name: 'Run lab' }).click();
    await page.getByRole('table').first().waitFor();
    assert.match((await page.getByRole('table').first().textContent()) ?? '', /focused/);
    await page.screenshot({ path: join(SCREENSHOTS, '8-lab.png'), fullPage: true });
  });

  it('lists the collection on the collections screen', async () => {
    await page.getByRole('link', { name: 'Collections' }).click();
    await page.getByText(TOPIC_QUERY).first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '9-collections.png'), fullPage: true });
  });

  it('deletes a collection only after confirmation', async () => {
    await page.getByRole('button', { name: `Delete ${TOPIC_QUERY}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, '10-delete-confirmation.png'), fullPage: true });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await page.getByText(TOPIC_QUERY).first().isVisible(), 'Escape cancels: the collection is still there');
    await page.getByRole('button', { name: `Delete ${TOPIC_QUERY}` }).click();
    await page.getByRole('button', { name: 'Delete collection' }).click();
    await page.getByRole('heading', { name: 'No collections yet' }).waitFor();
  });
});

describe('page versions in a browser: a crawl and a refresh, the versions and their diff, the filters, Refresh', { skip, timeout: 180_000 }, () => {
  let site: TestSite;
  let serve: ServedApp;
  let browser: Browser;
  let page: Page;
  const dir = tempDir('forager-e2e-versions-');
  const db = join(dir.dir, 'wal-versions.forager');
  /** Each page's body as served now (the title is the path); a missing one is a 404. */
  const served = new Map<string, string>([
    ['/', '<a href="/wal">WAL</a> <a href="/steady">steady</a> <a href="/doomed">doomed</a>'],
    ['/wal', '<h1>Write-ahead log</h1><p>The WAL is flushed at every checkpoint.</p><p>Checkpoints bound recovery.</p>'],
    ['/steady', '<p>Checkpoint notes that never change.</p>'],
    ['/doomed', '<p>A checkpoint page about to go.</p>'],
  ]);
  /** Milliseconds each answer waits, so that a refresh can be watched. */
  let delayMs = 0;

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    site = await startTestSite({}, (req, res) => {
      const path = req.url ?? '/';
      const body = served.get(path);
      setTimeout(() => {
        if (body === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${path}</title></head><body>${body}</body></html>`);
      }, delayMs);
    });
    const crawl = await runCli(['crawl', '--db', db, '--query', 'checkpoint', '--seed', `${site.origin}/`, '--delay-ms', '0', '--allow-private', '--json'], { timeoutMs: 60_000 });
    assert.equal(crawl.code, 0, crawl.stderr);
    served.set('/wal', '<h1>Write-ahead log</h1><p>The WAL is written and flushed at each checkpoint.</p><p>Checkpoints bound recovery.</p>');
    served.delete('/doomed');
    const refresh = await runCli(['refresh', '--db', db, '--json'], { timeoutMs: 60_000 });
    assert.equal(refresh.code, 0, refresh.stderr);
    serve = await startServe(['--dir', dir.dir]);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1024, height: 700 } })).newPage();
    await page.goto(serve.url);
    await page.getByRole('link', { name: 'checkpoint' }).first().waitFor();
  });

  after(async () => {
    await browser?.close();
    await stopServe(serve?.cli);
    await site?.close();
    dir.cleanup();
  });

  const listedTitles = async (): Promise<string[]> => page.locator('.pages-table tbody .page-cell > a').allTextContents();

  it('filters the library by pages changed since a time, and by pages gone', async () => {
    await page.getByRole('link', { name: 'checkpoint' }).first().click();
    await page.getByRole('link', { name: 'Library' }).click();
    // The four pages and the seed host's /sitemap.xml (a 404 the crawl tried as robots.txt names none).
    await waitFor(listedTitles, (titles) => titles.length === 5, 'the five stored responses');
    await page.getByLabel('Show').selectOption('changed');
    await page.getByLabel('When').selectOption('day');
    await waitFor(listedTitles, (titles) => titles.length === 1, 'only the changed page');
    assert.deepEqual(await listedTitles(), ['/wal']);
    assert.equal(await page.locator('.pages-table .badge-changed').textContent(), '2 versions');
    await page.screenshot({ path: join(SCREENSHOTS, 'versions-1-changed-filter.png'), fullPage: true });
    await page.getByLabel('Show').selectOption('gone');
    await waitFor(listedTitles, (titles) => titles.length === 1 && titles[0] === '/doomed', 'only the page that is gone');
    await page.getByLabel('Show').selectOption('new');
    await page.getByLabel('When').selectOption('hour');
    await waitFor(listedTitles, (titles) => titles.length === 5, 'every page, first fetched by the crawl a moment ago');
    await page.getByLabel('Show').selectOption('changed');
    await waitFor(listedTitles, (titles) => titles.length === 1 && titles[0] === '/wal', 'the changed page again');
  });

  it('shows both versions of the changed page with their dates, each in the frame, and the words that changed', async () => {
    await page.locator('.pages-table').getByRole('link', { name: '/wal' }).click();
    const frameElement = page.locator('iframe.stored-page');
    await frameElement.waitFor();
    const latestFrame = await (await frameElement.elementHandle())?.contentFrame();
    await latestFrame?.getByText('written and flushed at each checkpoint').waitFor();
    const viewport = page.viewportSize();
    const box = await frameElement.boundingBox();
    assert.ok(viewport !== null && box !== null && box.height >= viewport.height * 0.55, `the frame is ${box?.height} px tall in a ${viewport?.height} px window`);

    await page.locator('.versions-fold summary').getByText(/^2 versions · showing version 2 \(latest\), fetched \d{4}-/).click();
    const versions = page.getByRole('list', { name: 'Versions of this page' }).locator(':scope > li');
    await waitFor(() => versions.count(), (n) => n === 2, 'two versions listed');
    const rows = await versions.allTextContents();
    assert.match(rows[0] ?? '', /^Version 2 \(latest\) fetched \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    assert.match(rows[1] ?? '', /^Version 1 fetched \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    assert.match(rows[1] ?? '', /changed: a new version was stored/, 'the revisit that found version 1 changed');
    await page.screenshot({ path: join(SCREENSHOTS, 'versions-2-list.png'), fullPage: true });

    await page.getByRole('link', { name: 'Version 1' }).click();
    await waitFor(async () => frameElement.getAttribute('title'), (title) => /version 1 of/.test(title ?? ''), 'the frame to show version 1');
    const earlierFrame = await (await frameElement.elementHandle())?.contentFrame();
    await earlierFrame?.getByText('The WAL is flushed at every checkpoint.').waitFor();
    assert.match(page.url(), /\/library\/\d+\/v1$/);

    await page.getByRole('button', { name: 'Compare versions' }).click();
    const diff = page.getByRole('region', { name: 'Changes from version 1 to version 2' });
    await diff.locator('ins').first().waitFor();
    const inserted = (await diff.locator('ins').allTextContents()).map((t) => t.replace('inserted: ', '').trim());
    const deleted = (await diff.locator('del').allTextContents()).map((t) => t.replace('deleted: ', '').trim());
    assert.deepEqual(inserted, ['written and', 'each']);
    assert.deepEqual(deleted, ['every']);
    assert.match((await diff.textContent()) ?? '', /3 words inserted, 1 deleted/);
    type Styles = { getComputedStyle(element: unknown): { textDecorationLine: string } };
    const style = await diff.locator('del').first().evaluate((el) => (globalThis as unknown as Styles).getComputedStyle(el).textDecorationLine);
    assert.match(style, /line-through/, 'a deletion is struck through, not told by colour alone');
    await page.screenshot({ path: join(SCREENSHOTS, 'versions-3-diff.png'), fullPage: true });
    await page.getByLabel('From', { exact: true }).selectOption('2');
    await page.getByText('The stored text of these versions is the same.').waitFor();
    await page.getByRole('button', { name: 'Show the page' }).click();
    await frameElement.waitFor();
  });

  it('finds words only an earlier version holds when asked to search every version', async () => {
    await page.getByLabel('Search pages').fill('every');
    await page.getByLabel('Search pages').press('Enter');
    await page.getByText(/No stored page matches/).waitFor();
    await page.getByLabel('Search earlier versions too').check();
    const hit = page.locator('.search-results li').first();
    await hit.getByText('earlier version').waitFor();
    assert.match((await hit.textContent()) ?? '', /found in version 1, fetched \d{4}-/);
    await page.getByLabel('Search pages').fill('');
  });

  it('refreshes from the dashboard and from the hosts panel, showing what the revisits found', async () => {
    served.set('/wal', '<h1>Write-ahead log</h1><p>The WAL is written at each checkpoint, then synced.</p>');
    delayMs = 300;
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await page.locator('.badge', { hasText: 'Refreshing' }).first().waitFor();
    await page.getByRole('heading', { name: 'Refreshing: revisits so far' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'versions-4-refreshing.png'), fullPage: true });
    await page.getByRole('heading', { name: 'Revisits of the last run' }).waitFor({ timeout: 30_000 });
    assert.equal(await figure(page, 'revisits-changed'), 1);
    assert.ok((await figure(page, 'revisits-identical')) >= 2, 'the home page and /steady answered the same');
    assert.equal(await figure(page, 'revisits-queued'), 0);

    served.set('/steady', '<p>Checkpoint notes that changed after all.</p>');
    const host = site.origin.replace('http://', '');
    const requestsBefore = site.requests.length;
    const hostButton = page.getByRole('button', { name: `Refresh ${host}` });
    await hostButton.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'versions-5-hosts.png'), fullPage: true });
    await hostButton.click();
    await page.getByRole('heading', { name: 'Refreshing: revisits so far' }).waitFor();
    await page.getByRole('heading', { name: 'Revisits of the last run' }).waitFor({ timeout: 30_000 });
    assert.ok(site.requests.length > requestsBefore, 'the host was asked again');
    assert.equal(await figure(page, 'revisits-changed'), 1, '/steady changed this time');
  });

  it('refreshes from the collections screen', async () => {
    delayMs = 0;
    const requestsBefore = site.requests.length;
    await page.getByRole('link', { name: 'Collections' }).click();
    await page.getByRole('button', { name: 'Refresh checkpoint' }).click();
    await waitFor(async () => site.requests.length, (n) => n > requestsBefore, 'the refresh to reach the site');
    await waitFor(() => page.getByRole('button', { name: 'Refresh checkpoint' }).isEnabled(), (enabled) => enabled, 'the refresh to end');
  });
});
