import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csvLine } from '../../crawler/export/csv-format.ts';
import { ExportError } from '../../crawler/export/export-error.ts';
import { exportCollection } from '../../crawler/export/run-export.ts';
import { setLabel } from '../../crawler/library/labels.ts';
import { openCollection, type Db, type ReadonlyDb } from '../../crawler/store/database.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';
import { TOPIC_QUERY, topicSite } from '../support/topic-site.ts';

describe('export: JSONL and CSV', () => {
  let site: TestSite;
  let db: Db;
  let readonly: ReadonlyDb;
  const dir = tempDir('forager-export-');

  before(async () => {
    site = await startTestSite({}, topicSite('http://127.0.0.1:9'));
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: TOPIC_QUERY, maxPages: 30, allowPrivate: true }));
    db = run.db;
    setLabel(db, `${site.origin}/db/wal-0`, 'relevant');
    readonly = openCollection(run.dbPath, { create: false, readonly: true });
  });

  after(async () => {
    readonly.close();
    db.close();
    await site.close();
    dir.cleanup();
  });

  it('writes one JSON object per 2xx page with its verdicts, labels and outlinks', async () => {
    const out = join(dir.dir, 'all.jsonl');
    const summary = await exportCollection(readonly, 'jsonl', {}, out);
    const pages = db.prepare('SELECT count(*) FROM pages WHERE status BETWEEN 200 AND 299').pluck().get() as number;
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(summary.pages, pages);
    assert.equal(lines.length, pages);
    assert.equal(summary.bytes, readFileSync(out).length);
    const wal = lines.find((l) => l.finalUrl === `${site.origin}/db/wal-0`);
    assert.ok(wal !== undefined);
    assert.deepEqual(wal.labels, ['relevant']);
    assert.equal(wal.hot, true);
    assert.equal(wal.query, TOPIC_QUERY);
    assert.ok(typeof wal.relevance === 'number' && wal.relevance > 0);
    const outlinks = wal.outlinks as { url: string; anchor: string }[];
    assert.ok(outlinks.some((o) => o.url === `${site.origin}/db/wal-1` && /write-ahead/i.test(o.anchor)));
    for (const key of ['url', 'finalUrl', 'title', 'text', 'relevance', 'hot', 'labels', 'fetchedAt', 'depth', 'outlinks']) assert.ok(key in wal, key);
    assert.deepEqual([wal.versions, wal.lastChangedAt, wal.gone], [1, null, null], 'fetched once: one version, never changed, not gone');
  });

  it('applies every filter: hot only, minimum relevance, labelled relevant, full text, host', async () => {
    const count = async (filter: object): Promise<number> => (await exportCollection(readonly, 'csv', filter, join(dir.dir, `f-${Math.random()}.csv`))).pages;
    const hot = db.prepare('SELECT count(*) FROM pages WHERE hot = 1 AND status BETWEEN 200 AND 299').pluck().get() as number;
    assert.equal(await count({ hotOnly: true }), hot);
    assert.equal(await count({ labelledRelevant: true }), 1);
    const relevant = db.prepare('SELECT count(*) FROM pages WHERE relevance >= 0.2 AND status BETWEEN 200 AND 299').pluck().get() as number;
    assert.ok(relevant > 0);
    assert.equal(await count({ minRelevance: 0.2 }), relevant);
    assert.ok((await count({ text: 'checkpoint' })) > 0);
    const host = new URL(site.origin).host;
    assert.ok((await count({ host: '127.0.0.1' })) > 0, host);
    await assert.rejects(count({ host: 'example.org' }), (err: unknown) => err instanceof ExportError && /no page matches/.test(err.message));
  });

  it('writes CSV a spreadsheet reads safely', async () => {
    const out = join(dir.dir, 'pages.csv');
    await exportCollection(readonly, 'csv', { hotOnly: true }, out);
    const rows = readFileSync(out, 'utf8').split('\r\n').filter((r) => r !== '');
    assert.equal(rows[0], 'url,title,relevance,hot,depth,fetchedAt,versions,lastChangedAt,gone,type,pageCount');
    // A title with a comma is quoted (RFC 4180); a page fetched once has one version, no change and is not gone; a web page has no page count.
    assert.match(rows[1] ?? '', /^http:\/\/127\.0\.0\.1:\d+\/[^,]*,(?:"(?:[^"]|"")*"|[^,"]*),\d\.\d{4},1,\d+,\d{4}-[^,]*Z,1,,,html,$/);
    const tricky = csvLine({
      seq: 1, urlId: 1, url: 'http://x/', title: '=HYPERLINK("http://evil")', text: null, relevance: null, hot: false, label: null, depth: 0, status: 200,
      contentType: null, fetchedAt: 0, version: 1, goneAt: null, documentType: null, pageCount: null,
    });
    assert.equal(tricky, `http://x/,"'=HYPERLINK(""http://evil"")",,0,0,1970-01-01T00:00:00.000Z,1,,,unknown,\r\n`);
  });

  it('leaves no file under the final name when the export fails', async () => {
    const missing = join(dir.dir, 'no', 'such', 'folder', 'x.jsonl');
    await assert.rejects(exportCollection(readonly, 'jsonl', {}, missing), (err: unknown) => err instanceof ExportError && /folder does not exist/.test(err.message));
    assert.equal(existsSync(missing), false);
    if (process.getuid?.() !== 0) {
      const locked = join(dir.dir, 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0o500);
      await assert.rejects(exportCollection(readonly, 'jsonl', {}, join(locked, 'x.jsonl')), /permission denied/);
      assert.deepEqual(readdirSync(locked), []);
    }
    const before = readdirSync(dir.dir).filter((f) => f.endsWith('.part'));
    assert.deepEqual(before, [], 'no partial files are left behind');
  });
});
