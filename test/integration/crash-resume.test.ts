import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { UrlState } from '../../crawler/store/url-state.ts';
import { runCli, spawnCli, type CliResult, type RunningCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { isSoft404Probe, startTestSite, treeSite, type Handler, type TestSite } from '../support/test-site.ts';

const ROBOTS = 'User-agent: *\nDisallow: /never-linked\n';

interface CountingSite extends TestSite {
  /** Page responses completed so far. */
  served(): number;
  /** Calls fn once, when the server has completed `pages` page responses. */
  onServed(pages: number, fn: () => void): void;
}

/** A treeSite whose pages answer after `delayMs`, counting completed page responses. */
async function startTree(pages: number, fanout: number, delayMs: number): Promise<CountingSite> {
  const tree = treeSite(pages, fanout);
  let served = 0;
  const waiters: { pages: number; fn: () => void }[] = [];
  const page: Handler = (req, res) => {
    res.once('finish', () => {
      served++;
      for (const w of waiters.filter((x) => x.pages === served)) w.fn();
    });
    setTimeout(() => tree(req, res), delayMs);
  };
  const site = await startTestSite({ '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS) }, page);
  return Object.assign(site, {
    served: () => served,
    onServed: (n: number, fn: () => void) => void waiters.push({ pages: n, fn }),
  });
}

interface PageRow {
  seq: number;
  url: string;
  status: number;
}

interface Snapshot {
  pages: PageRow[];
  inflight: string[];
  states: Map<number, number>;
}

/** What the collection holds, read as another process would see it after a crash. */
function readCollection(path: string): Snapshot {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const pages = db.prepare('SELECT p.seq, u.url, p.status FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.seq').all() as PageRow[];
    const inflight = db.prepare('SELECT url FROM urls WHERE state = ?').pluck().all(UrlState.inflight) as string[];
    const rows = db.prepare('SELECT state, count(*) AS n FROM urls GROUP BY state').all() as { state: number; n: number }[];
    return { pages, inflight, states: new Map(rows.map((r) => [r.state, r.n])) };
  } finally {
    db.close();
  }
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

function finalStats(result: CliResult): Record<string, unknown> {
  assert.equal(result.code, 0, `exit 0 expected; stderr: ${result.stderr}`);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `one JSON line expected: ${result.stdout}`);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

/** The child's result, or a failure if it has not exited by itself within `ms`. */
async function exitWithin(run: RunningCli, ms: number): Promise<CliResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const outcome = await Promise.race([run.done, late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    run.child.kill('SIGKILL');
    await run.done;
    assert.fail(`the crawler did not exit within ${ms} ms of the signal; stdout: ${run.stdout()} stderr: ${run.stderr()}`);
  }
  return outcome;
}

describe('crash and resume', () => {
  it('after kill -9, resume keeps every committed page and finishes without refetching', async (t) => {
    const PAGES = 150;
    // The tree's pages, and the seed host's /sitemap.xml (robots.txt names none; a 404 here).
    const FETCHES = PAGES + 1;
    const site = await startTree(PAGES, 3, 15);
    const tmp = tempDir('forager-crash-');
    try {
      const db = join(tmp.dir, 'crash.db');
      const run = spawnCli([
        'crawl', '--db', db, '--query', 'alpha beta', '--seed', `${site.origin}/p/0`,
        '--delay-ms', '0', '--delay-factor', '0', '--concurrency', '4', '--allow-private', '--json',
      ]);
      site.onServed(40, () => run.child.kill('SIGKILL'));
      const killed = await run.done;
      assert.equal(killed.signal, 'SIGKILL', `the crawl ended before the kill: ${killed.stdout} ${killed.stderr}`);
      const requestedBeforeKill = site.requests.filter((p) => p !== '/robots.txt' && !isSoft404Probe(p));

      const atKill = readCollection(db);
      assert.ok(atKill.pages.length >= 20, `enough pages committed before the kill to mean something (${atKill.pages.length})`);
      assert.ok(atKill.pages.length < FETCHES, 'killed before the end');
      assert.ok(atKill.inflight.length <= 4, `at most concurrency URLs in flight at the kill: ${atKill.inflight.join(', ')}`);
      t.diagnostic(`at the kill: ${atKill.pages.length} pages committed, ${atKill.inflight.length} URLs in flight`);
      const committed = new Set(atKill.pages.map((p) => p.url));
      const inflight = new Set(atKill.inflight);
      for (const path of requestedBeforeKill) {
        const url = `${site.origin}${path}`;
        assert.ok(committed.has(url) || inflight.has(url), `${path} was requested but is neither committed nor marked in flight`);
      }

      const crashedStats = finalStats(await runCli(['stats', '--db', db, '--json']));
      assert.equal(crashedStats.fetched, atKill.pages.length, 'stats reads a crashed collection');
      const listed = await runCli(['pages', '--db', db, '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout.trim().split('\n').length, atKill.pages.length, 'pages lists a crashed collection');

      const resumed = finalStats(await runCli(['resume', '--db', db, '--json'], { timeoutMs: 20_000 }));
      assert.equal(resumed.outcome, 'exhausted');
      assert.equal(resumed.fetched, FETCHES);

      const end = readCollection(db);
      assert.equal(end.pages.length, FETCHES, 'every page fetched');
      assert.equal(end.states.get(UrlState.inflight) ?? 0, 0, 'nothing left in flight');
      assert.equal(end.states.get(UrlState.queued) ?? 0, 0, 'nothing left queued');
      assert.deepEqual(end.pages.slice(0, atKill.pages.length), atKill.pages, 'pages committed before the kill are unchanged');
      assert.equal(new Set(end.pages.map((p) => p.url)).size, FETCHES, 'one page row per URL');
      for (const url of inflight) assert.ok(end.pages.some((p) => p.url === url), `${url}, in flight at the kill, was fetched on resume`);
      // Text still waiting for the full-text index at the kill is indexed by the resumed run, once.
      const search = new Database(db);
      try {
        search.prepare("INSERT INTO pages_fts (pages_fts) VALUES ('integrity-check')").run();
        const indexable = search.prepare("SELECT count(*) FROM pages WHERE noindex = 0 AND (coalesce(title, '') <> '' OR coalesce(text, '') <> '')").pluck().get() as number;
        assert.ok(indexable > atKill.pages.length, `the pages have text to index (${indexable})`);
        assert.equal(search.prepare('SELECT count(*) FROM pages_fts_docsize').pluck().get(), indexable, 'every page with text is in the full-text index');
        assert.equal(search.prepare("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH 'page'").pluck().get(), indexable);
      } finally {
        search.close();
      }

      assert.equal(site.count('/robots.txt'), 1, 'robots.txt is cached in the collection, not fetched again');
      for (const path of [...Array.from({ length: PAGES }, (_, n) => `/p/${n}`), '/sitemap.xml']) {
        const times = site.count(path);
        const allowed = inflight.has(`${site.origin}${path}`) ? 2 : 1;
        assert.ok(times >= 1 && times <= allowed, `${path} requested ${times} times (in flight at the kill: ${allowed === 2})`);
      }
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} pauses cleanly and resume finishes the crawl`, async () => {
      const PAGES = 24;
      const site = await startTree(PAGES, 3, 0);
      const tmp = tempDir('forager-signal-');
      try {
        const db = join(tmp.dir, 'paused.db');
        const run = spawnCli([
          'crawl', '--db', db, '--query', 'alpha beta', '--seed', `${site.origin}/p/0`,
          '--delay-ms', '150', '--delay-factor', '0', '--concurrency', '4', '--allow-private',
        ]);
        const signalled = new Promise<'signalled'>((resolve) =>
          site.onServed(3, () => {
            run.child.kill(signal);
            resolve('signalled');
          }),
        );
        const first = await Promise.race([signalled, run.done]);
        assert.equal(first, 'signalled', `the crawl ended before the signal: ${run.stdout()} ${run.stderr()}`);
        const paused = await exitWithin(run, 5_000);
        assert.equal(paused.signal, null, `killed by ${paused.signal} instead of pausing`);
        assert.equal(paused.code, 0, `stderr: ${paused.stderr}`);
        assert.match(paused.stdout, /paused/i);
        assert.match(paused.stdout, /forager resume --db/);

        const atPause = readCollection(db);
        assert.equal(atPause.inflight.length, 0, `no URL left in flight: ${atPause.inflight.join(', ')}`);
        assert.ok(atPause.pages.length < PAGES, 'paused before the end');
        const requested = site.requests.filter((p) => p !== '/robots.txt' && !isSoft404Probe(p)).sort();
        assert.deepEqual(atPause.pages.map((p) => pathOf(p.url)).sort(), requested, 'every request sent before the pause was stored');

        const stats = finalStats(await runCli(['stats', '--db', db, '--json']));
        assert.equal(stats.fetched, atPause.pages.length);
        assert.ok((stats.queued as number) > 0, 'the rest of the frontier is still queued');

        const resumed = finalStats(await runCli(['resume', '--db', db, '--json'], { timeoutMs: 20_000 }));
        assert.equal(resumed.outcome, 'exhausted');
        assert.equal(resumed.fetched, PAGES + 1, "the tree's pages and the seed host's /sitemap.xml");
        const end = readCollection(db);
        assert.deepEqual(end.pages.slice(0, atPause.pages.length), atPause.pages, 'pages stored before the pause are unchanged');
        assert.equal(site.count('/robots.txt'), 1);
        for (let n = 0; n < PAGES; n++) assert.equal(site.count(`/p/${n}`), 1, `/p/${n} fetched once`);
        assert.equal(site.count('/sitemap.xml'), 1, 'the sitemap is asked for once, across the pause');
      } finally {
        await site.close();
        tmp.cleanup();
      }
    });
  }
});
