import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { UsageError } from '../../../../crawler/errors.ts';
import { loadLabGraph } from '../../../../crawler/lab/load.ts';
import { runLab } from '../../../../crawler/lab/run-lab.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { type Db, openCollection } from '../../../../crawler/store/database.ts';
import { MIGRATIONS } from '../../../../crawler/store/migrations.ts';
import { saveSettings } from '../../../../crawler/store/settings-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'forager-lab-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Seed 101 → 102 ("Solar"), 103; 103 redirects to 104; 102 (hot) → 105 (never fetched), 106.
 * Stored pages in fetch order: 101, 103, 102, 104, 106.
 */
function collection(name: string): Db {
  const db = openCollection(join(dir, name), { create: true });
  saveSettings(db, { ...DEFAULT_SETTINGS, query: 'solar energy', seeds: ['https://a.example/'], randomSeed: 7 });
  const url = db.prepare('INSERT INTO urls (id, fp, url, host_id, depth, state, parent_id) VALUES (?, ?, ?, 1, ?, 2, ?)');
  url.run(101, 1, 'https://a.example/', 0, null);
  url.run(102, 2, 'https://a.example/solar', 1, 101);
  url.run(103, 3, 'https://a.example/b', 1, 101);
  url.run(104, 4, 'https://a.example/c', 1, 103);
  url.run(105, 5, 'https://a.example/d', 2, 102);
  url.run(106, 6, 'https://a.example/e', 2, 102);
  const page = db.prepare(
    `INSERT INTO pages (seq, url_id, status, headers, started_at, fetched_at, response_ms, relevance, hot, terms, redirect_to)
     VALUES (?, ?, ?, '[]', 0, 0, 0, ?, ?, ?, ?)`,
  );
  page.run(1, 101, 200, 0.2, 0, 'home page', null);
  page.run(2, 103, 301, null, 0, null, 104);
  page.run(3, 102, 200, 0.8, 1, 'solar energi', null);
  page.run(4, 104, 200, 0.7, 0, 'other', null);
  page.run(5, 106, 404, 0.1, 0, null, null);
  const link = db.prepare('INSERT INTO links (src_seq, dst_id, anchor, context_before, context_after) VALUES (?, ?, ?, ?, ?)');
  link.run(1, 102, 'Solar', 'read about', 'today');
  link.run(1, 103, 'B', '', 'after only');
  link.run(3, 105, 'D', '', '');
  link.run(3, 106, 'E', '', '');
  return db;
}

describe('loadLabGraph', () => {
  it('turns a collection into a lab graph: URLs, stored pages, links, redirects and terms', () => {
    const db = collection('load.db');
    const g = loadLabGraph(db);
    db.close();
    const node = (id: number): number => (g.sourceIds as Float64Array).indexOf(id);
    const links = (id: number): [number, string, string][] => {
      const out: [number, string, string][] = [];
      const v = node(id);
      for (let i = g.linkStart[v] as number; i < (g.linkEnd[v] as number); i++) {
        const text = g.linkText[i] as number;
        out.push([g.sourceIds?.[g.linkDst[i] as number] as number, g.anchors[text] as string, g.contexts[text] as string]);
      }
      return out;
    };
    assert.equal(g.nodeCount, 6);
    assert.deepEqual([...g.seeds].map((v) => g.sourceIds?.[v]), [101]);
    assert.equal(g.pageCount, 5);
    assert.equal(g.stored[node(105)], 0);
    assert.equal(g.hotCount, 1);
    assert.equal(g.hot[node(102)], 1);
    assert.equal(g.urls[node(104)], 'https://a.example/c');
    assert.deepEqual(links(101), [[102, 'Solar', 'read about today'], [103, 'B', 'after only']]);
    assert.deepEqual(links(103), [[104, '', '']], 'a redirect is a link to its target');
    assert.deepEqual(links(102), [[105, 'D', ''], [106, 'E', '']]);
    assert.deepEqual(links(106), []);
    const v = node(102);
    assert.deepEqual([...g.termIds.subarray(g.termStart[v], g.termEnd[v])].map((t) => g.termPool[t]), ['solar', 'energi']);
    assert.ok(Math.abs((g.relevance[v] as number) - 0.8) < 1e-6);
  });

  it('keeps site resources: their kinds, the sitemaps robots.txt named, and the hints re-read from their stored bodies', () => {
    const db = collection('resources.db');
    // 107: the sitemap robots.txt named (no parent), fetched after 101; it lists 102 (lastmod), 108 (a new URL) and 109 (never admitted).
    db.prepare(`INSERT INTO urls (id, fp, url, host_id, depth, state, parent_id, kind) VALUES (107, 7, 'https://a.example/sitemap.xml', 1, 1, 2, NULL, 1)`).run();
    db.prepare(`INSERT INTO urls (id, fp, url, host_id, depth, state, parent_id) VALUES (108, 8, 'https://a.example/f', 1, 2, 0, 107)`).run();
    const sitemap = `<urlset><url><loc>https://a.example/solar</loc><lastmod>2024-05-01</lastmod></url><url><loc>/f</loc><lastmod>2024</lastmod></url>
      <url><loc>https://elsewhere.example/g</loc><lastmod>2024</lastmod></url></urlset>`;
    db.prepare(`INSERT INTO pages (seq, url_id, status, headers, started_at, fetched_at, response_ms, body, note) VALUES (6, 107, 200, '[]', 0, 0, 0, ?, 'resource:sitemap')`).run(
      gzipSync(Buffer.from(sitemap)),
    );
    const link = db.prepare("INSERT INTO links (src_seq, dst_id, anchor, context_before, context_after) VALUES (6, ?, '', '', '')");
    link.run(102);
    link.run(108);
    const g = loadLabGraph(db);
    db.close();
    const node = (id: number): number => (g.sourceIds as Float64Array).indexOf(id);
    assert.deepEqual([...g.kinds].map((k, v) => [g.sourceIds?.[v], k]).filter(([, k]) => k !== 0), [[107, 1]]);
    assert.deepEqual([...g.resourceRoots], [node(107)]);
    assert.deepEqual([...g.resourceRootDepths], [1]);
    assert.deepEqual(g.hints.get(node(107)), [
      { id: node(102), source: 'sitemap', lastModified: Date.UTC(2024, 4, 1) },
      { id: node(108), source: 'sitemap', lastModified: Date.UTC(2024, 0, 1) },
    ]);
    assert.equal(g.hints.size, 1);
  });

  it('reads a collection older than site resources, opened as it is (a read-only tool)', () => {
    const path = join(dir, 'schema2.db');
    const raw = new Database(path);
    for (const migration of MIGRATIONS.slice(0, 2)) raw.exec(migration);
    raw.prepare("INSERT INTO urls (id, fp, url, host_id, depth, state, parent_id) VALUES (1, 1, 'https://a.example/', 1, 0, 2, NULL)").run();
    raw.prepare("INSERT INTO pages (seq, url_id, status, headers, started_at, fetched_at, response_ms) VALUES (1, 1, 200, '[]', 0, 0, 0)").run();
    const g = loadLabGraph(raw as unknown as Db);
    raw.close();
    assert.deepEqual([g.nodeCount, g.pageCount, [...g.kinds], g.resourceRoots.length, g.hints.size], [1, 1, [0], 0, 0]);
  });

  it('judges pages hot by a relevance threshold when asked', () => {
    const db = collection('threshold.db');
    const g = loadLabGraph(db, { hotThreshold: 0.7 });
    db.close();
    assert.equal(g.hotCount, 2);
    assert.equal(g.hot[(g.sourceIds as Float64Array).indexOf(104)], 1);
  });
});

describe('runLab', () => {
  it('reports PST and harvest per strategy and budget, with the collection query', () => {
    const db = collection('run.db');
    const report = runLab(db, { strategies: ['bfs', 'cho'], budgets: [0.4, 1] });
    const byThreshold = runLab(db, { strategies: ['bfs'], budgets: [0.4, 1], hot: '0.7' });
    assert.throws(() => runLab(db, { strategies: ['bfs'], budgets: [0.4], hot: '2' }), UsageError);
    assert.throws(() => runLab(db, { strategies: ['bfs', 'nope'], budgets: [0.4] }), UsageError);
    db.close();
    assert.deepEqual(report.collection, { urls: 6, pages: 5, hotPages: 1, links: 5, seeds: 1 });
    assert.equal(report.query, 'solar energy');
    assert.equal(report.randomSeed, 7);
    assert.equal(report.hotRule, 'stored hot flag');
    const bfs = report.results[0];
    // bfs: 101, 102 (hot), 103, then 105 passed over (never stored), 106, 104.
    assert.equal(bfs?.unavailable, 1);
    assert.deepEqual(bfs?.budgets.map((b) => [b.pages, b.pst, b.harvest]), [[2, 1, 0.5], [5, 1, 0.2]]);
    assert.equal(report.results[1]?.strategy, 'cho');
    assert.equal(byThreshold.hotRule, 'relevance >= 0.7');
    assert.deepEqual(byThreshold.results[0]?.budgets.map((b) => [b.pages, b.pst, b.harvest]), [[2, 0.5, 0.5], [5, 1, 0.4]]);
    assert.deepEqual(JSON.parse(JSON.stringify(report)), report);
  });
});
