import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { RefreshPolicy } from '../../crawler/engine/run-policy.ts';
import { finishRefresh, startRefresh } from '../../crawler/engine/refresh-run.ts';
import { openCollection, type Db } from '../../crawler/store/database.ts';
import { SCHEMA_VERSION } from '../../crawler/store/migrations.ts';
import { loadSettings } from '../../crawler/store/settings-store.ts';
import { tempDir } from '../support/crawl-harness.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/collections/release-0.1.0-schema7.forager', import.meta.url));
/** Where the release's crawl saw the site (test/fixtures/collections/README.md). */
const PORT = 28417;
const ORIGIN = `http://127.0.0.1:${PORT}`;

interface Seen {
  path: string;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
}

describe('a collection made by the previous release (schema 7)', () => {
  const dir = tempDir();
  const path = join(dir.dir, 'release.forager');
  const seen: Seen[] = [];
  let db: Db;
  let pagesBefore: { seq: number; url: string; title: string | null }[];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    seen.push({ path: url, ifNoneMatch: req.headers['if-none-match'], ifModifiedSince: req.headers['if-modified-since'] as string | undefined });
    const page = (title: string, text: string, headers: Record<string, string> = {}): void =>
      void res.writeHead(200, { 'content-type': 'text/html', ...headers }).end(`<html><head><title>${title}</title></head><body><p>${text}</p></body></html>`);
    // The same bytes as the release's crawl got, byte for byte, where the page did not change.
    const same = (title: string, body: string): void =>
      void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
    if (url === '/') return same('Index', '<p>Write-ahead logging notes.</p><a href="/wal">WAL</a> <a href="/checkpoints">Checkpoints</a> <a href="/docs/other">Other</a>');
    if (url === '/wal') return page('WAL', 'A write-ahead log records each change before the data files, and checkpoints bound its replay.', { etag: '"wal-2"' });
    if (url === '/checkpoints') {
      if (req.headers['if-modified-since'] === 'Tue, 01 Sep 2026 10:00:00 GMT') return void res.writeHead(304).end();
      return page('Checkpoints', 'A checkpoint flushes dirty pages; logging resumes after it.', { 'last-modified': 'Tue, 01 Sep 2026 10:00:00 GMT' });
    }
    if (url === '/docs/other') return same('Other', '<p>Nothing about the topic here.</p>');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });

  before(async () => {
    copyFileSync(FIXTURE, path);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(PORT, '127.0.0.1', resolve);
    });
    db = openCollection(path, { create: false });
    pagesBefore = db.prepare('SELECT p.seq, u.url, p.title FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.seq').all() as typeof pagesBefore;
  });

  after(async () => {
    db?.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    dir.cleanup();
  });

  it('migrates in place to the current schema, keeping every page, its text and its index', () => {
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal(pagesBefore.length, 5);
    assert.deepEqual(pagesBefore.map((p) => p.url).sort(), ['/', '/checkpoints', '/docs/other', '/sitemap.xml', '/wal'].map((p) => ORIGIN + p).sort());
    const versions = db.prepare('SELECT DISTINCT version FROM pages').pluck().all();
    assert.deepEqual(versions, [1], 'every stored page is its first version');
    assert.equal(db.prepare('SELECT count(*) FROM page_versions').pluck().get(), 0);
    const hits = db.prepare("SELECT rowid FROM pages_fts WHERE pages_fts MATCH 'checkpoint'").pluck().all();
    assert.ok(hits.length >= 1, 'the full-text index still answers');
    assert.equal(loadSettings(db)?.query, 'write-ahead logging checkpoints');
  });

  it('refreshes: validators stored by the old release are sent, a change becomes version 2 and the first version is kept', async () => {
    const settings = loadSettings(db);
    assert.ok(settings !== undefined);
    const refresh = startRefresh(db, {});
    const outcome = await new CrawlEngine(db, settings, { policy: new RefreshPolicy(refresh) }).run();
    finishRefresh(db, outcome);
    assert.equal(outcome, 'exhausted');
    assert.equal(seen.find((s) => s.path === '/wal')?.ifNoneMatch, '"wal-1"');
    assert.equal(seen.find((s) => s.path === '/checkpoints')?.ifModifiedSince, 'Tue, 01 Sep 2026 10:00:00 GMT');
    const wal = db.prepare("SELECT p.seq, p.version, p.text FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?").get(`${ORIGIN}/wal`) as { seq: number; version: number; text: string };
    assert.equal(wal.version, 2);
    assert.equal(wal.seq, pagesBefore.find((p) => p.url === `${ORIGIN}/wal`)?.seq, 'the page keeps its identity');
    assert.match(wal.text, /checkpoints bound its replay/);
    const first = db.prepare('SELECT text FROM page_versions WHERE page_seq = ? AND version = 1').pluck().get(wal.seq) as string;
    assert.match(first, /before the data files\./);
    const outcomes = db.prepare('SELECT u.url, r.outcome FROM revisits r JOIN pages p ON p.seq = r.page_seq JOIN urls u ON u.id = p.url_id').all() as { url: string; outcome: string }[];
    const byPath = new Map(outcomes.map((o) => [o.url.slice(ORIGIN.length), o.outcome]));
    assert.equal(byPath.get('/wal'), 'changed');
    assert.equal(byPath.get('/checkpoints'), 'not-modified');
    assert.equal(byPath.get('/docs/other'), 'identical');
  });
});
