import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { UrlState } from '../../crawler/store/url-state.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type Handler } from '../support/test-site.ts';

const PAGES = 80;

interface Revisit {
  url: string;
  outcome: string;
}

function revisitsOf(path: string): { revisits: Revisit[]; queuedRevisits: number; versions: number; pages: number } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      revisits: db.prepare('SELECT u.url, r.outcome FROM revisits r JOIN pages p ON p.seq = r.page_seq JOIN urls u ON u.id = p.url_id ORDER BY r.id').all() as Revisit[],
      queuedRevisits: db.prepare(`SELECT count(*) FROM urls WHERE state IN (${UrlState.queued}, ${UrlState.inflight}) AND id IN (SELECT url_id FROM pages)`).pluck().get() as number,
      versions: db.prepare('SELECT count(*) FROM page_versions').pluck().get() as number,
      pages: db.prepare('SELECT count(*) FROM pages').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

describe('a refresh killed with kill -9', () => {
  it('loses nothing committed, and the next refresh goes on without revisiting a page twice', async () => {
    const generation = { now: 1 };
    let served = 0;
    let onServed: (() => void) | undefined;
    // The first page links to every other; every third one changes between the crawl and the refresh. Each answer takes 15 ms.
    const page: Handler = (req, res) => {
      const n = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
      if (n < 0 || n >= PAGES) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      const version = n % 3 === 0 ? generation.now : 1;
      const etag = `"p${n}-v${version}"`;
      setTimeout(() => {
        res.once('finish', () => {
          served++;
          if (served === 30) onServed?.();
        });
        if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
        const next = n === 0 ? Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/p/${i + 1}">page ${i + 1}</a>`).join(' ') : '<a href="/p/0">index</a>';
        res.writeHead(200, { 'content-type': 'text/html', etag }).end(`<html><head><title>Page ${n}</title></head><body><p>Page ${n}, version ${version}, about checkpoints.</p>${next}</body></html>`);
      }, 15);
    };
    const site = await startTestSite({}, page);
    const tmp = tempDir('forager-refresh-crash-');
    try {
      const crawl = await crawlOnce(tmp.dir, testSettings([`${site.origin}/p/0`], { query: 'checkpoints' }));
      assert.equal(crawl.outcome, 'exhausted');
      crawl.db.close();
      const db = crawl.dbPath;
      generation.now = 2;
      served = 0;

      const killedRun = spawnCli(['refresh', '--db', db, '--json']);
      onServed = () => killedRun.child.kill('SIGKILL');
      const killed = await killedRun.done;
      assert.equal(killed.signal, 'SIGKILL', `the refresh ended before the kill: ${killed.stdout} ${killed.stderr}`);
      const atKill = revisitsOf(db);
      assert.ok(atKill.revisits.length >= 20 && atKill.revisits.length < PAGES, `revisits committed before the kill: ${atKill.revisits.length}`);
      assert.equal(atKill.versions, atKill.revisits.filter((r) => r.outcome === 'changed').length, 'each committed change kept its old version');
      assert.ok(atKill.queuedRevisits > 0, 'revisits still waiting');

      const resumed = await runCli(['refresh', '--db', db, '--json'], { timeoutMs: 30_000 });
      assert.equal(resumed.code, 0, resumed.stderr);
      const stats = JSON.parse(resumed.stdout.trim()) as { outcome: string };
      assert.equal(stats.outcome, 'exhausted');

      const end = revisitsOf(db);
      assert.equal(end.pages, PAGES + 1, 'every page kept (the pages and the seed host\'s /sitemap.xml)');
      assert.equal(end.queuedRevisits, 0, 'no revisit left waiting');
      const perUrl = new Map<string, number>();
      for (const r of end.revisits) perUrl.set(r.url, (perUrl.get(r.url) ?? 0) + 1);
      assert.equal(perUrl.size, PAGES + 1, 'every stored page revisited');
      // The one in flight at the kill may be asked again; its revisit was not committed, so it is stored once.
      for (const [url, times] of perUrl) assert.equal(times, 1, `${url} revisited ${times} times`);
      assert.deepEqual(end.revisits.slice(0, atKill.revisits.length), atKill.revisits, 'revisits committed before the kill are unchanged');
      const changed = end.revisits.filter((r) => r.outcome === 'changed').map((r) => Number(/\/p\/(\d+)$/.exec(r.url)?.[1]));
      assert.deepEqual(changed.sort((a, b) => a - b), Array.from({ length: PAGES }, (_, n) => n).filter((n) => n % 3 === 0), 'every changed page found');
      assert.equal(end.versions, changed.length);
    } finally {
      await site.close();
      tmp.cleanup();
    }
  });
});
