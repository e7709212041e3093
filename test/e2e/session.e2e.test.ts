import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { parseCookiesTxt } from '../../crawler/net/cookies-txt.ts';
import { importCookies, storedCookies } from '../../crawler/store/cookie-store.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';
import { launchChromium, missingChromium, SCREENSHOTS, skipWhenMissing, startServe, stopServe, waitFor, type ServedApp } from '../support/e2e-app.ts';
import { cookiesFile, type LoopbackSite, membersSite, SESSION, startSite, storedStatuses } from '../support/members-site.ts';

/*
 * The dashboard of a collection with a logged-in session, in Debian's Chromium through
 * `forager serve`: it says the collection holds one (how many cookies, for which sites, no
 * value), and "Forget session" asks first, then clears the jar.
 */

const skip = skipWhenMissing(missingChromium());
const VALUE = 'SECRET-E2E-COOKIE-VALUE-31c8';

describe('a collection with a logged-in session in the app', { skip, timeout: 120_000 }, () => {
  let serve: ServedApp;
  let browser: Browser;
  let page: Page;
  const dir = tempDir('forager-e2e-session-');
  const path = join(dir.dir, 'library.forager');

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const db = openCollection(path, { create: true });
    saveSettings(db, testSettings(['https://library.example.org/'], { query: 'library catalogue' }));
    importCookies(db, parseCookiesTxt([`.library.example.org\tTRUE\t/\tTRUE\t0\tsid\t${VALUE}`, `#HttpOnly_auth.example.net\tFALSE\t/\tFALSE\t0\ttoken\t${VALUE}`].join('\n'), 'cookies.txt'));
    db.close();
    serve = await startServe(['--dir', dir.dir]);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1024, height: 900 } })).newPage();
    await page.goto(`${serve.url}#/c/library/dashboard`);
  });

  after(async () => {
    await browser?.close();
    await stopServe(serve?.cli);
    dir.cleanup();
  });

  it('shows the session without a value, and forgets it after asking', async () => {
    const notice = page.getByTestId('session-notice');
    await notice.waitFor();
    assert.match((await notice.textContent()) ?? '', /^Logged-in session: 2 cookies for auth\.example\.net, library\.example\.org\./);
    assert.ok(!(await page.content()).includes(VALUE), 'no cookie value on the page');
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-session.png'), fullPage: true });

    await notice.getByRole('button', { name: 'Forget session' }).click();
    const dialog = page.getByRole('dialog', { name: 'Forget this session?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(storedCount(), 2, 'Cancel forgets nothing');

    await notice.getByRole('button', { name: 'Forget session' }).click();
    await dialog.getByRole('button', { name: 'Forget session' }).click();
    await notice.waitFor({ state: 'detached' });
    assert.equal(storedCount(), 0);
  });

  function storedCount(): number {
    const db = openCollection(path, { create: false, readonly: true });
    try {
      return storedCookies(db).length;
    } finally {
      db.close();
    }
  }
});

describe('a logged-in session from the New crawl form', { skip, timeout: 120_000 }, () => {
  let site: LoopbackSite;
  let serve: ServedApp;
  let browser: Browser;
  let page: Page;
  const dir = tempDir('forager-e2e-session-form-');

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    site = await startSite('127.0.0.1', (req, res) => membersSite(req, res, 'http://127.0.0.2:9'));
    serve = await startServe(['--dir', dir.dir]);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1024, height: 900 } })).newPage();
    await page.goto(serve.url);
  });

  after(async () => {
    await browser?.close();
    await stopServe(serve?.cli);
    await site?.close();
    dir.cleanup();
  });

  it('names a malformed line as it is pasted, takes a cookies.txt file, and crawls the members pages with it', async () => {
    await page.getByRole('link', { name: /new crawl/i }).or(page.getByRole('button', { name: /new crawl/i })).first().click();
    await page.getByLabel('Driving query').fill('library members');
    await page.getByLabel('Seed URLs').fill(`${site.origin}/`);
    await page.getByLabel('Politeness delay (ms)').fill('0');
    await page.getByText('Advanced settings').click();
    const cookies = page.getByLabel('Cookies (cookies.txt)');
    await cookies.fill(`# Netscape HTTP Cookie File\n127.0.0.1 FALSE /members FALSE 0 sid ${SESSION}`);
    await page.getByText(/^Line 2: expected 7 TAB-separated fields/).waitFor();
    assert.ok(!((await page.locator('.field-error').allTextContents()).join('\n')).includes(SESSION), 'the problem never quotes the line');

    await page.getByLabel('Read cookies from a cookies.txt file').setInputFiles(cookiesFile(dir.dir, [`127.0.0.1\tFALSE\t/members\tFALSE\t0\tsid\t${SESSION}`]));
    await page.getByTestId('cookies-summary').getByText('Logged-in session: 1 cookie for 127.0.0.1.').waitFor();
    assert.equal(await page.getByText(/^Line \d+:/).count(), 0, 'the file read from disk is well-formed');
    await page.screenshot({ path: join(SCREENSHOTS, 'new-crawl-session.png'), fullPage: true });
    await page.getByRole('button', { name: 'Start crawl' }).click();

    const notice = page.getByTestId('session-notice');
    await notice.waitFor();
    assert.match((await notice.textContent()) ?? '', /^Logged-in session: \d+ cookies? for 127\.0\.0\.1\./);
    const [file] = readdirSync(dir.dir).filter((name) => name.endsWith('.forager'));
    const statuses = await waitFor(() => storedStatuses(join(dir.dir, file as string)), (stored) => stored.get('/members/a') === 200 && stored.get('/members/b') === 200, 'the members pages to be stored');
    assert.equal(statuses.get('/members/'), 200);
    assert.equal(site.seen.find((r) => r.path === '/members/')?.cookie, `sid=${SESSION}`);
    assert.ok(!(await page.content()).includes(SESSION), 'no cookie value on the dashboard');
  });
});
