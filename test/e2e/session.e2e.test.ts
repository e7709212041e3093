import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { parseCookiesTxt } from '../../crawler/net/cookies-txt.ts';
import { importCookies, storedCookies } from '../../crawler/store/cookie-store.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { spawnCli, type RunningCli } from '../support/cli.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';

/*
 * The dashboard of a collection with a logged-in session, in Debian's Chromium through
 * `forager serve`: it says the collection holds one (how many cookies, for which sites, no
 * value), and "Forget session" asks first, then clears the jar.
 */

const CHROMIUM = process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));
const skip = !existsSync(CHROMIUM) && process.env.CI === undefined ? `no Chromium at ${CHROMIUM} (apt-get install -y chromium)` : false;
const VALUE = 'SECRET-E2E-COOKIE-VALUE-31c8';

async function waitFor<T>(probe: () => Promise<T> | T, accept: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last value ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100));
    last = await probe();
  }
  return last;
}

describe('a collection with a logged-in session in the app', { skip, timeout: 120_000 }, () => {
  let serve: RunningCli;
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
    serve = spawnCli(['serve', '--dir', dir.dir, '--port', '0'], { timeoutMs: 110_000 });
    const url = await waitFor(() => /Open (http:\/\/127\.0\.0\.1:\d+\/)\?token=(\S+)/.exec(serve.stdout()), (m) => m !== null, 'the serve URL');
    const [, origin, token] = url as RegExpExecArray;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    page = await (await browser.newContext({ viewport: { width: 1024, height: 900 } })).newPage();
    await page.goto(`${origin}?token=${token}#/c/library/dashboard`);
  });

  after(async () => {
    await browser?.close();
    serve?.child.kill('SIGTERM');
    await serve?.done;
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
