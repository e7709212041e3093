import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { CollectionLockedError } from '../../crawler/errors.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import { lockPathOf, WriterLock } from '../../crawler/store/writer-lock.ts';
import { runCli, spawnCli } from '../support/cli.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type Handler, type TestSite } from '../support/test-site.ts';

/*
 * Every command that writes or replaces a collection takes its writer lock before it writes
 * anything, and refuses, naming the writer, while another process holds it.
 */

const PAGES = 40;
const CLI_CRAWL_FLAGS = ['--delay-ms', '0', '--delay-factor', '0', '--allow-private', '--json'];

/** A site of PAGES pages under /p/N, all linked from /p/0, each answered after `delayMs`. */
function slowPages(delayMs: number): Handler {
  return (req, res) => {
    const n = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
    if (n < 0 || n >= PAGES) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const links = n === 0 ? Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/p/${i + 1}">checkpoint ${i + 1}</a>`).join(' ') : '<a href="/p/0">index</a>';
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Page ${n}</title></head><body><p>Checkpoints, page ${n}.</p>${links}</body></html>`), delayMs);
  };
}

function storedPaths(path: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const urls = db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[];
    return urls.map((url) => new URL(url).pathname).filter((p) => p.startsWith('/p/')).sort();
  } finally {
    db.close();
  }
}

function settingsValue(path: string, key: string): string | undefined {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(key) as string | undefined;
  } finally {
    db.close();
  }
}

/** The collection's bytes and its WAL's: unchanged means nothing was written. */
function fingerprint(path: string): string {
  const hash = createHash('sha256');
  for (const file of [path, `${path}-wal`]) if (existsSync(file)) hash.update(readFileSync(file));
  return hash.digest('hex');
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const allPaths = Array.from({ length: PAGES }, (_, i) => `/p/${i}`).sort();

describe('the writer lock comes before any write', () => {
  let site: TestSite;
  let other: TestSite;
  const tmp = tempDir('forager-lock-commands-');

  before(async () => {
    site = await startTestSite({}, slowPages(25));
    other = await startTestSite({}, slowPages(0));
  });

  after(async () => {
    await site.close();
    await other.close();
    tmp.cleanup();
  });

  it('merge --force onto a collection that a crawl is writing is refused, and the crawl keeps every page', async () => {
    // A real shard to merge, of another site: had the merge gone through, its pages would replace the crawl's.
    const data = join(tmp.dir, 'data');
    mkdirSync(data);
    const shardRun = await crawlOnce(tmp.dir, testSettings([`${other.origin}/p/0`], { query: 'checkpoints', maxPages: 5 }));
    shardRun.db.close();
    const shard = join(data, 'shard-000.forager');
    renameSync(shardRun.dbPath, shard);

    const collection = join(tmp.dir, 'live.forager');
    const crawl = spawnCli(['crawl', '--db', collection, '--query', 'checkpoints', '--seed', `${site.origin}/p/0`, '--concurrency', '1', ...CLI_CRAWL_FLAGS], { timeoutMs: 30_000 });
    // The file exists a moment before its tables do.
    const pagesStored = (): number => {
      try {
        return storedPaths(collection).length;
      } catch {
        return 0;
      }
    };
    await until(() => existsSync(lockPathOf(collection)) && existsSync(collection) && pagesStored() >= 3, 'the crawl to store pages');

    const merge = await runCli(['merge', '--dir', data, '--db', collection, '--force']);
    assert.equal(merge.code, 1, `the merge must be refused: ${merge.stdout} ${merge.stderr}`);
    assert.match(merge.stderr, /^forager: .*live\.forager is being written by forager crawl \(command line\) \(process \d+/);
    assert.doesNotMatch(merge.stderr, /\n\s+at /, 'one line, no stack trace');

    const ended = await crawl.done;
    assert.equal(ended.code, 0, ended.stderr);
    assert.equal(JSON.parse(ended.stdout.trim()).outcome, 'exhausted');
    assert.deepEqual(storedPaths(collection), allPaths, 'every page the crawl stored is in its collection');

    // Once the crawl has ended the same merge goes through: the refusal was the lock, not the arguments.
    const later = await runCli(['merge', '--dir', data, '--db', collection, '--force']);
    assert.equal(later.code, 0, later.stderr);
    assert.deepEqual(storedPaths(collection), storedPaths(shard), 'now the shard\'s pages');
  });

  it('a refused refresh writes nothing, so the next refresh revisits every page fetched meanwhile', async () => {
    const dir = join(tmp.dir, 'refresh');
    mkdirSync(dir);
    const first = await crawlOnce(dir, testSettings([`${other.origin}/p/0`], { query: 'checkpoints', maxPages: 10 }));
    first.db.close();
    const collection = first.dbPath;
    const before = fingerprint(collection);

    // Another process's crawl holds the collection (this test process is alive, as such a crawl would be).
    const held = WriterLock.acquire(collection, 'forager crawl (command line)');
    try {
      const refused = await runCli(['refresh', '--db', collection]);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /is being written by forager crawl \(command line\)/);
      const crawlAgain = await runCli(['crawl', '--db', collection, '--seed', `${other.origin}/p/0`, '--max-pages', '99', ...CLI_CRAWL_FLAGS]);
      assert.equal(crawlAgain.code, 1, crawlAgain.stderr);
      const label = await runCli(['label', '--db', collection, '--url', `${other.origin}/p/0`, '--relevant']);
      assert.equal(label.code, 1, label.stderr);
      assert.equal(fingerprint(collection), before, 'nothing was written: no refresh start, no settings, no label');
      assert.equal(settingsValue(collection, 'refresh_since'), undefined);
    } finally {
      held.release();
    }

    // The crawl that held it goes on and fetches more pages after the refused refresh.
    const more = await runCli(['resume', '--db', collection, '--max-pages', String(PAGES + 5), '--json'], { timeoutMs: 30_000 });
    assert.equal(more.code, 0, more.stderr);
    assert.equal(storedPaths(collection).length, PAGES);

    const refresh = await runCli(['refresh', '--db', collection, '--json'], { timeoutMs: 30_000 });
    assert.equal(refresh.code, 0, refresh.stderr);
    assert.doesNotMatch(refresh.stderr, /continuing the refresh/, 'no refresh was in progress');
    const revisits = JSON.parse(refresh.stdout.trim()).revisits as { notModified: number; identical: number; changed: number; gone: number };
    const revisited = revisits.notModified + revisits.identical + revisits.changed + revisits.gone;
    assert.ok(revisited >= PAGES, `every stored page revisited, not only those fetched before the refused refresh: ${revisited}`);
  });

  it("the app's Refresh, Start, label and delete are refused while another process writes, and change nothing", async () => {
    const dir = join(tmp.dir, 'app');
    mkdirSync(dir);
    const run = await crawlOnce(dir, testSettings([`${other.origin}/p/0`], { query: 'checkpoints', maxPages: 10 }));
    run.db.close();
    const collection = join(dir, 'shelf.forager');
    renameSync(run.dbPath, collection);
    const service = new ForagerService({ dir });
    const held = WriterLock.acquire(collection, 'forager crawl (command line)');
    try {
      const locked = (err: unknown): boolean => err instanceof CollectionLockedError && /being written by forager crawl \(command line\)/.test(err.message);
      await assert.rejects(service.refreshCollection({ collection: 'shelf' }), locked);
      await assert.rejects(service.startCrawl({ collection: 'shelf', maxPages: 99 }), locked);
      await assert.rejects(service.labelPage({ collection: 'shelf', seq: 1, label: 'relevant' }), locked);
      await assert.rejects(service.deleteCollection({ collection: 'shelf' }), locked);
      const status = await service.crawlStatus({ collection: 'shelf' });
      assert.equal(status.state, 'idle');
      assert.equal(status.refresh, null, 'no refresh shown that never ran');
      assert.ok(existsSync(collection), 'the collection is still there');
    } finally {
      held.release();
      await service.close();
    }
    assert.equal(settingsValue(collection, 'refresh_since'), undefined, 'no refresh start left behind');
    const settings = JSON.parse(settingsValue(collection, 'crawl') ?? '{}') as { maxPages?: number };
    assert.equal(settings.maxPages, 10, 'the budget was not changed');
  });
});
