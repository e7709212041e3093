import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CollectionError } from '../../../../crawler/errors.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { openCollection, readSnapshot, type Db, type ReadonlyDb } from '../../../../crawler/store/database.ts';
import { storedLabels, writeLabel } from '../../../../crawler/store/label-store.ts';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from '../../../../crawler/store/migrations.ts';
import { loadSettings, saveSettings } from '../../../../crawler/store/settings-store.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';
import { storedSeedIds, UrlStore } from '../../../../crawler/store/url-store.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

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

  it('migrates a schema 2 collection in place: its URLs become pages, and resources can be stored', () => {
    const path = join(tmp.dir, 'schema2.db');
    const old = new Database(path);
    old.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of MIGRATIONS.slice(0, 2)) old.exec(migration);
    old.pragma('user_version = 2');
    old.prepare("INSERT INTO hosts (origin) VALUES ('http://a')").run();
    old.prepare(`INSERT INTO urls (fp, url, host_id, depth, state, parent_id) VALUES (1, 'http://a/', 1, 0, ${UrlState.queued}, NULL)`).run();
    old.close();

    const db = openCollection(path, { create: false });
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    const urls = new UrlStore(db);
    assert.equal(urls.queued(1)?.kind, 'page');
    const id = urls.insert({ fp: 2n, url: 'http://a/sitemap.xml', hostId: 1, depth: 1, state: UrlState.queued, parentId: null, redirects: 0, reason: null, kind: 'sitemap' });
    assert.equal(urls.queued(id)?.kind, 'sitemap');
    assert.deepEqual(urls.rootResources(), [{ id, url: 'http://a/sitemap.xml', depth: 1, kind: 'sitemap' }]);
    assert.deepEqual(urls.resourceKinds(), new Map([[id, 'sitemap']]));
    db.close();
  });

  it('migrates a schema 3 collection: the judge\'s verdicts are kept beside the labels, pages indexed by relevance', () => {
    const path = join(tmp.dir, 'schema3.db');
    const old = new Database(path);
    old.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of MIGRATIONS.slice(0, 3)) old.exec(migration);
    old.pragma('user_version = 3');
    old.prepare("INSERT INTO hosts (origin) VALUES ('http://a')").run();
    const page = old.prepare(`INSERT INTO pages (url_id, status, headers, relevance, hot, started_at, fetched_at, response_ms) VALUES (?, 200, '[]', ?, ?, 0, 0, 1)`);
    page.run(1, 0.7, 1);
    page.run(2, 0.1, 0);
    page.run(3, null, 0);
    old.close();

    const db = openCollection(path, { create: false });
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    const judged = db.prepare('SELECT url_id AS id, judged_hot AS judged FROM pages ORDER BY url_id').all();
    assert.deepEqual(judged, [{ id: 1, judged: 1 }, { id: 2, judged: 0 }, { id: 3, judged: null }], 'pages without a relevance were not judged');
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT count(*) FROM pages WHERE relevance >= 0.2 AND relevance < 0.5').all() as { detail: string }[];
    assert.ok(plan.some((step) => /pages_by_relevance/.test(step.detail)), JSON.stringify(plan));
    db.close();
  });

  it('migrates a schema 4 collection: its pages are originals, none a soft 404, and bodies read as before', () => {
    const path = join(tmp.dir, 'schema4.db');
    const old = new Database(path);
    old.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of MIGRATIONS.slice(0, 4)) old.exec(migration);
    old.pragma('user_version = 4');
    old.prepare("INSERT INTO hosts (origin) VALUES ('http://a')").run();
    old.prepare(`INSERT INTO pages (url_id, status, headers, body, relevance, hot, started_at, fetched_at, response_ms) VALUES (1, 200, '[]', x'1f8b', 0.5, 1, 0, 0, 1)`).run();
    old.close();

    const db = openCollection(path, { create: false });
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.deepEqual(db.prepare('SELECT duplicate_of AS duplicateOf, soft404, hot, hex(body) AS body FROM pages').get(), { duplicateOf: null, soft404: 0, hot: 1, body: '1F8B' });
    assert.deepEqual(db.prepare('SELECT soft404_probed AS probed, soft404_simhash AS simhash FROM hosts').get(), { probed: 0, simhash: null }, 'hosts are probed again on the next run');
    db.close();
  });

  it('migrates a schema 10 shard whose workers made the cluster tables themselves, keeping their rows', () => {
    const path = join(tmp.dir, 'schema10-shard.db');
    const old = new Database(path);
    old.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of MIGRATIONS.slice(0, 10)) old.exec(migration);
    old.pragma('user_version = 10');
    old.exec('CREATE TABLE cluster_fence (id INTEGER PRIMARY KEY CHECK (id = 1), epoch INTEGER NOT NULL)');
    old.exec("CREATE TABLE cluster_outbox (id INTEGER PRIMARY KEY, url TEXT NOT NULL, parent_id INTEGER NOT NULL, depth INTEGER NOT NULL, anchor TEXT NOT NULL, context TEXT NOT NULL)");
    old.prepare('INSERT INTO cluster_fence (id, epoch) VALUES (1, 4)').run();
    old.prepare("INSERT INTO cluster_outbox (url, parent_id, depth, anchor, context) VALUES ('http://b/', 1, 1, 'b', '')").run();
    old.close();

    const db = openCollection(path, { create: false });
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal(db.prepare('SELECT epoch FROM cluster_fence').pluck().get(), 4);
    assert.equal(db.prepare('SELECT url FROM cluster_outbox').pluck().get(), 'http://b/');
    db.close();
  });

  it('gives a new collection the cluster tables, so a shard never creates a table of its own', () => {
    const db = openCollection(join(tmp.dir, 'cluster-tables.db'), { create: true });
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'cluster\\_%' ESCAPE '\\' ORDER BY name").pluck().all();
    assert.deepEqual(tables, ['cluster_fence', 'cluster_outbox']);
    db.close();
  });

  it('refuses a missing file unless asked to create it', () => {
    assert.throws(() => openCollection(join(tmp.dir, 'absent.db'), { create: false }), /no collection at/);
  });
});

describe('read-only connections', () => {
  it('opened with readonly: true, a collection is a ReadonlyDb: writes do not type-check, and SQLite refuses them', async () => {
    const path = join(tmp.dir, 'reader.db');
    const writer = openCollection(path, { create: true });
    saveSettings(writer, { ...DEFAULT_SETTINGS, query: 'wal', seeds: ['http://a/'] });
    writer.prepare("INSERT INTO hosts (origin) VALUES ('http://a')").run();
    new UrlStore(writer).insert({ fp: 1n, url: 'http://a/', hostId: 1, depth: 0, state: UrlState.fetched, parentId: null, redirects: 0, reason: null });
    writer.prepare("INSERT INTO pages (url_id, status, headers, relevance, hot, judged_hot, started_at, fetched_at, response_ms) VALUES (1, 200, '[]', 0.5, 0, 0, 0, 0, 1)").run();
    writer.close();

    const reader = openCollection(path, { create: false, readonly: true });
    try {
      // Reading works as on any connection, through the stores' and the library's readers.
      assert.equal(loadSettings(reader)?.query, 'wal');
      assert.deepEqual(storedSeedIds(reader), [1]);
      assert.deepEqual(storedLabels(reader), []);
      assert.equal(reader.prepare('SELECT count(*) FROM urls').pluck().get(), 1);
      assert.equal(await readSnapshot(reader, async () => reader.inTransaction), true, 'a read snapshot is a transaction');
      assert.equal(reader.inTransaction, false);

      // What a ReadonlyDb offers cannot write: each of these lines is a type error.
      // @ts-expect-error a ReadonlyDb's statements have no run()
      assert.throws(() => reader.prepare('DELETE FROM urls').run(), /readonly/);
      // @ts-expect-error a ReadonlyDb has no exec()
      assert.throws(() => reader.exec('DELETE FROM urls'), /readonly/);
      // @ts-expect-error a ReadonlyDb has no pragma()
      assert.throws(() => reader.pragma('user_version = 99'), /readonly/);
      // @ts-expect-error a ReadonlyDb has no transaction()
      assert.equal(typeof reader.transaction, 'function');
      // @ts-expect-error the stores' writers take a writable Db
      assert.throws(() => saveSettings(reader, { ...DEFAULT_SETTINGS, query: 'wal', seeds: ['http://a/'] }), /readonly/);
      // @ts-expect-error a label is a write
      assert.throws(() => writeLabel(reader, 1, 'relevant', 0), /readonly/);
      assert.throws(
        // @ts-expect-error so is every store that writes
        () => new UrlStore(reader).insert({ fp: 2n, url: 'http://a/2', hostId: 1, depth: 1, state: UrlState.queued, parentId: null, redirects: 0, reason: null }),
        /readonly/,
      );
      // @ts-expect-error a ReadonlyDb is not a Db
      const asWriter: Db = reader;
      assert.equal(asWriter, reader);

      // At run time the connection is read-only too: SQLite refuses a write even through a cast.
      assert.equal(reader.readonly, true);
      assert.throws(() => (reader as unknown as Db).prepare("UPDATE settings SET value = '{}'").run(), (err: unknown) => err instanceof Error && /readonly/.test(err.message));
      assert.equal(loadSettings(reader)?.query, 'wal', 'nothing was written');
      assert.deepEqual(storedSeedIds(reader), [1]);
      assert.deepEqual(storedLabels(reader), []);
      assert.equal(reader.prepare('SELECT hot FROM pages WHERE url_id = 1').pluck().get(), 0);
    } finally {
      reader.close();
    }
  });

  it('a writable Db can be used wherever a ReadonlyDb is expected', () => {
    const db = openCollection(join(tmp.dir, 'writer-as-reader.db'), { create: true });
    saveSettings(db, { ...DEFAULT_SETTINGS, query: 'checkpoint', seeds: ['http://a/'] });
    const asReader: ReadonlyDb = db;
    assert.equal(loadSettings(asReader)?.query, 'checkpoint');
    assert.equal(asReader.readonly, false);
    db.close();
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

  it('makes a waiting page a site resource, but never one that was fetched', () => {
    const db = openCollection(join(tmp.dir, 'kinds.db'), { create: true });
    db.prepare("INSERT INTO hosts (origin) VALUES ('http://a')").run();
    const urls = new UrlStore(db);
    const waiting = urls.insert({ fp: 1n, url: 'http://a/sitemap.xml', hostId: 1, depth: 2, state: UrlState.queued, parentId: null, redirects: 0, reason: null });
    const fetched = urls.insert({ fp: 2n, url: 'http://a/sm.xml', hostId: 1, depth: 2, state: UrlState.fetched, parentId: null, redirects: 0, reason: null });
    const index = urls.insert({ fp: 3n, url: 'http://a/searchindex.js', hostId: 1, depth: 2, state: UrlState.queued, parentId: 1, redirects: 0, reason: null, kind: 'search-index' });
    assert.equal(urls.promoteKind(waiting, 'sitemap'), true);
    assert.equal(urls.promoteKind(fetched, 'sitemap'), false);
    assert.equal(urls.promoteKind(index, 'sitemap'), false, 'a resource keeps its kind');
    assert.deepEqual(urls.resourceKinds(), new Map([[waiting, 'sitemap'], [index, 'search-index']]));
    assert.equal(urls.get(waiting)?.kind, 'sitemap');
    assert.deepEqual(urls.rootResources().map((r) => r.id), [waiting], 'resources that no page listed');
    db.close();
  });
});
