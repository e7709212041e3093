import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { tempDir } from '../support/crawl-harness.ts';
import { launchChromium, missingChromium, SCREENSHOTS, skipWhenMissing, startServe, stopServe, waitFor, type ServedApp } from '../support/e2e-app.ts';

/*
 * The New crawl form's rules editor in Debian's Chromium, through `forager serve`: the
 * include and exclude boxes show a pattern's problem as it is typed, and "Would this URL be
 * crawled?" answers from the crawler's own admission gate. No crawl is started.
 */

const skip = skipWhenMissing(missingChromium());

describe('the rules editor of the New crawl form', { skip, timeout: 120_000 }, () => {
  let serve: ServedApp;
  let browser: Browser;
  let page: Page;
  const dir = tempDir('forager-e2e-rules-');

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    serve = await startServe(['--dir', dir.dir]);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1024, height: 900 } })).newPage();
    await page.goto(serve.url);
    await page.getByRole('link', { name: /new crawl/i }).or(page.getByRole('button', { name: /new crawl/i })).first().click();
    await page.getByLabel('Driving query').fill('write-ahead logging');
    await page.getByLabel('Seed URLs').fill('# the manual\nhttps://docs.example/manual/   # start here');
    await page.getByText('Advanced settings').click();
  });

  after(async () => {
    await browser?.close();
    await stopServe(serve?.cli);
    dir.cleanup();
  });

  /** The answer shown under "Would this URL be crawled?", or '' while there is none. */
  async function verdict(): Promise<string> {
    const shown = page.getByTestId('rule-verdict');
    return (await shown.count()) > 0 ? ((await shown.textContent()) ?? '') : '';
  }

  async function answerFor(url: string, expected: RegExp): Promise<void> {
    await page.getByLabel('Would this URL be crawled?').fill(url);
    await waitFor(verdict, (text) => expected.test(text), `the answer for ${url}`);
  }

  it('answers whether a URL would be crawled, naming the rule that refuses it', async () => {
    await page.getByLabel('Include only URLs matching').fill('https://docs.example/manual/**\n/\\/api\\/v\\d+\\//');
    await page.getByLabel('Exclude URLs matching').fill('**/*.zip');
    await answerFor('https://docs.example/manual/wal.html', /^Crawled: it is in scope and the rules admit it/);
    await answerFor('https://docs.example/manual/', /^Crawled: it is a seed/);
    await answerFor('https://docs.example/manual/all.zip', /^Refused: excluded by the pattern “\*\*\/\*\.zip”\.$/);
    await answerFor('https://docs.example/blog/', /^Refused: not included by any of the 2 include patterns\.$/);
    await answerFor('https://elsewhere.example/api/v2/x', /^Refused: out of scope \(host elsewhere\.example is not a seed host/);
    await page.screenshot({ path: join(SCREENSHOTS, 'new-crawl-rules.png'), fullPage: true });
  });

  it('shows a pattern problem as it is typed, and answers again once it is fixed', async () => {
    await page.getByLabel('Exclude URLs matching').fill('**/*.zip\n/(unclosed/');
    await page.getByText(/Line 2: it is not a valid regular expression/).waitFor();
    await waitFor(verdict, (text) => /Fix the patterns above/.test(text), 'the answer to wait for the patterns');
    // A glob only the crawler's glob compiler refuses comes back from the service.
    await page.getByLabel('Exclude URLs matching').fill('**/[a');
    await page.getByText(/“\*\*\/\[a”: it is not a glob/).waitFor();
    await page.getByRole('button', { name: 'Start crawl' }).click();
    await page.getByText(/the exclude pattern "\*\*\/\[a" cannot be used/).waitFor();
    assert.deepEqual(readdirSync(dir.dir).filter((name) => name.endsWith('.forager')), [], 'no collection was made');
    await page.getByLabel('Exclude URLs matching').fill('**/*.zip');
    await answerFor('https://docs.example/manual/guide.html', /^Crawled/);
  });
});
