import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { explainUrl } from '../../crawler/library/explain.ts';
import { storedAcronyms } from '../../crawler/library/stored-acronyms.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';

const QUERY = 'write-ahead logging';

/** The start page links to a page that defines WAL, and to pages that only ever say WAL. */
function walSite(): Record<string, ReturnType<typeof html>> {
  return {
    '/': html('<a href="/intro.html">Introduction</a> <a href="/config.html">Configuration</a>', 'Manual'),
    '/intro.html': html('<p>Write-Ahead Logging (WAL) is a standard method for ensuring data integrity.</p> <a href="/app-pgresetwal.html">pg_resetwal</a>', 'Reliability'),
    '/config.html': html(`<p>${'The WAL settings control how WAL segments are recycled. '.repeat(10)}</p>`, 'Settings'),
    '/app-pgresetwal.html': html('<p>Resets the WAL of a cluster.</p>', 'pg_resetwal'),
  };
}

describe('acronyms of the query\'s phrases', () => {
  let site: TestSite;
  const tmp = tempDir('forager-acronyms-');
  before(async () => {
    site = await startTestSite(walSite());
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('a page that defines WAL makes the pages that only say WAL relevant, and a resumed crawl and explain still know it', async () => {
    const settings = testSettings([`${site.origin}/`], { query: QUERY, strategy: 'bfs', maxPages: 3 });
    const first = await crawlOnce(tmp.dir, settings);
    const firstRun = first.db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[];
    assert.ok(firstRun.includes(`${site.origin}/intro.html`) && !firstRun.includes(`${site.origin}/config.html`), `the first run defines WAL and stops (${firstRun.join(' ')})`);
    first.db.close();

    const db = openCollection(first.dbPath, { create: false });
    const resumed = { ...settings, maxPages: 10, strategy: 'focused' };
    saveSettings(db, resumed);
    await new CrawlEngine(db, resumed).run();
    const relevance = (path: string): number => db.prepare('SELECT p.relevance FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(`${site.origin}${path}`) as number;
    assert.ok(relevance('/config.html') > 0.5, `a page that says WAL forty times is about write-ahead logging (${relevance('/config.html')})`);
    assert.deepEqual(storedAcronyms(db, QUERY).map((a) => a.term), ['wal']);
    const url = explainUrl(db, resumed, `${site.origin}/app-pgresetwal.html`).signals.find((s) => s.name === 'url');
    assert.ok(url !== undefined && url.value > 0, 'the URL\'s identifier names the phrase by its acronym');
    db.close();
  });
});
