import assert from 'node:assert/strict';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { mergeCommand } from '../../../../crawler/cli/commands/merge.ts';
import { pageHistory } from '../../../../crawler/library/page-versions.ts';
import { mergeShards, type MergeSummary } from '../../../../crawler/merge/merge-shards.ts';
import { openCollection, type Db, type ReadonlyDb } from '../../../../crawler/store/database.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import type { NewPage } from '../../../../crawler/store/page-row.ts';
import { PageStore } from '../../../../crawler/store/page-store.ts';
import { RevisitStore, type RevisitCandidate } from '../../../../crawler/store/revisit-store.ts';
import { saveSettings } from '../../../../crawler/store/settings-store.ts';
import { Soft404Store } from '../../../../crawler/store/soft404-store.ts';
import { storedBodySql, versionBodySql } from '../../../../crawler/store/stored-body.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';
import { UrlStore } from '../../../../crawler/store/url-store.ts';
import { VersionStore, type NewRevisit, type RevisitOutcome } from '../../../../crawler/store/version-store.ts';
import type { CrawlSettings } from '../../../../crawler/protocol/settings.ts';
import { fingerprint } from '../../../../crawler/url/fingerprint.ts';
import { tempDir } from '../../../support/crawl-harness.ts';
import { buildVersionedCollection } from '../../../support/versioned-collection.ts';

/*
 * A page's history across a merge. shard-001 is a real crawl of a changing loopback site
 * with the soft-404 probe, refreshed twice (pages changed, gone, not modified; a folder's
 * probe), and a revisit left queued as a stopped run leaves it. shard-002 is written through
 * the stores: a revisit's new version that repeats a later page's body, that later page then
 * changed, an earlier version that was an exact duplicate, and a page whose history loses a
 * conflict to shard-003. shard-000 has no history at all, as a shard of a crawl without
 * revisits. Every shard's ids differ from the merged ones.
 */

function page(urlId: number, fetchedAt: number, extra: Partial<NewPage> = {}): NewPage {
  return {
    urlId,
    status: 200,
    httpVersion: '1.1',
    statusText: 'OK',
    headers: [['content-type', 'text/html']],
    contentType: 'text/html',
    charset: 'utf-8',
    body: gzipSync(`<p>body of ${urlId}</p>`),
    bodyBytes: 20,
    wireBytes: 40,
    title: `page ${urlId}`,
    text: `body of ${urlId}`,
    terms: null,
    relevance: 0.5,
    hot: false,
    judgedHot: false,
    noindex: false,
    nofollow: false,
    canonical: null,
    redirectTo: null,
    note: null,
    startedAt: fetchedAt - 5,
    fetchedAt,
    responseMs: 5,
    remoteAddress: '127.0.0.1',
    requestHead: 'GET / HTTP/1.1\r\n\r\n',
    payload: null,
    simhash: null,
    bodyHash: null,
    duplicateOf: null,
    soft404: false,
    ...extra,
  };
}

function revisit(seq: number, version: number, outcome: RevisitOutcome, fetchedAt: number, status = 200): NewRevisit {
  return {
    seq,
    version,
    outcome,
    status,
    httpVersion: '1.1',
    statusText: null,
    headers: [['etag', `"${seq}-${fetchedAt}"`]],
    requestHead: 'GET / HTTP/1.1\r\n\r\n',
    startedAt: fetchedAt - 3,
    fetchedAt,
    responseMs: 3,
    wireBytes: 10,
    remoteAddress: '127.0.0.1',
  };
}

interface Writer {
  db: Db;
  hosts: HostStore;
  pages: PageStore;
  versions: VersionStore;
  folders: Soft404Store;
  url(url: string, hostId: number): number;
}

function shard(path: string, settings: CrawlSettings, build: (w: Writer) => void): void {
  const db = openCollection(path, { create: true });
  saveSettings(db, settings);
  const urls = new UrlStore(db);
  const w: Writer = {
    db,
    hosts: new HostStore(db),
    pages: new PageStore(db),
    versions: new VersionStore(db),
    folders: new Soft404Store(db),
    url: (url, hostId) => urls.insert({ fp: fingerprint(url), url, hostId, depth: 1, state: UrlState.fetched, parentId: null, redirects: 0, reason: null }),
  };
  db.transaction(() => build(w))();
  db.close();
}

const text = (bytes: Buffer | null): string | null => (bytes === null ? null : gunzipSync(bytes).toString());

/** A URL's page as its history shows it: the latest version with its bookkeeping, the earlier versions (bytes resolved) and the revisits, in order; no ids. */
function historyOf(db: ReadonlyDb, url: string): unknown {
  const row = db
    .prepare(
      `SELECT p.seq, p.version, p.first_fetched_at AS firstFetchedAt, p.checked_at AS checkedAt, p.gone_at AS goneAt, p.revisit_count AS revisitCount,
              p.change_count AS changeCount, p.status, p.title, p.started_at AS startedAt, p.fetched_at AS fetchedAt, p.body_hash AS bodyHash, ${storedBodySql(db, 'p')} AS body
       FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`,
    )
    .get(url) as ({ seq: number; body: Buffer | null } & Record<string, unknown>) | undefined;
  if (row === undefined) return undefined;
  const { seq, body, ...latest } = row;
  const versions = (
    db
      .prepare(
        `SELECT v.version, v.status, v.headers, v.title, v.text, v.relevance, v.hot, v.started_at AS startedAt, v.fetched_at AS fetchedAt, v.request_head AS requestHead,
                v.body_hash AS bodyHash, v.payload, ${versionBodySql(db, 'v')} AS body
         FROM page_versions v WHERE v.page_seq = ? ORDER BY v.version`,
      )
      .all(seq) as ({ body: Buffer | null } & Record<string, unknown>)[]
  ).map((v) => ({ ...v, body: text(v.body) }));
  const revisits = db
    .prepare(
      `SELECT version, outcome, status, headers, request_head AS requestHead, started_at AS startedAt, fetched_at AS fetchedAt, response_ms AS responseMs, wire_bytes AS wireBytes
       FROM revisits WHERE page_seq = ? ORDER BY fetched_at, id`,
    )
    .all(seq);
  return { ...latest, body: text(body), versions, revisits };
}

const urlsWithPages = (db: ReadonlyDb): string[] => db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY u.url').pluck().all() as string[];

function foldersOf(db: ReadonlyDb): unknown[] {
  return db.prepare('SELECT h.origin, f.folder, CAST(f.simhash AS TEXT) AS simhash, f.probed_at AS probedAt FROM soft404_folders f JOIN hosts h ON h.id = f.host_id ORDER BY h.origin, f.folder').all();
}

/** A waiting revisit as the next run reads it, without the ids that differ between files. */
const waitingOf = (db: ReadonlyDb): Omit<RevisitCandidate, 'urlId' | 'hostId'>[] =>
  new RevisitStore(db as Db).waiting().map(({ urlId: _, hostId: __, ...rest }) => rest).sort((a, b) => a.url.localeCompare(b.url));

describe('mergeShards carries versions, revisits and soft-404 folders', () => {
  const tmp = tempDir('forager-merge-history-');
  const data = join(tmp.dir, 'data');
  const mergedPath = join(tmp.dir, 'merged.forager');
  let summary: MergeSummary;
  let db: ReadonlyDb;
  const shards: ReadonlyDb[] = [];

  before(async () => {
    mkdirSync(data);
    mkdirSync(join(tmp.dir, 'crawl'));
    const crawled = await buildVersionedCollection(join(tmp.dir, 'crawl'));
    await crawled.site.close();
    // A revisit queued and not yet made, as a crawl with --revisit-after leaves it when stopped.
    new RevisitStore(crawled.db).queue(crawled.db.prepare('SELECT id FROM urls WHERE url = ?').pluck().get(crawled.url('/dated')) as number);
    crawled.db.close();
    renameSync(crawled.dbPath, join(data, 'shard-001.forager'));
    const settings = crawled.settings;

    shard(join(data, 'shard-000.forager'), settings, (w) => {
      const a = w.hosts.idFor('http://a.test');
      w.hosts.outOfScopeId();
      w.pages.insert(page(w.url('http://a.test/one', a), 1000, { title: 'a one' }));
      w.pages.insert(page(w.url('http://a.test/two', a), 1001, { title: 'a two' }));
    });

    shard(join(data, 'shard-002.forager'), settings, (w) => {
      const c = w.hosts.idFor('http://c.test');
      const one = w.pages.insert(page(w.url('http://c.test/one', c), 2000, { body: gzipSync('X1'), bodyHash: 'hx1', title: 'one' }));
      const two = w.pages.insert(page(w.url('http://c.test/two', c), 2010, { body: null, bodyHash: 'hx1', duplicateOf: { seq: one, kind: 'exact' }, title: 'two' }));
      const three = w.pages.insert(page(w.url('http://c.test/three', c), 2020, { body: gzipSync('Z'), bodyHash: 'hz', title: 'three', noindex: true }));
      const fourUrl = w.url('http://c.test/four', c);
      const four = w.pages.insert(page(fourUrl, 2030, { body: gzipSync('F'), bodyHash: 'hf', title: 'four loser' }));
      // /two's new version repeats /three's body: a duplicate of a page stored after it.
      w.versions.replaceVersion(
        revisit(two, 1, 'changed', 3000),
        page(w.db.prepare('SELECT url_id FROM pages WHERE seq = ?').pluck().get(two) as number, 3000, {
          body: null, bodyHash: 'hz', duplicateOf: { seq: three, kind: 'exact' }, title: 'two v2', text: 'second text of two',
        }),
      );
      w.versions.recordRevisit(revisit(one, 1, 'not-modified', 3500, 304));
      // Then /three changes: the bytes /two repeats are now /three's first version's.
      w.versions.replaceVersion(revisit(three, 1, 'changed', 4000), page(w.db.prepare('SELECT url_id FROM pages WHERE seq = ?').pluck().get(three) as number, 4000, { body: gzipSync('Z2'), bodyHash: 'hz2', title: 'three v2', text: 'third text changed' }));
      w.versions.replaceVersion(revisit(four, 1, 'changed', 4100), page(fourUrl, 4100, { body: gzipSync('F2'), bodyHash: 'hf2', title: 'four loser v2' }));
      w.versions.recordRevisit(revisit(four, 2, 'gone', 4200, 404));
      w.folders.save(c, '/docs/', 42n, 2500);
      w.folders.save(c, '/x/', null, 2600);
      w.folders.save(c, '/big/', -8_000_000_000_000_000_001n, 2700);
    });

    shard(join(data, 'shard-003.forager'), settings, (w) => {
      const d = w.hosts.idFor('http://d.test');
      const c = w.hosts.idFor('http://c.test');
      // Fetched before shard-002's /four: this page is kept, and that one's history goes with it.
      w.pages.insert(page(w.url('http://c.test/four', c), 1500, { body: gzipSync('F winner'), title: 'four winner' }));
      w.pages.insert(page(w.url('http://d.test/five', d), 2500, { title: 'five' }));
      w.folders.save(c, '/docs/', 43n, 5000);
      w.folders.save(c, '/x/', 7n, 1000);
    });

    summary = mergeShards(data, mergedPath);
    db = openCollection(mergedPath, { create: false, readonly: true });
    for (const name of ['shard-000', 'shard-001', 'shard-002', 'shard-003']) shards.push(openCollection(join(data, `${name}.forager`), { create: false, readonly: true }));
  });

  after(() => {
    db?.close();
    for (const s of shards) s.close();
    tmp.cleanup();
  });

  it('gives each URL of the crawled shard the versions, fetch times, revisits and bookkeeping the shard holds', () => {
    const crawled = shards[1] as ReadonlyDb;
    const urls = urlsWithPages(crawled);
    const versioned = crawled.prepare('SELECT count(DISTINCT page_seq) FROM page_versions').pluck().get() as number;
    assert.ok(versioned >= 2, `the crawl stored earlier versions of ${versioned} pages`);
    assert.ok((crawled.prepare('SELECT count(*) FROM revisits').pluck().get() as number) >= 10);
    // As the viewer lists them too: the page's number is all that differs.
    const listed = (c: ReadonlyDb, url: string): unknown => {
      const { seq: _, ...rest } = pageHistory(c, c.prepare('SELECT p.seq FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(url) as number, 'oldest-first');
      return rest;
    };
    for (const url of urls) {
      assert.deepEqual(historyOf(db, url), historyOf(crawled, url), url);
      assert.deepEqual(listed(db, url), listed(crawled, url), url);
    }
    assert.ok((db.prepare('SELECT max(version) FROM pages').pluck().get() as number) >= 2);
  });

  it('keeps a hand-written shard\'s history, bytes included, under the merged seqs, and a shard without history as it was', () => {
    const written = shards[2] as ReadonlyDb;
    for (const url of ['http://c.test/one', 'http://c.test/two', 'http://c.test/three']) assert.deepEqual(historyOf(db, url), historyOf(written, url), url);
    const two = historyOf(db, 'http://c.test/two') as { body: string; versions: { body: string }[] };
    assert.equal(two.body, 'Z', "the bytes of /three's first version, which /two's new version repeats");
    assert.equal(two.versions[0]?.body, 'X1');
    const dupOf = db
      .prepare("SELECT o.url FROM page_versions v JOIN pages p ON p.seq = v.duplicate_of JOIN urls o ON o.id = p.url_id JOIN pages q ON q.seq = v.page_seq JOIN urls u ON u.id = q.url_id WHERE u.url = 'http://c.test/two'")
      .pluck()
      .get();
    assert.equal(dupOf, 'http://c.test/one', "an earlier version's duplicate_of names its original's merged seq");
    for (const url of ['http://a.test/one', 'http://a.test/two', 'http://d.test/five']) {
      const merged = historyOf(db, url) as { version: number; checkedAt: number | null };
      assert.deepEqual(merged, historyOf(shards[url.includes('a.test') ? 0 : 3] as ReadonlyDb, url), url);
      assert.equal(merged.version, 1);
      assert.equal(merged.checkedAt, null);
    }
  });

  it('orders pages by their first fetch, not by their latest version\'s', () => {
    assert.deepEqual(db.prepare('SELECT title FROM pages ORDER BY seq LIMIT 7').pluck().all(), ['a one', 'a two', 'four winner', 'one', 'two v2', 'three v2', 'five']);
  });

  it('drops the history of a page that lost a conflict with the page', () => {
    assert.equal(summary.conflicts, 1);
    assert.deepEqual(historyOf(db, 'http://c.test/four'), historyOf(shards[3] as ReadonlyDb, 'http://c.test/four'));
    const crawled = shards[1] as ReadonlyDb;
    const count = (table: string): number => crawled.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    assert.equal(summary.versions, count('page_versions') + 2);
    assert.equal(summary.revisits, count('revisits') + 3);
    assert.equal(db.prepare('SELECT count(*) FROM page_versions').pluck().get(), summary.versions);
    assert.equal(db.prepare('SELECT count(*) FROM revisits').pluck().get(), summary.revisits);
  });

  it('carries the queued revisit and what the next run reads of every page\'s revisits', () => {
    const waiting = waitingOf(db);
    assert.equal(waiting.length, 1);
    assert.deepEqual(waiting, waitingOf(shards[1] as ReadonlyDb));
    assert.ok((waiting[0]?.revisits ?? 0) >= 2, 'the waiting page was revisited by both refreshes');
    const totals = new RevisitStore(shards[1] as Db).totals();
    // shard-002's pages kept: /one checked once (1,500 ms after its fetch), /two and /three changed once (990 ms and 1,980 ms).
    assert.deepEqual(new RevisitStore(db as Db).totals(), { checks: totals.checks + 3, changes: totals.changes + 2, spanMs: totals.spanMs + 1500 + 990 + 1980 });
  });

  it('carries the folders\' soft-404 probes on the merged hosts, the later of two probes of a folder standing', () => {
    const crawledFolders = foldersOf(shards[1] as ReadonlyDb);
    assert.ok(crawledFolders.length >= 1, 'the crawl probed a folder');
    // By origin: the loopback site's 'http://127…' sorts before 'http://c.test'.
    const expected = [
      ...crawledFolders,
      { origin: 'http://c.test', folder: '/big/', simhash: '-8000000000000000001', probedAt: 2700 },
      { origin: 'http://c.test', folder: '/docs/', simhash: '43', probedAt: 5000 },
      { origin: 'http://c.test', folder: '/x/', simhash: null, probedAt: 2600 },
    ];
    assert.deepEqual(foldersOf(db), expected);
    assert.equal(summary.soft404Folders, expected.length);
  });

  it('indexes the earlier versions\' text as the shards did, and the file checks out', () => {
    const hits = (c: ReadonlyDb, term: string): unknown[] =>
      c
        .prepare('SELECT u.url, v.version FROM versions_fts f JOIN page_versions v ON v.id = f.rowid JOIN pages p ON p.seq = v.page_seq JOIN urls u ON u.id = p.url_id WHERE versions_fts MATCH ? ORDER BY u.url, v.version')
        .all(term);
    for (const term of ['old', 'flush', 'checkpoints']) {
      assert.ok(hits(shards[1] as ReadonlyDb, term).length > 0, term);
      assert.deepEqual(hits(db, term), hits(shards[1] as ReadonlyDb, term), term);
    }
    const kept = (hit: unknown): boolean => (hit as { url: string }).url !== 'http://c.test/four';
    assert.deepEqual(hits(db, 'body'), hits(shards[2] as ReadonlyDb, 'body').filter(kept));
    assert.equal(db.prepare('PRAGMA integrity_check').pluck().get(), 'ok');
    const writable = openCollection(mergedPath, { create: false });
    try {
      writable.exec("INSERT INTO versions_fts (versions_fts) VALUES ('integrity-check')");
      writable.exec("INSERT INTO pages_fts (pages_fts) VALUES ('integrity-check')");
    } finally {
      writable.close();
    }
  });

  it('says in the command\'s summary how many earlier versions and revisits it carried', () => {
    let stdout = '';
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
    try {
      assert.equal(mergeCommand(['--dir', data, '--db', join(tmp.dir, 'again.forager')]), 0);
    } finally {
      process.stdout.write = write;
    }
    assert.match(stdout, new RegExp(`, 1 conflicts, ${summary.versions} earlier versions, ${summary.revisits} revisits, `));
  });
});
