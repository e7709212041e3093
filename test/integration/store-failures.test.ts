/*
 * A store that cannot be written (a full disk, a read-only file, a lock held past the busy
 * time-out) pauses the crawl: no URL is failed for it, nothing rejects unhandled, every page
 * committed before it stays, and a resume fetches the rest once the store can be written.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { CollectionLockedError } from '../../crawler/errors.ts';
import { lockPathOf } from '../../crawler/store/writer-lock.ts';
import { openCollection, type Db } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';

const PAGES = 30;

/** A chain of pages, each with a few KB of distinct text so that storing one needs new database pages. */
function chainSite(): Parameters<typeof startTestSite>[1] {
  return (req, res) => {
    const n = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
    if (n < 0 || n >= PAGES) {
      res.writeHead(404).end();
      return;
    }
    const words = Array.from({ length: 600 }, (_, i) => `word${(n * 7919 + i * 104729) % 100_003}`).join(' ');
    const next = n + 1 < PAGES ? `<a href="/p/${n + 1}">next</a>` : '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>Page ${n}</title><p>${words}</p>${next}`);
  };
}

function count(db: Db, sql: string): number {
  return db.prepare(sql).pluck().get() as number;
}

describe('store failures pause the crawl and lose nothing', () => {
  let site: TestSite;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };

  before(async () => {
    site = await startTestSite({}, chainSite());
    process.on('unhandledRejection', onUnhandled);
  });

  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    await site.close();
  });

  /** Crawls until `pagesBefore` pages are stored, then breaks the store with `breakStore`. */
  async function crawlIntoFailure(breakStore: (db: Db, path: string) => () => void, pagesBefore: number) {
    const dir = tempDir('forager-store-');
    const path = join(dir.dir, 'crawl.db');
    const db = openCollection(path, { create: true });
    const settings = testSettings([`${site.origin}/p/0`], { allowPrivate: true, maxPages: 100, concurrency: 1 });
    saveSettings(db, settings);
    const engine = new CrawlEngine(db, settings);
    let repair: (() => void) | undefined;
    let seen = 0;
    engine.on('page', () => {
      seen++;
      if (seen === pagesBefore) repair = breakStore(db, path);
    });
    const outcome = await engine.run();
    return { dir, db, path, settings, engine, outcome, repair: () => repair?.() };
  }

  async function expectPausedThenResumed(breakStore: (db: Db, path: string) => () => void, code: RegExp): Promise<void> {
    const run = await crawlIntoFailure(breakStore, 3);
    try {
      assert.equal(run.outcome, 'store-error');
      assert.match(run.engine.storeError?.sqliteCode ?? '', code);
      run.repair();
      assert.equal(count(run.db, `SELECT count(*) FROM urls WHERE state = ${UrlState.failed}`), 0, 'no URL was failed because of the store');
      const committed = count(run.db, 'SELECT count(*) FROM pages');
      assert.ok(committed >= 3, `the pages stored before the failure stay (${committed})`);
      const resumed = await new CrawlEngine(run.db, run.settings).run();
      assert.equal(resumed, 'exhausted');
      assert.equal(count(run.db, 'SELECT count(*) FROM pages WHERE status = 200'), PAGES, 'the resume fetched every page');
      assert.equal(count(run.db, `SELECT count(*) FROM urls WHERE state = ${UrlState.failed}`), 0);
      assert.equal(run.db.pragma('integrity_check', { simple: true }), 'ok');
      assert.deepEqual(unhandled, []);
      assert.equal(existsSync(lockPathOf(run.path)), false, 'the writer lock is released');
    } finally {
      run.db.close();
      run.dir.cleanup();
    }
  }

  test('a full disk', async () => {
    await expectPausedThenResumed((db) => {
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
      return () => db.pragma('max_page_count = 1073741823');
    }, /^SQLITE_FULL/);
  });

  test('a store that turned read-only', async () => {
    await expectPausedThenResumed((db) => {
      db.pragma('query_only = 1');
      return () => db.pragma('query_only = 0');
    }, /^SQLITE_READONLY/);
  });

  test('a lock held by another connection past the busy time-out', async () => {
    await expectPausedThenResumed((db, path) => {
      db.pragma('busy_timeout = 50');
      const other = new Database(path);
      other.exec('BEGIN EXCLUSIVE');
      return () => {
        other.exec('ROLLBACK');
        other.close();
        db.pragma('busy_timeout = 5000');
      };
    }, /^SQLITE_BUSY/);
  });

  test('a second crawl on the same collection is refused while the first runs, naming it', async () => {
    const dir = tempDir('forager-store-');
    const path = join(dir.dir, 'crawl.db');
    const db = openCollection(path, { create: true });
    const other = openCollection(path, { create: false });
    try {
      const settings = testSettings([`${site.origin}/p/0`], { allowPrivate: true, maxPages: 100, concurrency: 1 });
      saveSettings(db, settings);
      const first = new CrawlEngine(db, settings, { writer: 'the first crawl' });
      let second: Promise<unknown> | undefined;
      first.once('page', () => {
        second = new CrawlEngine(other, settings, { writer: 'the second crawl' }).run().then(
          () => undefined,
          (err: unknown) => err,
        );
      });
      assert.equal(await first.run(), 'exhausted');
      const refusal = await second;
      assert.ok(refusal instanceof CollectionLockedError && /being written by the first crawl/.test(refusal.message), String(refusal));
      assert.equal(count(db, `SELECT count(*) FROM urls WHERE state = ${UrlState.failed}`), 0, 'the refused crawl disturbed nothing');
      assert.equal(count(db, 'SELECT count(*) FROM pages WHERE status = 200'), PAGES);
    } finally {
      other.close();
      db.close();
      dir.cleanup();
    }
  });
});
