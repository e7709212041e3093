import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { openCollection, writeTransaction, type Db } from '../../../../crawler/store/database.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import type { NewPage } from '../../../../crawler/store/page-row.ts';
import { PageStore } from '../../../../crawler/store/page-store.ts';
import { indexMissedPages, TextIndexQueue } from '../../../../crawler/store/text-index-queue.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';
import { UrlStore } from '../../../../crawler/store/url-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'forager-text-index-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;

/** A fresh collection and a way to store page n with a word of its own in its text. */
function collection(textIndex?: (db: Db) => TextIndexQueue) {
  const db = openCollection(join(dir, `c${files++}.forager`), { create: true });
  const hostId = new HostStore(db).idFor('https://example.org');
  const urls = new UrlStore(db);
  const queue = textIndex?.(db);
  const pages = new PageStore(db, queue);
  const store = (n: number, options: { noindex?: boolean; text?: string | null } = {}): number =>
    writeTransaction(db, () => {
      const urlId = urls.insert({ fp: BigInt(n + 1), url: `https://example.org/${n}`, hostId, depth: 1, state: UrlState.fetched, parentId: null, redirects: 0, reason: null });
      return pages.insert(page(urlId, options.text === undefined ? `page word${n}` : options.text, options.noindex ?? false));
    });
  const hits = (word: string): number => db.prepare('SELECT count(*) FROM pages_fts WHERE pages_fts MATCH ?').pluck().get(word) as number;
  const indexed = (): number => db.prepare('SELECT count(*) FROM pages_fts_docsize').pluck().get() as number;
  const intact = (): void => {
    db.prepare("INSERT INTO pages_fts (pages_fts) VALUES ('integrity-check')").run();
  };
  return { db, queue, store, hits, indexed, intact };
}

function page(urlId: number, text: string | null, noindex: boolean): NewPage {
  return {
    urlId, status: 200, httpVersion: '1.1', statusText: null, headers: [], contentType: 'text/html', charset: 'utf-8',
    body: null, bodyBytes: 0, wireBytes: 0, title: null, text, terms: null, relevance: null, hot: false, judgedHot: null,
    noindex, nofollow: false, canonical: null, redirectTo: null, note: null, startedAt: 0, fetchedAt: 1, responseMs: 1,
    remoteAddress: null, requestHead: null, payload: null, simhash: null, bodyHash: null, duplicateOf: null, soft404: false,
  };
}

it('indexes new pages in batches: the 32nd page writes the batch, with its own transaction', () => {
  const c = collection((db) => new TextIndexQueue(db, (err) => assert.fail(String(err))));
  for (let n = 0; n < 31; n++) c.store(n);
  assert.equal(c.indexed(), 0, 'nothing indexed while the batch fills');
  assert.equal(c.queue?.waiting, 31);
  c.store(31);
  assert.equal(c.indexed(), 32);
  assert.equal(c.hits('word7'), 1);
  c.intact();
  c.queue?.flush();
  c.db.close();
});

it('a batch written on its own that the store refuses is told, and stays waiting', async () => {
  const errors: unknown[] = [];
  const c = collection((db) => new TextIndexQueue(db, (err) => errors.push(err)));
  c.store(1);
  c.db.pragma('query_only = ON');
  await new Promise((resolve) => setTimeout(resolve, 1200));
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /readonly/);
  assert.equal(c.queue?.waiting, 1);
  c.db.pragma('query_only = OFF');
  c.queue?.flush();
  assert.equal(c.hits('word1'), 1);
  c.db.close();
});

it('writes a batch that does not fill within a second on its own', async () => {
  const c = collection((db) => new TextIndexQueue(db, (err) => assert.fail(String(err))));
  c.store(1);
  c.store(2, { noindex: true });
  c.store(3, { text: null });
  assert.equal(c.queue?.waiting, 1, 'a page that asked for noindex, or has no text, is not indexed');
  await new Promise((resolve) => setTimeout(resolve, 1200));
  assert.equal(c.indexed(), 1);
  assert.equal(c.hits('word1'), 1);
  c.db.close();
});

it('a batch the store refuses stays waiting; the next flush writes it', () => {
  const c = collection((db) => new TextIndexQueue(db, (err) => assert.fail(String(err))));
  c.store(1);
  // A store that refuses writes (as a full disk or a file turned read-only would).
  c.db.pragma('query_only = ON');
  assert.throws(() => c.queue?.flush(), /readonly/);
  assert.equal(c.queue?.waiting, 1);
  c.db.pragma('query_only = OFF');
  c.queue?.flush();
  assert.equal(c.hits('word1'), 1);
  c.intact();
  c.db.close();
});

it('after a kill, indexMissedPages indexes what the batch held, once, and only indexable pages', () => {
  // A killed run: pages 0–9 indexed, 10–14 stored but still in the batch when the process died.
  const c = collection((db) => new TextIndexQueue(db, (err) => assert.fail(String(err))));
  for (let n = 0; n < 10; n++) c.store(n);
  c.queue?.flush();
  for (let n = 10; n < 15; n++) c.store(n);
  c.store(15, { noindex: true });
  assert.equal(c.indexed(), 10);
  assert.equal(indexMissedPages(c.db), 5);
  assert.equal(c.indexed(), 15);
  assert.equal(c.hits('word12'), 1);
  assert.equal(c.hits('word15'), 0, 'noindex is kept');
  assert.equal(indexMissedPages(c.db), 0, 'nothing twice');
  c.intact();
});

it('a page whose transaction was rolled back is not indexed, and its seq taken again is indexed once', () => {
  const c = collection((db) => new TextIndexQueue(db, (err) => assert.fail(String(err))));
  c.store(1);
  // The page's transaction fails after the page row was written (a later write refused, the epoch fence).
  assert.throws(() =>
    writeTransaction(c.db, () => {
      c.store(2);
      throw new Error('refused');
    }),
  );
  const reused = c.store(3);
  assert.equal(reused, 2, 'SQLite gives the rolled-back seq to the next page');
  c.queue?.flush();
  assert.equal(c.indexed(), 2);
  assert.equal(c.hits('word2'), 0, 'the rolled-back page left nothing in the index');
  assert.equal(c.hits('word3'), 1);
  c.intact();
  c.db.close();
});

it('without a queue, a page is indexed as it is stored (imports and merges)', () => {
  const c = collection();
  c.store(1);
  assert.equal(c.hits('word1'), 1);
  assert.equal(indexMissedPages(c.db), 0);
  c.db.close();
});
