import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { after, before, describe, it } from 'node:test';
import { collectionHosts } from '../../../../crawler/library/host-rows.ts';
import { listPages } from '../../../../crawler/library/page-list.ts';
import { pageTable, searchTable } from '../../../../crawler/library/page-table.ts';
import { PageLookup } from '../../../../crawler/library/page-lookup.ts';
import { pageHistory, versionText } from '../../../../crawler/library/page-versions.ts';
import { searchPages } from '../../../../crawler/library/search.ts';
import { versionDiff } from '../../../../crawler/library/version-diff.ts';
import type { DiffPart } from '../../../../crawler/protocol/api.ts';
import type { ReadonlyDb } from '../../../../crawler/store/database.ts';
import { tempDir } from '../../../support/crawl-harness.ts';
import { decodeStoredBody } from '../../../../crawler/viewer/page-source.ts';
import { crawlVersionedSite, tick, type VersionedSite } from './versioned-site.ts';

function seqOf(db: ReadonlyDb, url: string): number {
  const seq = db.prepare('SELECT p.seq FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck().get(url) as number | undefined;
  assert.ok(seq !== undefined, `${url} was stored`);
  return seq;
}

function marked(parts: DiffPart[], op: DiffPart['op']): string {
  return parts.filter((p) => p.op === op).map((p) => p.text).join('|');
}

describe('page versions, their diff, and the lists and search over them', () => {
  let v: VersionedSite;
  let crawledAt = 0;
  let refreshedAt = 0;
  let a = 0;

  before(async () => {
    v = await crawlVersionedSite();
    crawledAt = await tick();
    v.pages.set('/a', {
      title: 'Checkpoints, revised',
      body: '<p>The WAL is written and flushed at each checkpoint.</p><p>See <a href="/new">the new page</a>.</p>',
      etag: '"a2"',
    });
    v.pages.set('/c', { title: 'Doomed', body: '', status: 404 });
    v.pages.set('/new', { title: 'New', body: '<p>A page that appeared with the change.</p>' });
    assert.equal(await v.refresh(), 'exhausted');
    refreshedAt = await tick();
    a = seqOf(v.db, `${v.site.origin}/a`);
  });

  after(async () => {
    await v?.close();
  });

  it('lists a changed page\'s versions newest first, with dates and the revisits of each', () => {
    const history = pageHistory(v.db, a);
    assert.equal(history.url, `${v.site.origin}/a`);
    assert.equal(history.goneAt, null);
    assert.deepEqual(history.versions.map((x) => [x.version, x.latest, x.title, x.status]), [
      [2, true, 'Checkpoints, revised', 200],
      [1, false, 'Checkpoints', 200],
    ]);
    const [latest, first] = history.versions;
    assert.ok(first !== undefined && latest !== undefined);
    assert.ok(Date.parse(first.fetchedAt) < crawledAt && Date.parse(latest.fetchedAt) > crawledAt && Date.parse(latest.fetchedAt) < refreshedAt);
    assert.deepEqual(first.revisits.map((r) => [r.outcome, r.status]), [['changed', 200]], 'the revisit that found version 1 changed');
    assert.equal(first.revisits[0]?.at, latest.fetchedAt, 'it fetched version 2');
    assert.deepEqual(latest.revisits, []);
    assert.ok(first.hasBody && latest.hasBody);
    assert.deepEqual(pageHistory(v.db, a, 'oldest-first').versions.map((x) => x.version), [1, 2]);
  });

  it('keeps the revisits that found a page unchanged or gone with its one version', () => {
    const steady = pageHistory(v.db, seqOf(v.db, `${v.site.origin}/b`));
    assert.deepEqual(steady.versions.map((x) => x.version), [1]);
    assert.deepEqual(steady.versions[0]?.revisits.map((r) => [r.outcome, r.status]), [['not-modified', 304]]);
    const plain = pageHistory(v.db, seqOf(v.db, `${v.site.origin}/d`));
    assert.deepEqual(plain.versions[0]?.revisits.map((r) => r.outcome), ['identical']);
    const gone = pageHistory(v.db, seqOf(v.db, `${v.site.origin}/c`));
    assert.deepEqual(gone.versions[0]?.revisits.map((r) => [r.outcome, r.status]), [['gone', 404]]);
    assert.ok(gone.goneAt !== null && Date.parse(gone.goneAt) > crawledAt);
  });

  it('reads each version\'s text, and refuses one the page does not have', () => {
    assert.match(versionText(v.db, a, 1).text ?? '', /every checkpoint/);
    assert.match(versionText(v.db, a, 2).text ?? '', /each checkpoint/);
    assert.throws(() => versionText(v.db, a, 3), /no version 3; it has versions 1 to 2/);
    assert.throws(() => pageHistory(v.db, 9_999), /no page number 9999/);
  });

  it('diffs two versions word by word: the inserted and the deleted words, and the title', () => {
    const diff = versionDiff(v.db, a, 1, 2);
    assert.equal(diff.from.version, 1);
    assert.equal(diff.to.version, 2);
    assert.equal(diff.from.title, 'Checkpoints');
    assert.equal(marked(diff.title ?? [], 'deleted'), 'Checkpoints');
    assert.equal(marked(diff.title ?? [], 'inserted'), 'Checkpoints, revised');
    const parts = diff.blocks.flatMap((b) => (b.kind === 'changed' ? b.parts : []));
    const inserted = marked(parts, 'inserted');
    const deleted = marked(parts, 'deleted');
    assert.match(inserted, /written and/);
    assert.match(inserted, /each/);
    assert.match(deleted, /every/);
    assert.match(deleted, /Old paragraph about starvation/);
    assert.doesNotMatch(inserted + deleted, /flushed/, 'words in both versions are not marked');
    assert.ok(diff.insertedWords >= 3 && diff.deletedWords >= 5);
    assert.equal(diff.coarse, false);
    const back = versionDiff(v.db, a, 2, 1);
    assert.equal(back.insertedWords, diff.deletedWords, 'the other way round, insertions are deletions');
    assert.deepEqual(versionDiff(v.db, a, 2, 2).blocks, []);
  });

  it('filters the page table by changed since, new since and gone, and shows each row\'s versions', () => {
    const urls = (rows: { url: string }[]): string[] => rows.map((r) => new URL(r.url).pathname).sort();
    const changed = pageTable(v.db, { changedSince: crawledAt, sort: 'url' });
    assert.deepEqual(urls(changed.pages), ['/a']);
    assert.equal(changed.total, 1);
    const row = changed.pages[0];
    assert.equal(row?.version, 2);
    assert.ok(row?.lastChangedAt !== null && Date.parse(row?.lastChangedAt ?? '') > crawledAt);
    assert.ok(Date.parse(row?.firstFetchedAt ?? '') < crawledAt, 'first fetched at the crawl');
    assert.deepEqual(urls(pageTable(v.db, { changedSince: refreshedAt }).pages), [], 'nothing changed after the refresh');
    assert.deepEqual(urls(pageTable(v.db, { newSince: crawledAt }).pages), ['/new'], 'a changed page is not new');
    const gone = pageTable(v.db, { gone: true });
    assert.deepEqual(urls(gone.pages), ['/c']);
    assert.ok(gone.pages[0]?.goneAt !== null);
    assert.equal(pageTable(v.db, { gone: false }).total, pageTable(v.db, {}).total - 1);
    assert.deepEqual(urls(pageTable(v.db, { changedSince: crawledAt, gone: true }).pages), [], 'the conditions hold together');
    const plain = pageTable(v.db, { filter: '/b' }).pages[0];
    assert.equal(plain?.version, 1);
    assert.equal(plain?.lastChangedAt, null);
    assert.equal(plain?.firstFetchedAt, plain?.fetchedAt);
  });

  it('filters the command line\'s list the same way', () => {
    const paths = (filter: Parameters<typeof listPages>[1]): string[] => [...listPages(v.db, filter)].map((p) => new URL(p.url).pathname);
    assert.deepEqual(paths({ changedSince: crawledAt }), ['/a']);
    assert.deepEqual(paths({ newSince: crawledAt }), ['/new']);
    assert.deepEqual(paths({ gone: true }), ['/c']);
    const [page] = listPages(v.db, { changedSince: crawledAt });
    assert.equal(page?.version, 2);
    assert.ok(page?.lastChangedAt !== null);
  });

  it('searches the latest versions by default and every version on request, saying which version a hit is in', () => {
    assert.deepEqual(searchPages(v.db, 'starvation'), [], 'the word left with version 1');
    const hits = searchPages(v.db, 'starvation', { allVersions: true });
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.seq, a);
    assert.equal(hits[0]?.version, 1);
    assert.equal(hits[0]?.latest, false);
    assert.ok((hits[0]?.fetchedAt ?? 0) < crawledAt);
    const both = searchPages(v.db, 'checkpoint', { allVersions: true }).filter((h) => h.seq === a);
    assert.deepEqual(both.map((h) => [h.version, h.latest]).sort(), [[1, false], [2, true]]);
    const latest = searchPages(v.db, 'checkpoint').find((h) => h.seq === a);
    assert.equal(latest?.version, 2);
    assert.equal(latest?.latest, true);
    const table = searchTable(v.db, 'starvation', { limit: 10, marks: ['<', '>'], allVersions: true });
    assert.equal(table[0]?.version, 1);
    assert.match(table[0]?.snippet ?? '', /<starvation>/);
    assert.equal(table[0]?.fetchedAt, new Date(hits[0]?.fetchedAt ?? 0).toISOString());
  });

  it('gives the viewer an earlier version\'s stored body', () => {
    const lookup = new PageLookup(v.db);
    const earlier = lookup.page(a, 1);
    const latest = lookup.page(a, 2);
    assert.ok(earlier?.body && latest?.body);
    assert.match(decodeStoredBody(earlier.body, earlier.charset, earlier.contentType) ?? '', /every checkpoint/);
    assert.match(decodeStoredBody(latest.body, latest.charset, latest.contentType) ?? '', /each checkpoint/);
    assert.equal(lookup.page(a)?.body?.equals(latest.body), true, 'no version is the latest');
    assert.equal(lookup.page(a, 7), undefined);
  });

  it('lists the hosts with their changed and gone pages', () => {
    const [host, ...others] = collectionHosts(v.db, 10);
    assert.deepEqual(others, []);
    assert.equal(host?.origin, v.site.origin);
    assert.equal(host?.changed, 1);
    assert.equal(host?.gone, 1);
    assert.equal(host?.pages, pageTable(v.db, {}).total);
    assert.ok(Date.parse(host?.lastCheckedAt ?? '') > crawledAt);
  });

  it('counts a third version after another change', async () => {
    v.pages.set('/a', { title: 'Checkpoints, again', body: '<p>Entirely new words.</p>', etag: '"a3"' });
    await v.refresh();
    assert.deepEqual(pageHistory(v.db, a).versions.map((x) => x.version), [3, 2, 1]);
    assert.deepEqual(pageHistory(v.db, a).versions[1]?.revisits.map((r) => r.outcome), ['changed']);
    assert.match(marked(versionDiff(v.db, a, 1, 3).blocks.flatMap((b) => (b.kind === 'changed' ? b.parts : [])), 'inserted'), /Entirely new words/);
  });
});

describe('read models over a collection older than page versions (schema 7, read as it is)', () => {
  const fixture = fileURLToPath(new URL('../../../fixtures/collections/release-0.1.0-schema7.forager', import.meta.url));
  const dir = tempDir('forager-schema7-');
  let db: Database.Database;

  before(() => {
    // As a tool that reads shards or old files without migrating them sees it: SQLite opened read-only.
    const copy = join(dir.dir, 'old.forager');
    copyFileSync(fixture, copy);
    db = new Database(copy, { readonly: true });
  });

  after(() => {
    db?.close();
    dir.cleanup();
  });

  it('has one version per page, nothing changed or gone, and searches its pages', () => {
    assert.equal(db.prepare('PRAGMA user_version').pluck().get(), 7, 'the file was not migrated');
    const all = pageTable(db, { sort: 'url' });
    assert.ok(all.total > 0);
    for (const row of all.pages) {
      assert.equal(row.version, 1);
      assert.equal(row.firstFetchedAt, row.fetchedAt);
      assert.equal(row.lastChangedAt, null);
      assert.equal(row.goneAt, null);
    }
    assert.equal(pageTable(db, { changedSince: 0 }).total, 0);
    assert.equal(pageTable(db, { gone: true }).total, 0);
    assert.equal(pageTable(db, { newSince: 0 }).total, all.total);
    const seq = all.pages[0]?.seq as number;
    const history = pageHistory(db, seq);
    assert.deepEqual(history.versions.map((x) => [x.version, x.latest, x.revisits.length]), [[1, true, 0]]);
    assert.equal(history.goneAt, null);
    assert.deepEqual(versionDiff(db, seq, 1, 1).blocks, []);
    assert.throws(() => versionText(db, seq, 2), /no version 2/);
    const hits = searchPages(db, 'checkpoint', { allVersions: true });
    assert.ok(hits.length > 0);
    assert.ok(hits.every((h) => h.version === 1 && h.latest));
    assert.deepEqual([...listPages(db, { gone: true })], []);
    assert.equal(collectionHosts(db, 5)[0]?.changed, 0);
    assert.equal(new PageLookup(db).page(seq, 2), undefined);
  });
});
