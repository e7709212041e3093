import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';

/**
 * A small site where three pages are about checkpoints and the rest are not. Its robots.txt
 * keeps the crawl to those six pages: it names no sitemap and forbids the /sitemap.xml a
 * seed host would otherwise be asked for.
 */
function checkpointSite(): Record<string, ReturnType<typeof html>> {
  return {
    '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /sitemap.xml\n'),
    '/': html('<p>Storage engine notes.</p><a href="/wal">write-ahead log</a> <a href="/misc">misc</a> <a href="/btree">b-tree pages</a>', 'Storage'),
    '/wal': html(
      '<p>The write-ahead log records changes; a checkpoint copies them back. Checkpoints run often; checkpoint starvation happens.</p><a href="/checkpoint-tuning">checkpoint tuning</a>',
      'Write-ahead logging and checkpoints',
    ),
    '/checkpoint-tuning': html('<p>Tune the checkpoint interval; each checkpoint flushes the log. Checkpoint, checkpoint.</p>', 'Checkpoint tuning'),
    '/misc': html('<p>Unrelated notes on gardening and weather.</p><a href="/recipes">recipes</a>', 'Miscellany'),
    '/recipes': html('<p>Bread and soup recipes.</p>', 'Recipes'),
    '/btree': html('<p>B-tree pages split and merge.</p>', 'B-trees'),
  };
}

describe('hot pages, labels and explain through the CLI', () => {
  let site: TestSite;
  const tmp = tempDir('forager-focus-');
  const db = join(tmp.dir, 'focus.db');
  before(async () => {
    site = await startTestSite(checkpointSite());
    const crawl = await runCli([
      'crawl', '--db', db, '--query', 'write-ahead logging and checkpoints', '--seed', `${site.origin}/`,
      '--hot', 'title:checkpoint|body>=3:checkpoint', '--delay-ms', '0', '--strategy', 'focused', '--json',
    ]);
    assert.equal(crawl.code, 0, crawl.stderr);
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('judges pages with the hot predicate and reports hot and harvest rate', async () => {
    const stats = await runCli(['stats', '--db', db, '--json']);
    const parsed = JSON.parse(stats.stdout) as { fetched: number; hot: number; harvestRate: number; harvestSeries: { fetched: number; hot: number }[] };
    assert.equal(parsed.fetched, 6);
    assert.equal(parsed.hot, 2, 'the two checkpoint pages are hot');
    assert.equal(parsed.harvestRate, 2 / 6);
    assert.deepEqual(parsed.harvestSeries.at(-1), { fetched: 6, hot: 2, harvestRate: 2 / 6 });
    const raw = new Database(db, { readonly: true });
    const relevance = raw.prepare("SELECT u.url, p.relevance FROM pages p JOIN urls u ON u.id = p.url_id").all() as { url: string; relevance: number }[];
    raw.close();
    const of = (path: string): number => relevance.find((r) => r.url === `${site.origin}${path}`)?.relevance ?? -1;
    assert.ok(of('/wal') > of('/recipes'), 'the on-topic page is more relevant than the recipes');
  });

  it('explains a fetched URL: priority, signals, parents with anchors, relevance and verdict', async () => {
    const result = await runCli(['explain', '--db', db, '--json', `${site.origin}/checkpoint-tuning`]);
    assert.equal(result.code, 0, result.stderr);
    const why = JSON.parse(result.stdout) as {
      state: string; strategy: string; priority: number; signals: { name: string; contribution: number }[];
      parents: { url: string; anchor: string; parentHot: boolean }[]; hotDistance: number; fetched: { hot: boolean; relevance: number };
    };
    assert.equal(why.state, 'fetched');
    assert.equal(why.strategy, 'focused');
    assert.ok(why.signals.length > 0);
    assert.deepEqual(why.parents.map((p) => [p.url, p.anchor, p.parentHot]), [[`${site.origin}/wal`, 'checkpoint tuning', true]]);
    assert.equal(why.hotDistance, 0);
    assert.equal(why.fetched.hot, true);
  });

  it('explains a URL that is still queued', async () => {
    const queuedDb = join(tmp.dir, 'queued.db');
    const crawl = await runCli([
      'crawl', '--db', queuedDb, '--query', 'write-ahead logging and checkpoints', '--seed', `${site.origin}/`,
      '--hot', 'title:checkpoint', '--delay-ms', '0', '--max-pages', '1', '--json',
    ]);
    assert.equal(crawl.code, 0, crawl.stderr);
    const result = await runCli(['explain', '--db', queuedDb, '--json', `${site.origin}/wal`]);
    assert.equal(result.code, 0, result.stderr);
    const why = JSON.parse(result.stdout) as { state: string; priority: number; signals: { name: string; contribution: number }[]; fetched: unknown; parents: { anchor: string }[] };
    assert.equal(why.state, 'queued');
    assert.equal(why.fetched, null);
    assert.deepEqual(why.parents.map((p) => p.anchor), ['write-ahead log']);
    const sum = why.signals.reduce((total, s) => total + s.contribution, 0);
    assert.ok(Math.abs(sum - why.priority) < 1e-9, `contributions ${sum} add up to the priority ${why.priority}`);
    const misc = JSON.parse((await runCli(['explain', '--db', queuedDb, '--json', `${site.origin}/misc`])).stdout) as { priority: number };
    assert.ok(why.priority > misc.priority, 'the link whose anchor matches the query ranks above an unrelated one');
  });

  it('labels a page: its verdict becomes the label, and unknown URLs are refused', async () => {
    const label = await runCli(['label', '--db', db, '--url', `${site.origin}/btree`, '--relevant', '--json']);
    assert.equal(label.code, 0, label.stderr);
    const stats = JSON.parse((await runCli(['stats', '--db', db, '--json'])).stdout) as { hot: number };
    assert.equal(stats.hot, 3);
    const unknown = await runCli(['label', '--db', db, '--url', `${site.origin}/never-seen`, '--irrelevant']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /not in this collection/);
    const both = await runCli(['label', '--db', db, '--url', `${site.origin}/btree`, '--relevant', '--irrelevant']);
    assert.equal(both.code, 2);
  });

  it('clears a label: the judge\'s own verdict comes back', async () => {
    const hotCount = async (): Promise<number> => (JSON.parse((await runCli(['stats', '--db', db, '--json'])).stdout) as { hot: number }).hot;
    const before = await hotCount();
    const wrong = await runCli(['label', '--db', db, '--url', `${site.origin}/checkpoint-tuning`, '--irrelevant', '--json']);
    assert.equal(wrong.code, 0, wrong.stderr);
    assert.deepEqual(JSON.parse(wrong.stdout), { url: `${site.origin}/checkpoint-tuning`, label: 'irrelevant', hot: false });
    assert.equal(await hotCount(), before - 1);
    const cleared = await runCli(['label', '--db', db, '--url', `${site.origin}/checkpoint-tuning`, '--clear', '--json']);
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.deepEqual(JSON.parse(cleared.stdout), { url: `${site.origin}/checkpoint-tuning`, label: null, hot: true });
    assert.equal(await hotCount(), before);
    const why = JSON.parse((await runCli(['explain', '--db', db, '--json', `${site.origin}/checkpoint-tuning`])).stdout) as { fetched: { label: string | null; hot: boolean } };
    assert.deepEqual(why.fetched.label, null);
    const plain = await runCli(['label', '--db', db, '--url', `${site.origin}/checkpoint-tuning`, '--clear']);
    assert.match(plain.stdout, /label cleared; the judge's verdict stands: hot/);
  });
});

describe('forager lab', () => {
  let site: TestSite;
  const tmp = tempDir('forager-lab-');
  const db = join(tmp.dir, 'lab.db');
  before(async () => {
    site = await startTestSite(checkpointSite());
    const crawl = await runCli(['crawl', '--db', db, '--query', 'checkpoints', '--seed', `${site.origin}/`, '--hot', 'title:checkpoint', '--delay-ms', '0', '--json']);
    assert.equal(crawl.code, 0, crawl.stderr);
  });
  after(async () => {
    await site.close();
    tmp.cleanup();
  });

  it('replays the stored crawl under each strategy and reports PST at each budget', async () => {
    const result = await runCli(['lab', '--db', db, '--strategies', 'bfs,focused', '--budgets', '0.5,1', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { collection: { pages: number; hotPages: number }; results: { strategy: string; budgets: { pst: number }[] }[] };
    assert.equal(report.collection.pages, 6);
    assert.equal(report.collection.hotPages, 2);
    assert.deepEqual(report.results.map((r) => r.strategy), ['bfs', 'focused']);
    for (const r of report.results) assert.equal(r.budgets.at(-1)?.pst, 1, `${r.strategy} finds every hot page with the whole budget`);
  });

  it('replays with the collection\'s own judge when asked, scored against the hot pages', async () => {
    const result = await runCli(['lab', '--db', db, '--strategies', 'naive,focused', '--budgets', '1', '--hot', 'title:checkpoint', '--judge', 'live', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { judge: string; hotRule: string; results: { strategy: string; budgets: { pst: number }[] }[] };
    assert.equal(report.judge, 'live');
    assert.match(report.hotRule, /title:checkpoint/);
    for (const r of report.results) assert.equal(r.budgets.at(-1)?.pst, 1);
    const wrong = await runCli(['lab', '--db', db, '--judge', 'oracle']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--judge is truth .* or live/);
  });

  it('accepts a hot predicate of its own, and refuses a bad one', async () => {
    const result = await runCli(['lab', '--db', db, '--strategies', 'bfs', '--hot', 'body>=1:recipes', '--budgets', '1', '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as { collection: { hotPages: number } }).collection.hotPages, 2, '/misc mentions recipes once, /recipes itself once');
    const bad = await runCli(['lab', '--db', db, '--hot', 'title>=:x']);
    assert.equal(bad.code, 2);
  });
});
