import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { tempDir } from '../support/crawl-harness.ts';
import { spawnCli, type RunningCli } from '../support/cli.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';
import { SCRIPT_MARKER, SCRIPTED_PATH, TOPIC_QUERY, topicSite } from '../support/topic-site.ts';

/*
 * The whole journey in Debian's Chromium, driven through `forager serve` as a user would:
 * new crawl, live dashboard, pause and resume, search, the offline viewer (no script runs,
 * nothing leaves for another host), labelling and export. Screenshots of every screen and
 * the dashboard's responsiveness figures are written to test-output/ for review.
 */

const CHROMIUM = process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium';
const OUTPUT = fileURLToPath(new URL('../../test-output/', import.meta.url));
const SCREENSHOTS = join(OUTPUT, 'screenshots');
const available = existsSync(CHROMIUM);
// CI installs Chromium (.ci/run); elsewhere the suite says why it did not run.
const skip = !available && process.env.CI === undefined ? `no Chromium at ${CHROMIUM} (apt-get install -y chromium)` : false;

async function figure(page: Page, id: string): Promise<number> {
  const text = (await page.getByTestId(id).textContent()) ?? '';
  return Number(text.replace(/[^\d.]/g, ''));
}

async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last value ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
    last = await probe();
  }
  return last;
}

describe('the app in a browser, through forager serve', { skip, timeout: 180_000 }, () => {
  let canary: TestSite;
  let site: TestSite;
  let serve: RunningCli;
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
    serve = spawnCli(['serve', '--dir', dir.dir, '--port', '0'], { timeoutMs: 170_000 });
    const url = await waitFor(async () => /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(serve.stdout())?.[1], (u) => u !== undefined, 'the serve URL', 10_000);
    serveStartMs = performance.now() - started;
    origin = new URL(url as string).origin;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    context = await browser.newContext({ viewport: { width: 1024, height: 700 }, acceptDownloads: true });
    context.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) foreignRequests.push(request.url());
    });
    page = await context.newPage();
    const navigated = performance.now();
    await page.goto(url as string);
    await page.getByRole('heading', { name: 'No collections yet' }).waitFor();
    firstScreenMs = performance.now() - navigated;
  });

  after(async () => {
    await browser?.close();
    serve?.child.kill('SIGTERM');
    await serve?.done;
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
