import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tempDir } from '../support/crawl-harness.ts';
import { launchChromium, missingChromium, SCREENSHOTS, skipWhenMissing, startServe, stopServe, waitFor, type ServedApp } from '../support/e2e-app.ts';
import { buildDocumentCollection, R_FAQ_PDF, type DocumentCollection } from '../unit/crawler/library/document-collection.ts';

/*
 * Documents in the app, in Debian's Chromium through `forager serve`: the library's type
 * filter, a PDF drawn page by page by the app's own PDF.js (no script of the document, no
 * request anywhere but the app's own files), its extracted text with page markers, the page
 * of a search hit, the file saved as it was received, and a plain-text file holding markup
 * shown as text.
 */

const skip = skipWhenMissing(missingChromium(), existsSync(R_FAQ_PDF) ? undefined : `no ${R_FAQ_PDF} (apt-get install -y r-doc-pdf)`);

/** Pixels of the PDF canvas that are not white: a drawn page of text has thousands. */
async function inkedPixels(page: Page): Promise<number> {
  return page.locator('canvas.pdf-canvas').evaluate((element) => {
    const canvas = element as unknown as { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    if (canvas.width === 0 || canvas.height === 0) return 0;
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let inked = 0;
    for (let i = 0; i < data.length; i += 4) if ((data[i] as number) < 200 && (data[i + 3] as number) > 0) inked++;
    return inked;
  });
}

/** A word of at least nine letters found on one page of the PDF's text and no other, with that page (from 1). */
function wordOnOnePage(built: DocumentCollection, fromPage: number): { word: string; page: number } {
  const starts = built.pdfPageStarts;
  const pages = starts.map((start, i) => built.pdfText.slice(start, starts[i + 1] ?? built.pdfText.length).toLowerCase());
  for (let page = fromPage; page <= pages.length; page++) {
    for (const word of new Set(pages[page - 1]?.match(/\b[a-z]{9,}\b/g) ?? [])) {
      if (pages.filter((p) => new RegExp(`\\b${word}\\b`).test(p)).length === 1) return { word, page };
    }
  }
  throw new Error('no word of one page only');
}

describe('documents in a browser: a PDF drawn page by page, its text, its file, plain text as text', { skip, timeout: 180_000 }, () => {
  let serve: ServedApp;
  let browser: Browser;
  let page: Page;
  let built: DocumentCollection;
  let origin = '';
  const foreignRequests: string[] = [];
  const policyViolations: string[] = [];
  const dir = tempDir('forager-e2e-documents-');

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    built = await buildDocumentCollection(dir.dir);
    built.db.close();
    serve = await startServe(['--dir', dir.dir]);
    origin = serve.origin;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
    context.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) foreignRequests.push(request.url());
    });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) policyViolations.push(message.text());
    });
    await page.goto(serve.url);
    await page.getByRole('link', { name: 'R packages installation' }).first().click();
    await page.getByRole('link', { name: 'Library' }).click();
  });

  after(async () => {
    await browser?.close();
    await stopServe(serve?.cli);
    dir.cleanup();
  });

  const listedTitles = async (): Promise<string[]> => page.locator('.pages-table tbody .page-cell > a').allTextContents();

  it('filters the library by type and shows a document\'s type, pages and size', async () => {
    await waitFor(listedTitles, (titles) => titles.length === 3, 'the three stored responses');
    await page.getByLabel('Type').selectOption('pdf');
    await waitFor(listedTitles, (titles) => titles.length === 1, 'only the PDF');
    assert.deepEqual(await listedTitles(), ['The R FAQ, zyzzyva edition']);
    assert.match((await page.locator('.pages-table .badge-type').textContent()) ?? '', new RegExp(`^PDF · ${built.pdfPageStarts.length} pages · \\d+ kB$`));
    await page.getByLabel('Type').selectOption('document');
    await waitFor(listedTitles, (titles) => titles.length === 2, 'the two documents');
    await page.getByLabel('Type').selectOption('html');
    await waitFor(listedTitles, (titles) => titles.length === 1 && titles[0] === 'R documents', 'the one web page');
    await page.getByLabel('Type').selectOption('all');
    await waitFor(listedTitles, (titles) => titles.length === 3, 'every response again');
  });

  it('draws the PDF\'s first page with PDF.js, says how many pages it has, and turns pages', async () => {
    await page.locator('.pages-table').getByRole('link', { name: 'The R FAQ, zyzzyva edition' }).click();
    await page.locator('canvas.pdf-canvas[data-page="1"]').waitFor();
    assert.ok((await inkedPixels(page)) > 2_000, 'page 1 is drawn');
    assert.equal(await page.getByTestId('pdf-page-count').textContent(), `of ${built.pdfPageStarts.length}`);
    await page.screenshot({ path: join(SCREENSHOTS, 'documents-1-pdf-page.png') });
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.locator('canvas.pdf-canvas[data-page="2"]').waitFor();
    assert.ok((await inkedPixels(page)) > 2_000, 'page 2 is drawn');
    await page.getByLabel('Page', { exact: true }).fill('7');
    await page.getByLabel('Page', { exact: true }).press('Enter');
    await page.locator('canvas.pdf-canvas[data-page="7"]').waitFor();
  });

  it('shows the extracted text with its page markers', async () => {
    await page.getByRole('button', { name: 'Extracted text' }).click();
    const text = page.getByRole('region', { name: 'Extracted text' });
    await text.waitFor();
    const markers = await text.locator('.page-marker').allTextContents();
    assert.equal(markers.length, built.pdfPageStarts.length);
    assert.deepEqual(markers.slice(0, 3), ['page 1', 'page 2', 'page 3']);
    const firstWords = built.pdfText.split(/\s+/).filter((w) => /^\w+$/.test(w)).slice(0, 4);
    assert.match((await text.locator('section[data-page="1"] pre').textContent()) ?? '', new RegExp(firstWords.join('\\s+')));
    await page.screenshot({ path: join(SCREENSHOTS, 'documents-2-pdf-text.png') });
    await page.getByRole('button', { name: 'Pages' }).click();
    await page.locator('canvas.pdf-canvas[data-page="7"]').waitFor();
  });

  it('names the page of a search hit inside the PDF and opens the PDF there', async () => {
    const { word, page: onPage } = wordOnOnePage(built, 12);
    await page.getByLabel('Search pages').fill(word);
    await page.getByLabel('Search pages').press('Enter');
    const hit = page.locator('.search-results li').first();
    await hit.locator('.page-of-hit').waitFor();
    assert.equal(await hit.locator('.page-of-hit').textContent(), `p. ${onPage}`);
    assert.match((await hit.locator('mark').first().textContent()) ?? '', new RegExp(word, 'i'));
    await page.screenshot({ path: join(SCREENSHOTS, 'documents-3-search-page.png') });
    await hit.getByRole('link').first().click();
    await page.locator(`canvas.pdf-canvas[data-page="${onPage}"]`).waitFor();
    assert.match(page.url(), new RegExp(`/library/${built.pdfSeq}/p${onPage}$`));
    await page.getByLabel('Search pages').fill('');
  });

  it('saves the PDF as the server sent it', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Save file' }).click()]);
    assert.equal(download.suggestedFilename(), 'R-FAQ.pdf');
    const saved = join(dir.dir, 'saved.pdf');
    await download.saveAs(saved);
    assert.ok(readFileSync(saved).equals(built.pdfBytes));
  });

  it('shows a plain-text file that holds markup as text, in the sandboxed frame', async () => {
    await page.getByLabel('Type').selectOption('text');
    await waitFor(listedTitles, (titles) => titles.length === 1, 'the text document');
    await page.locator('.pages-table').getByRole('link', { name: 'Not a heading' }).click();
    const frameElement = page.locator('iframe.stored-page');
    await frameElement.waitFor();
    const frame = await (await frameElement.elementHandle())?.contentFrame();
    assert.ok(frame !== null && frame !== undefined);
    await frame.getByText('<h1>Not a heading</h1>', { exact: false }).waitFor();
    assert.equal(await frame.locator('h1').count(), 0, 'the markup is shown, not read');
    assert.equal(await frame.locator('script').count(), 0);
    assert.notEqual(await frame.title(), 'ran', 'its script did not run');
  });

  it('counts documents apart from pages on the dashboard, and reached nothing outside the app', async () => {
    await page.getByRole('link', { name: 'Dashboard' }).click();
    assert.equal(await page.getByTestId('figure-documents').textContent(), '2');
    await page.screenshot({ path: join(SCREENSHOTS, 'documents-4-dashboard.png') });
    assert.deepEqual(foreignRequests, [], 'every request went to the serve origin');
    assert.deepEqual(policyViolations, [], 'PDF.js needed nothing the app\'s policy refuses');
  });
});
