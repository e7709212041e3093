import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crawlInProgress } from '../../crawler/export/live-crawl.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { runCli } from '../support/cli.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';
import { TOPIC_QUERY, topicSite } from '../support/topic-site.ts';

describe('forager export (command line)', () => {
  let site: TestSite;
  let dbPath = '';
  const dir = tempDir('forager-export-cli-');

  before(async () => {
    site = await startTestSite({}, topicSite('http://localhost:9'));
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: TOPIC_QUERY, maxPages: 25, allowPrivate: true }));
    dbPath = run.dbPath;
    run.db.close();
  });

  after(async () => {
    await site.close();
    dir.cleanup();
  });

  it('exports JSONL and CSV with filters, and says what it wrote', async () => {
    const out = join(dir.dir, 'hot.jsonl');
    const result = await runCli(['export', '--db', dbPath, '--format', 'jsonl', '--out', out, '--hot-only', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout) as { pages: number; bytes: number };
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(lines.length, summary.pages);
    assert.ok(lines.every((l) => (JSON.parse(l) as { hot: boolean }).hot));
    const csv = await runCli(['export', '--db', dbPath, '--format', 'csv', '--out', join(dir.dir, 'db.csv'), '--query', 'checkpoint']);
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stdout, /^exported \d+ pages as csv to /);
  });

  it('refuses bad arguments, an existing file, and an empty selection in words', async () => {
    const badFormat = await runCli(['export', '--db', dbPath, '--format', 'pdf', '--out', join(dir.dir, 'x.pdf')]);
    assert.equal(badFormat.code, 2);
    assert.match(badFormat.stderr, /--format must be one of/);
    const existing = join(dir.dir, 'existing.jsonl');
    writeFileSync(existing, 'keep me');
    const refused = await runCli(['export', '--db', dbPath, '--format', 'jsonl', '--out', existing]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /already exists/);
    assert.equal(readFileSync(existing, 'utf8'), 'keep me');
    const empty = join(dir.dir, 'empty.csv');
    const none = await runCli(['export', '--db', dbPath, '--format', 'csv', '--out', empty, '--host', 'nowhere.example']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no page matches/);
    assert.equal(existsSync(empty), false);
    const badRelevance = await runCli(['export', '--db', dbPath, '--format', 'csv', '--out', empty, '--min-relevance', '2']);
    assert.equal(badRelevance.code, 2);
  });

  it('notes that a collection being crawled is exported as a snapshot', async () => {
    const db = openCollection(dbPath, { create: false });
    const now = Date.now();
    db.prepare('INSERT INTO runs (started_at, ended_at) VALUES (?, ?)').run(now - 5_000, now - 1_000);
    assert.ok(crawlInProgress(db) !== undefined);
    assert.equal(crawlInProgress(db, now + 120_000), undefined, 'a run that stopped updating long ago is not live');
    db.close();
    const result = await runCli(['export', '--db', dbPath, '--format', 'jsonl', '--out', join(dir.dir, 'live.jsonl')]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /being crawled right now.*snapshot/);
  });
});
