/* Only origins in scope get a hosts row and host state: a page linking to many sites adds one row, not one per site. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UrlState } from '../../crawler/store/url-state.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { html, startTestSite } from '../support/test-site.ts';

test('links to 500 other origins are recorded as out of scope without 500 host rows', async () => {
  const external = Array.from({ length: 500 }, (_, i) => `<a href="http://site${i}.example/page">site ${i}</a>`).join(' ');
  const site = await startTestSite({ '/': html(`${external} <a href="/inside">inside</a>`), '/inside': html('<a href="http://site1.example/page">again</a>') });
  const dir = tempDir('forager-hosts-');
  try {
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { allowPrivate: true, scope: 'hosts' }));
    const hosts = run.db.prepare('SELECT count(*) FROM hosts').pluck().get() as number;
    assert.ok(hosts <= 2, `${hosts} host rows: the site and the one row out-of-scope URLs share`);
    const skipped = run.db.prepare(`SELECT count(*) FROM urls WHERE state = ${UrlState.skipped} AND reason = 'scope'`).pluck().get();
    assert.equal(skipped, 500, 'each external URL is recorded once, a second link to it included');
    assert.equal(run.engine.stats().hosts, 1);
    run.db.close();
  } finally {
    await site.close();
    dir.cleanup();
  }
});
