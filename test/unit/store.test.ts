import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CollectionError } from '../../crawler/errors.ts';
import { DEFAULT_SETTINGS } from '../../crawler/settings.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { APPLICATION_ID, SCHEMA_VERSION } from '../../crawler/store/migrations.ts';
import { loadSettings, saveSettings } from '../../crawler/store/settings-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { UrlStore } from '../../crawler/store/url-store.ts';
import { tempDir } from '../support/crawl-harness.ts';

const tmp = tempDir('forager-store-');
after(() => tmp.cleanup());

describe('openCollection', () => {
  it('creates a WAL-mode file marked as Forager at the current schema version', () => {
    const db = openCollection(join(tmp.dir, 'new.db'), { create: true });
    assert.equal(db.pragma('application_id', { simple: true }), APPLICATION_ID);
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    db.close();
  });

  it('refuses a collection written by a newer Forager, and leaves it alone', () => {
    const path = join(tmp.dir, 'newer.db');
    const db = openCollection(path, { create: true });
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    assert.throws(() => openCollection(path, { create: false }), (err: unknown) => err instanceof CollectionError && /newer Forager/.test(err.message));
    const raw = new Database(path, { readonly: true });
    assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION + 1);
    raw.close();
  });

  it('refuses a missing file unless asked to create it', () => {
    assert.throws(() => openCollection(join(tmp.dir, 'absent.db'), { create: false }), /no collection at/);
  });
});

describe('settings store', () => {
  it('round-trips the crawl settings and fills in defaults for keys it lacks', () => {
    const db = openCollection(join(tmp.dir, 'settings.db'), { create: true });
    const settings = { ...DEFAULT_SETTINGS, query: 'wal', seeds: ['http://127.0.0.1/'] };
    saveSettings(db, settings);
    assert.deepEqual(loadSettings(db), settings);
    db.prepare("UPDATE settings SET value = ? WHERE key = 'crawl'").run(JSON.stringify({ query: 'wal', seeds: ['http://127.0.0.1/'] }));
    assert.equal(loadSettings(db)?.delayMs, DEFAULT_SETTINGS.delayMs);
    db.close();
  });

  it('reports corrupt stored settings as a CollectionError', () => {
    const db = openCollection(join(tmp.dir, 'corrupt.db'), { create: true });
    db.prepare("INSERT INTO settings (key, value) VALUES ('crawl', '{not json')").run();
    assert.throws(() => loadSettings(db), CollectionError);
    db.close();
  });
});

describe('UrlStore', () => {
  it('keeps its state tally equal to a fresh count through every transition', () => {
    const db = openCollection(join(tmp.dir, 'tally.db'), { create: true });
    db.prepare("INSERT INTO hosts (origin) VALUES ('http://a')").run();
    const urls = new UrlStore(db);
    urls.tally();
    const ids = [1, 2, 3, 4].map((n) =>
      urls.insert({ fp: BigInt(n), url: `http://a/${n}`, hostId: 1, depth: 0, state: UrlState.queued, parentId: null, redirects: 0, reason: null }),
    );
    urls.insert({ fp: 99n, url: 'http://b/', hostId: 1, depth: 0, state: UrlState.skipped, parentId: null, redirects: 0, reason: 'scope' });
    urls.markInflight(ids[0] as number);
    urls.finish(ids[0] as number, UrlState.fetched, null);
    urls.markInflight(ids[1] as number);
    urls.requeueAfterFailure(ids[1] as number, 'timeout:total');
    urls.markInflight(ids[2] as number);
    urls.returnToQueue(ids[2] as number);
    urls.passOver(ids[3] as number, UrlState.robotsBlocked, 'robots:disallowed');
    urls.markInflight(ids[1] as number);
    assert.equal(urls.resetInflight(), 1);
    assert.deepEqual(new Map([...urls.tally()].filter(([, n]) => n !== 0)), urls.countsByState());
    assert.equal(urls.get(ids[1] as number)?.attempts, 1);
    assert.equal(urls.queued(ids[0] as number), undefined, 'a fetched URL is not handed out as queued');
    db.close();
  });
});
