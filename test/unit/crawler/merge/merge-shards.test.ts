import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { mergeShards, type MergeSummary } from '../../../../crawler/merge/merge-shards.ts';
import { openCollection, type Db, type ReadonlyDb } from '../../../../crawler/store/database.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import { LabelStore } from '../../../../crawler/store/label-store.ts';
import type { NewPage } from '../../../../crawler/store/page-row.ts';
import { PageStore } from '../../../../crawler/store/page-store.ts';
import { RenderStore } from '../../../../crawler/store/render-store.ts';
import { saveSettings } from '../../../../crawler/store/settings-store.ts';
import { storedBodySql } from '../../../../crawler/store/stored-body.ts';
import { UrlState, type UrlStateValue } from '../../../../crawler/store/url-state.ts';
import { UrlStore } from '../../../../crawler/store/url-store.ts';
import { fingerprint } from '../../../../crawler/url/fingerprint.ts';
import { tempDir, testSettings } from '../../../support/crawl-harness.ts';

/*
 * Two shards written row by row through the stores, to pin down the rules a crawl rarely
 * exercises: a page stored by two shards (the one fetched first wins, even from the higher
 * shard), an exact duplicate whose original lost that conflict (it keeps the bytes), labels
 * in two shards (the later wins and sets the verdict), a host in two shards (the one that
 * fetched more speaks for it), a fingerprint clash, and the ids every table refers by.
 */

const SETTINGS = testSettings(['http://a.test/', 'http://b.test/'], { query: 'merge rules' });

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
    hot: true,
    judgedHot: true,
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
    simhash: 123456789012345678n,
    bodyHash: null,
    duplicateOf: null,
    soft404: false,
    ...extra,
  };
}

interface Writer {
  db: Db;
  hosts: HostStore;
  urls: UrlStore;
  pages: PageStore;
  url(url: string, hostId: number, state: UrlStateValue, extra?: { parentId?: number | null; reason?: string | null; fp?: bigint }): number;
}

function shard(path: string, build: (w: Writer) => void): void {
  const db = openCollection(path, { create: true });
  saveSettings(db, SETTINGS);
  const urls = new UrlStore(db);
  const w: Writer = {
    db,
    hosts: new HostStore(db),
    urls,
    pages: new PageStore(db),
    url: (url, hostId, state, extra = {}) =>
      urls.insert({ fp: extra.fp ?? fingerprint(url), url, hostId, depth: 1, state, parentId: extra.parentId ?? null, redirects: 0, reason: extra.reason ?? null }),
  };
  db.transaction(() => build(w))();
  db.close();
}

describe('mergeShards over hand-written shards', () => {
  const tmp = tempDir('forager-merge-unit-');
  const data = join(tmp.dir, 'data');
  let summary: MergeSummary;
  let db: ReadonlyDb;

  before(() => {
    mkdirSync(data);
    shard(join(data, 'shard-000.forager'), (w) => {
      const a = w.hosts.idFor('http://a.test');
      w.hosts.saveRobots(a, 200, Buffer.from('User-agent: *\nAllow: /\n'), 1000, 0);
      w.db.prepare('UPDATE hosts SET pages_fetched = 3 WHERE id = ?').run(a);
      const out = w.hosts.outOfScopeId();
      const a1 = w.url('http://a.test/', a, UrlState.fetched);
      const a2 = w.url('http://a.test/dup', a, UrlState.fetched, { parentId: a1 });
      const old = w.url('http://a.test/old', a, UrlState.fetched, { parentId: a1 });
      const moved = w.url('http://a.test/new', a, UrlState.queued, { parentId: old });
      const b2 = w.url('http://b.test/queued', out, UrlState.skipped, { reason: 'partition:1' });
      w.url('http://c.test/', out, UrlState.skipped, { reason: 'partition:2' });
      // Fetched at 100, after shard 1's page of the same URL (50): it loses.
      const p1 = w.pages.insert(page(a1, 100, { body: gzipSync('the original body'), bodyHash: 'h1', title: 'first copy' }));
      w.pages.insertLink(p1, { dstId: b2, anchor: 'from the loser', contextBefore: '', contextAfter: '' });
      new RenderStore(w.db).saveRender({ pageSeq: p1, dom: '<p>rendered</p>', renderedAt: 101, renderMs: 1, timedOut: false, linksAdded: 0, requests: [] });
      const p2 = w.pages.insert(page(a2, 110, { body: null, bodyHash: 'h1', duplicateOf: { seq: p1, kind: 'exact' }, title: 'the duplicate' }));
      w.pages.insertLink(p2, { dstId: b2, anchor: 'queued page', contextBefore: 'before', contextAfter: 'after' });
      new RenderStore(w.db).saveRequisites(p2, ['http://a.test/style.css'], false);
      w.pages.insert(page(old, 120, { status: 301, redirectTo: moved, body: null, title: null, text: null }));
      new RenderStore(w.db).saveSubresource('http://a.test/style.css', { status: 200, headers: {}, body: Buffer.from('body{}') }, 115);
      new LabelStore(w.db).put(a1, true, 5);
      w.db.prepare('INSERT INTO runs (started_at, ended_at, pages) VALUES (90, 130, 3)').run();
    });
    shard(join(data, 'shard-001.forager'), (w) => {
      const b = w.hosts.idFor('http://b.test');
      const a = w.hosts.idFor('http://a.test');
      // Fewer pages of a.test here: shard 0's robots.txt stands.
      w.hosts.saveRobots(a, 404, null, 2000, 0);
      w.db.prepare('UPDATE hosts SET pages_fetched = 1 WHERE id = ?').run(a);
      w.hosts.outOfScopeId();
      const a1 = w.url('http://a.test/', a, UrlState.fetched);
      const b1 = w.url('http://b.test/', b, UrlState.fetched);
      w.url('http://b.test/queued', b, UrlState.queued, { parentId: b1 });
      // Another URL with a.test/dup's fingerprint: the merge keeps one URL, as a shard's seen test would.
      w.url('http://b.test/clash', b, UrlState.queued, { fp: fingerprint('http://a.test/dup') });
      w.pages.insert(page(a1, 50, { body: gzipSync('the winning body'), title: 'winning copy', hot: true }));
      const q1 = w.pages.insert(page(b1, 105, { title: 'bee' }));
      w.pages.insertLink(q1, { dstId: a1, anchor: 'to a', contextBefore: 'x', contextAfter: 'y' });
      new RenderStore(w.db).saveRender({ pageSeq: q1, dom: '<p>bee rendered</p>', renderedAt: 106, renderMs: 2, timedOut: true, linksAdded: 1, requests: [] });
      new RenderStore(w.db).savePendingRequisites(q1, 'http://b.test/', { hrefs: ['/x.css'], pageUrl: 'http://b.test/', baseHref: undefined });
      new RenderStore(w.db).saveSubresource('http://a.test/style.css', { status: 500, headers: {}, body: Buffer.from('second') }, 200);
      new LabelStore(w.db).put(a1, false, 9);
      w.db.prepare('INSERT INTO runs (started_at, ended_at, pages) VALUES (40, 110, 2)').run();
    });
    summary = mergeShards(data, join(tmp.dir, 'merged.forager'));
    db = openCollection(join(tmp.dir, 'merged.forager'), { create: false, readonly: true });
  });

  after(() => {
    db?.close();
    tmp.cleanup();
  });

  const pageOf = (url: string): Record<string, unknown> | undefined =>
    db.prepare(`SELECT p.seq, p.title, p.fetched_at AS fetchedAt, p.hot, p.duplicate_of AS duplicateOf, p.duplicate_kind AS duplicateKind, ${storedBodySql(db, 'p')} AS body
      FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`).get(url) as Record<string, unknown> | undefined;

  it('keeps the page fetched first and counts the other as a conflict, dropping its links and render', () => {
    assert.equal(summary.conflicts, 1);
    assert.equal(summary.pages, 4);
    const a1 = pageOf('http://a.test/') as { seq: number; title: string; fetchedAt: number; body: Buffer };
    assert.equal(a1.title, 'winning copy');
    assert.equal(a1.fetchedAt, 50);
    assert.equal(a1.seq, 1, 'the earliest page is the first');
    assert.equal(gunzipSync(a1.body).toString(), 'the winning body');
    assert.equal(db.prepare("SELECT count(*) FROM links WHERE anchor = 'from the loser'").pluck().get(), 0);
    assert.deepEqual(db.prepare("SELECT CAST(dom AS BLOB) IS NOT NULL AS has, timed_out AS timedOut, links_added AS linksAdded FROM renders r JOIN pages p ON p.seq = r.page_seq WHERE p.title = 'bee'").get(), { has: 1, timedOut: 1, linksAdded: 1 });
    assert.equal(db.prepare('SELECT count(*) FROM renders').pluck().get(), 1);
  });

  it('gives an exact duplicate whose original lost the conflict its own copy of the bytes', () => {
    assert.equal(summary.unlinkedDuplicates, 1);
    const dup = pageOf('http://a.test/dup') as { duplicateOf: number | null; duplicateKind: string | null; body: Buffer };
    assert.equal(dup.duplicateOf, null);
    assert.equal(dup.duplicateKind, null);
    assert.equal(gunzipSync(dup.body).toString(), 'the original body');
  });

  it('orders pages by fetch time and remaps every id that points at a URL or a page', () => {
    assert.deepEqual(db.prepare('SELECT title FROM pages ORDER BY seq').pluck().all(), ['winning copy', 'bee', 'the duplicate', null]);
    const redirect = db.prepare('SELECT t.url FROM pages p JOIN urls u ON u.id = p.url_id JOIN urls t ON t.id = p.redirect_to WHERE u.url = ?').pluck().get('http://a.test/old');
    assert.equal(redirect, 'http://a.test/new');
    const parent = db.prepare('SELECT p.url FROM urls u JOIN urls p ON p.id = u.parent_id WHERE u.url = ?').pluck();
    assert.equal(parent.get('http://a.test/new'), 'http://a.test/old');
    assert.equal(parent.get('http://a.test/dup'), 'http://a.test/');
    const links = db
      .prepare('SELECT s.url AS src, d.url AS dst, l.anchor FROM links l JOIN pages p ON p.seq = l.src_seq JOIN urls s ON s.id = p.url_id JOIN urls d ON d.id = l.dst_id ORDER BY l.anchor')
      .all();
    assert.deepEqual(links, [
      { src: 'http://a.test/dup', dst: 'http://b.test/queued', anchor: 'queued page' },
      { src: 'http://b.test/', dst: 'http://a.test/', anchor: 'to a' },
    ]);
    assert.deepEqual(db.prepare('SELECT u.url, r.url AS requisite FROM requisites r JOIN pages p ON p.seq = r.page_seq JOIN urls u ON u.id = p.url_id').all(), [
      { url: 'http://a.test/dup', requisite: 'http://a.test/style.css' },
    ]);
    assert.deepEqual(db.prepare('SELECT u.url FROM requisites_pending r JOIN pages p ON p.seq = r.page_seq JOIN urls u ON u.id = p.url_id').pluck().all(), ['http://b.test/']);
    assert.equal(db.prepare('SELECT status FROM subresources WHERE url = ?').pluck().get('http://a.test/style.css'), 200);
  });

  it('takes the owner\'s URL row over a stub, keeps a stub nobody owns, and counts a fingerprint clash', () => {
    const row = db.prepare('SELECT u.state, u.reason, h.origin FROM urls u JOIN hosts h ON h.id = u.host_id WHERE u.url = ?');
    assert.deepEqual(row.get('http://b.test/queued'), { state: UrlState.queued, reason: null, origin: 'http://b.test' });
    assert.deepEqual(row.get('http://c.test/'), { state: UrlState.skipped, reason: 'partition:2', origin: 'out-of-scope:' });
    assert.equal(summary.stubsResolved, 1);
    assert.equal(summary.urlClashes, 1);
    assert.equal(row.get('http://b.test/clash'), undefined);
    assert.equal(summary.urls, 7);
  });

  it('has the schema a new collection has, every index made again', () => {
    const schemaOf = (c: ReadonlyDb): string[] =>
      (c.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name').all() as Record<string, unknown>[]).map((r) => JSON.stringify(r));
    const fresh = openCollection(join(tmp.dir, 'fresh.forager'), { create: true });
    try {
      assert.deepEqual(schemaOf(db), schemaOf(fresh));
      assert.equal(db.prepare('PRAGMA user_version').pluck().get(), fresh.pragma('user_version', { simple: true }));
    } finally {
      fresh.close();
    }
    assert.equal(db.prepare('PRAGMA integrity_check').pluck().get(), 'ok');
  });

  it('takes a host\'s robots.txt from the shard that fetched most of its pages', () => {
    const host = db.prepare("SELECT robots_status AS status, pages_fetched AS pages, CAST(robots_body AS TEXT) AS body FROM hosts WHERE origin = 'http://a.test'").get();
    assert.deepEqual(host, { status: 200, pages: 3, body: 'User-agent: *\nAllow: /\n' });
    assert.equal(db.prepare('SELECT count(*) FROM hosts').pluck().get(), 3);
  });

  it('keeps the later label, which sets the page\'s verdict, and the runs in start order', () => {
    assert.deepEqual(db.prepare('SELECT relevant, labelled_at AS at FROM labels').all(), [{ relevant: 0, at: 9 }]);
    assert.equal((pageOf('http://a.test/') as { hot: number }).hot, 0);
    assert.deepEqual(db.prepare('SELECT started_at FROM runs ORDER BY id').pluck().all(), [40, 90]);
  });
});
