import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../crawler/cli/main.ts';
import { MergeError, type MergeProblem } from '../../crawler/merge/merge-error.ts';
import { mergeShards, type MergeSummary } from '../../crawler/merge/merge-shards.ts';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { exportCollection } from '../../crawler/export/run-export.ts';
import { runLab } from '../../crawler/lab/run-lab.ts';
import { setLabel } from '../../crawler/library/labels.ts';
import { listPages } from '../../crawler/library/page-list.ts';
import { searchPages } from '../../crawler/library/search.ts';
import { collectionStats } from '../../crawler/library/stats.ts';
import type { CrawlSettings } from '../../crawler/protocol/settings.ts';
import { openCollection, type Db, type ReadonlyDb } from '../../crawler/store/database.ts';
import { OUT_OF_SCOPE_ORIGIN } from '../../crawler/store/host-store.ts';
import { loadSettings, saveSettings } from '../../crawler/store/settings-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { tempDir, testSettings } from '../support/crawl-harness.ts';

/*
 * A crawl cluster's shards, simulated: three small sites, each on a loopback address of its
 * own, each crawled into the shard of its partition with scope "hosts", so that links to the
 * other sites are stored skipped under the shard's out-of-scope host, as a worker stores
 * another partition's URLs; their reason is then made `partition:N`, and every shard gets
 * the cluster's one set of settings (all the seeds). A fourth site's URL (partition 9, never
 * crawled) stays a stub. Fetch times are rewritten to known values, so the merged fetch
 * order is known: A, B, C interleaved, B before C on equal times (lower shard first).
 */

const QUERY = 'aardvark bumblebee capybara';
const T0 = 1_700_000_000_000;

interface Site {
  origin: string;
  pages: Record<string, { title: string; body: string }>;
  close(): Promise<void>;
}

/** A site on its own loopback address: scope "hosts" ignores ports, so sites on one address would all be in scope. */
async function startSite(address: string): Promise<Site> {
  const site: Partial<Site> & { pages: Site['pages'] } = { pages: {} };
  const server: Server = createServer((req, res) => {
    const page = site.pages[req.url ?? '/'];
    if (page === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>${page.title}</title></head><body>${page.body}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  site.origin = `http://${address}:${(server.address() as AddressInfo).port}`;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site as Site;
}

function settingsFor(seeds: string[]): CrawlSettings {
  return testSettings(seeds, { query: QUERY, allowPrivate: true, scope: 'hosts' });
}

/** Crawls one site into a shard file; the connection stays open (a shard of a running crawl) until the caller closes it. */
async function crawlShard(path: string, seed: string, cluster: CrawlSettings): Promise<Db> {
  const db = openCollection(path, { create: true });
  const own = settingsFor([seed]);
  saveSettings(db, own);
  const outcome = await new CrawlEngine(db, own).run();
  assert.notEqual(outcome, 'store-error');
  // Every shard of a cluster holds the crawl's one set of settings.
  saveSettings(db, cluster);
  return db;
}

/** Turns the shard's out-of-scope URLs on these origins into stubs of their partitions. */
function makeStubs(db: Db, partitions: Record<string, number>): number {
  let n = 0;
  for (const [origin, partition] of Object.entries(partitions)) {
    n += db
      .prepare(`UPDATE urls SET reason = ? WHERE state = ${UrlState.skipped} AND reason = 'scope' AND substr(url, 1, length(?) + 1) = ? || '/'`)
      .run(`partition:${partition}`, origin, origin).changes;
  }
  return n;
}

/** Known fetch times: page k (in seq order) of a shard at T0 + 10k + offset. */
function setFetchTimes(db: Db, offset: number): void {
  const seqs = db.prepare('SELECT seq FROM pages ORDER BY seq').pluck().all() as number[];
  const update = db.prepare('UPDATE pages SET started_at = ?, fetched_at = ? WHERE seq = ?');
  seqs.forEach((seq, k) => update.run(T0 + 10 * k + offset - 3, T0 + 10 * k + offset, seq));
}

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

interface PageFact {
  url: string;
  fetchedAt: number;
  partition: number;
  seq: number;
}

function pageFacts(db: ReadonlyDb, partition: number): PageFact[] {
  return (db.prepare('SELECT u.url, p.fetched_at AS fetchedAt, p.seq FROM pages p JOIN urls u ON u.id = p.url_id').all() as Omit<PageFact, 'partition'>[]).map((r) => ({
    ...r,
    partition,
  }));
}

function linkFacts(db: ReadonlyDb): string[] {
  return (
    db
      .prepare(
        `SELECT s.url AS src, d.url AS dst, l.anchor, l.context_before AS before, l.context_after AS after
         FROM links l JOIN pages p ON p.seq = l.src_seq JOIN urls s ON s.id = p.url_id JOIN urls d ON d.id = l.dst_id`,
      )
      .all() as Record<string, string>[]
  )
    .map((r) => JSON.stringify(r))
    .sort();
}

async function rejectsWith(run: () => unknown, problem: MergeProblem, pattern: RegExp): Promise<void> {
  await assert.rejects(
    async () => run(),
    (err: unknown) => {
      assert.ok(err instanceof MergeError, `expected a MergeError, got ${String(err)}`);
      assert.equal(err.problem, problem, err.message);
      assert.match(err.message, pattern);
      return true;
    },
  );
}

/** Runs the CLI in this process (the built dist/ may be older than the sources) and returns its exit code and output. */
async function runMain(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  try {
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}

describe('forager merge: shards of a crawl cluster as one collection', () => {
  const tmp = tempDir('forager-merge-');
  const data = join(tmp.dir, 'data');
  let a: Site;
  let b: Site;
  let c: Site;
  /** Shard C stays open as a running crawl's would: what it wrote last is still in its WAL. */
  let running: Db;
  const PARTITION = { a: 1, b: 7, c: 42, d: 9 };
  const shardPath = (partition: number): string => join(data, `shard-${String(partition).padStart(3, '0')}.forager`);
  let cluster: CrawlSettings;
  let out: string;
  let summary: MergeSummary;
  let merged: ReadonlyDb;
  const facts: PageFact[] = [];
  const shardLinks: string[] = [];
  const stubUrls = new Set<string>();
  const ownedUrls = new Set<string>();
  const allUrls = new Set<string>();
  let hashes: Map<string, string>;
  let indexedInShards = 0;

  before(async () => {
    mkdirSync(data);
    [a, b, c] = await Promise.all([startSite('127.0.0.2'), startSite('127.0.0.3'), startSite('127.0.0.4')]);
    const d = 'http://127.0.0.5:9';
    Object.assign(a.pages, {
      '/': { title: 'Aardvark home', body: `<p>The aardvark digs.</p><a href="/a1">first aardvark</a> <a href="/a2">second aardvark</a> <a href="${b.origin}/b1">see the bumblebee</a> <a href="${d}/x">elsewhere</a>` },
      '/a1': { title: 'Aardvark one', body: `<p>An aardvark eats ants.</p><a href="${b.origin}/">bumblebee home</a> <a href="/a2">second</a>` },
      '/a2': { title: 'Aardvark two', body: '<p>Aardvark burrows.</p><a href="/">home</a>' },
    });
    Object.assign(b.pages, {
      '/': { title: 'Bumblebee home', body: `<p>The bumblebee hums.</p><a href="/b1">b1</a> <a href="/b2">b2</a> <a href="${a.origin}/a2">an aardvark page</a>` },
      '/b1': { title: 'Bumblebee one', body: '<p>A bumblebee in clover.</p><a href="/b2">b2</a>' },
      '/b2': { title: 'Bumblebee two', body: `<p>Bumblebee nests.</p><a href="${c.origin}/c1">a capybara</a>` },
    });
    Object.assign(c.pages, {
      '/': { title: 'Capybara home', body: '<p>The capybara swims.</p><a href="/c1">c1</a>' },
      '/c1': { title: 'Capybara one', body: `<p>Capybara bathes.</p><a href="${a.origin}/">aardvark home</a>` },
    });
    cluster = settingsFor([`${a.origin}/`, `${b.origin}/`, `${c.origin}/`]);
    // Crawled at the same time, as a cluster's workers do.
    const [dbA, dbB, dbC] = await Promise.all([
      crawlShard(shardPath(PARTITION.a), `${a.origin}/`, cluster),
      crawlShard(shardPath(PARTITION.b), `${b.origin}/`, cluster),
      crawlShard(shardPath(PARTITION.c), `${c.origin}/`, cluster),
    ]);
    const stubs = { [a.origin]: PARTITION.a, [b.origin]: PARTITION.b, [c.origin]: PARTITION.c, [d]: PARTITION.d };
    assert.equal(makeStubs(dbA, stubs), 3, 'shard A links to b/b1, b/ and d/x');
    assert.equal(makeStubs(dbB, stubs), 2);
    assert.equal(makeStubs(dbC, stubs), 1);
    setFetchTimes(dbA, 0);
    setFetchTimes(dbB, 5);
    setFetchTimes(dbC, 5);
    running = dbC;
    running.pragma('wal_autocheckpoint = 0');
    // A label written while "the crawl runs": it is in shard C's WAL only.
    setLabel(running, `${c.origin}/c1`, 'irrelevant');
    for (const [partition, db] of [[PARTITION.a, dbA], [PARTITION.b, dbB], [PARTITION.c, dbC]] as const) {
      facts.push(...pageFacts(db, partition));
      shardLinks.push(...linkFacts(db));
      indexedInShards += db.prepare('SELECT count(*) FROM pages_fts_docsize').pluck().get() as number;
      for (const row of db.prepare('SELECT url, reason FROM urls').all() as { url: string; reason: string | null }[]) {
        allUrls.add(row.url);
        if (row.reason?.startsWith('partition:') === true) stubUrls.add(row.url);
        else ownedUrls.add(row.url);
      }
    }
    dbA.close();
    dbB.close();
    hashes = new Map([PARTITION.a, PARTITION.b].map((p) => [shardPath(p), sha256(shardPath(p))]));
    out = join(tmp.dir, 'merged.forager');
    summary = mergeShards(data, out);
    merged = openCollection(out, { create: false, readonly: true });
  });

  after(async () => {
    merged?.close();
    running?.close();
    await Promise.all([a, b, c].map((site) => site?.close()));
    tmp.cleanup();
  });

  it('holds the union of the shards\' pages, each once, and opens with the library\'s read models', () => {
    const pages = [...listPages(merged)];
    const urls = pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'no page twice');
    assert.deepEqual(new Set(urls), new Set(facts.map((f) => f.url)));
    for (const path of ['/', '/a1', '/a2']) assert.ok(urls.includes(`${a.origin}${path}`), path);
    for (const path of ['/', '/b1', '/b2']) assert.ok(urls.includes(`${b.origin}${path}`), path);
    const stats = collectionStats(merged);
    assert.equal(stats.fetched, facts.length);
    assert.equal(stats.hosts, 3, 'one hosts row per origin, the out-of-scope row apart');
    assert.equal(summary.pages, facts.length);
    assert.equal(summary.shards, 3);
    assert.equal(summary.conflicts, 0);
    assert.equal(summary.runs, 3, 'one run per shard');
    assert.equal(merged.prepare('PRAGMA integrity_check').pluck().get(), 'ok');
    assert.equal(merged.prepare('SELECT count(*) FROM hosts WHERE origin = ?').pluck().get(OUT_OF_SCOPE_ORIGIN), 1);
  });

  it('has one URL row per URL: the owner\'s row over the stubs, a stub only where no shard owns it', () => {
    assert.equal(merged.prepare('SELECT count(*) FROM urls').pluck().get(), allUrls.size);
    assert.equal(merged.prepare('SELECT count(DISTINCT fp) FROM urls').pluck().get(), allUrls.size);
    const resolved = [...stubUrls].filter((url) => ownedUrls.has(url));
    assert.ok(resolved.length >= 5, `stubs with an owner: ${resolved.length}`);
    assert.equal(summary.stubsResolved, resolved.length);
    const row = merged.prepare('SELECT u.state, u.reason, h.origin FROM urls u JOIN hosts h ON h.id = u.host_id WHERE u.url = ?');
    for (const url of resolved) {
      const r = row.get(url) as { state: number; reason: string | null; origin: string };
      assert.ok(!(r.reason ?? '').startsWith('partition:'), `${url} is still a stub`);
      assert.notEqual(r.origin, OUT_OF_SCOPE_ORIGIN, `${url} is filed under its own host`);
    }
    assert.deepEqual(row.get('http://127.0.0.5:9/x'), { state: UrlState.skipped, reason: 'partition:9', origin: OUT_OF_SCOPE_ORIGIN });
    const fetchedB1 = row.get(`${b.origin}/b1`) as { state: number; origin: string };
    assert.equal(fetchedB1.state, UrlState.fetched);
    assert.equal(fetchedB1.origin, b.origin);
  });

  it('points links at the merged URLs: a link from a page of shard A reaches the page shard B fetched', () => {
    assert.deepEqual(linkFacts(merged), [...shardLinks].sort(), 'every link, with its anchor and context, between the same URLs');
    assert.equal(summary.links, shardLinks.length);
    const target = merged
      .prepare(
        `SELECT dp.title, l.anchor FROM links l JOIN pages sp ON sp.seq = l.src_seq JOIN urls s ON s.id = sp.url_id
         JOIN urls d ON d.id = l.dst_id JOIN pages dp ON dp.url_id = d.id WHERE s.url = ? AND d.url = ?`,
      )
      .get(`${a.origin}/`, `${b.origin}/b1`);
    assert.deepEqual(target, { title: 'Bumblebee one', anchor: 'see the bumblebee' });
    const back = merged
      .prepare(
        `SELECT dp.title FROM links l JOIN pages sp ON sp.seq = l.src_seq JOIN urls s ON s.id = sp.url_id
         JOIN urls d ON d.id = l.dst_id JOIN pages dp ON dp.url_id = d.id WHERE s.url = ? AND d.url = ?`,
      )
      .pluck()
      .get(`${c.origin}/c1`, `${a.origin}/`);
    assert.equal(back, 'Aardvark home');
    const dangling = merged.prepare('SELECT count(*) FROM links l LEFT JOIN urls u ON u.id = l.dst_id LEFT JOIN pages p ON p.seq = l.src_seq WHERE u.id IS NULL OR p.seq IS NULL').pluck().get();
    assert.equal(dangling, 0);
  });

  it('finds every shard\'s text through the full-text index', () => {
    for (const [word, site] of [['aardvark', a], ['bumblebee', b], ['capybara', c]] as const) {
      // Anchors on other sites name the word too: the site's own pages are what must be found.
      const own = searchPages(merged, word).filter((h) => h.url.startsWith(site.origin));
      assert.ok(own.length >= 2, `${word}: ${own.length} of the site's pages found`);
    }
    // One docsize row per indexed page (counting pages_fts itself would count the content table, pages).
    const fts = merged.prepare('SELECT count(*) FROM pages_fts_docsize').pluck().get() as number;
    assert.equal(fts, indexedInShards);
    const indexable = merged.prepare("SELECT count(*) FROM pages WHERE noindex = 0 AND (coalesce(title, '') <> '' OR coalesce(text, '') <> '')").pluck().get();
    assert.equal(fts, indexable);
  });

  it('orders pages by fetch time across shards, ties to the lower shard', () => {
    const expected = [...facts].sort((x, y) => x.fetchedAt - y.fetchedAt || x.partition - y.partition || x.seq - y.seq).map((f) => f.url);
    const order = [...listPages(merged)].map((p) => p.url);
    assert.deepEqual(order, expected);
    // Interleaved, not one shard after another.
    assert.ok(order[0]?.startsWith(a.origin) && order[1]?.startsWith(b.origin) && order[2]?.startsWith(c.origin), order.slice(0, 3).join(' '));
    const seqs = merged.prepare('SELECT seq FROM pages ORDER BY seq').pluck().all() as number[];
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1));
  });

  it('keeps what a running crawl\'s shard has in its WAL (a label), the settings, and the runs', () => {
    const label = merged.prepare('SELECT l.relevant, p.hot FROM labels l JOIN urls u ON u.id = l.url_id JOIN pages p ON p.url_id = u.id WHERE u.url = ?').get(`${c.origin}/c1`);
    assert.deepEqual(label, { relevant: 0, hot: 0 });
    const settings = loadSettings(merged);
    assert.equal(settings?.query, QUERY);
    assert.deepEqual(settings?.seeds, cluster.seeds);
    assert.equal(merged.prepare('SELECT count(*) FROM runs').pluck().get(), 3);
  });

  it('reads the shards without changing them', () => {
    for (const [path, hash] of hashes) assert.equal(sha256(path), hash, path);
  });

  it('is a collection the other commands use: export, lab, label', async () => {
    const jsonl = join(tmp.dir, 'merged.jsonl');
    const exported = await exportCollection(merged, 'jsonl', {}, jsonl);
    assert.ok(exported.pages >= 6, `exported ${exported.pages}`);
    const lab = runLab(merged, { strategies: ['bfs'], budgets: [0.5] });
    assert.equal(lab.collection.pages, facts.length);
    assert.equal(lab.collection.seeds, 3, "each shard's seed, at depth 0 without a parent");
    assert.equal(lab.collection.links, shardLinks.length);
    const copy = join(tmp.dir, 'labelled.forager');
    copyFileSync(out, copy);
    const db = openCollection(copy, { create: false });
    try {
      const result = setLabel(db, `${b.origin}/b2`, 'relevant');
      assert.equal(result.hot, true);
    } finally {
      db.close();
    }
  });

  it('prints a one-line summary, and replaces an existing collection only with --force', async () => {
    const target = join(tmp.dir, 'cli.forager');
    const first = await runMain(['merge', '--dir', data, '--db', target]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^merged 3 shards into .*cli\.forager: \d+ pages, \d+ urls, \d+ links, \d+ stubs resolved, 0 conflicts, \d+\.\d s\n$/);
    const before = sha256(target);
    const refused = await runMain(['merge', '--dir', data, '--db', target]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /already exists.*--force/);
    assert.equal(sha256(target), before, 'not overwritten');
    await rejectsWith(() => mergeShards(data, target), 'out-exists', /already exists/);
    const forced = await runMain(['merge', '--dir', data, '--db', target, '--force', '--json']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal((JSON.parse(forced.stdout) as MergeSummary).pages, facts.length);
    const reopened = openCollection(target, { create: false, readonly: true });
    assert.equal(collectionStats(reopened).fetched, facts.length);
    reopened.close();
    const usage = await runMain(['merge', '--db', target]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--dir is required/);
  });

  it('refuses a missing directory, a directory without shards, and shards of two crawls', async () => {
    await rejectsWith(() => mergeShards(join(tmp.dir, 'nowhere'), join(tmp.dir, 'x.forager')), 'no-dir', /does not exist/);
    const empty = join(tmp.dir, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'shard-7.forager'), 'not a shard name');
    await rejectsWith(() => mergeShards(empty, join(tmp.dir, 'x.forager')), 'no-shards', /holds no shards/);
    const other = join(tmp.dir, 'other');
    mkdirSync(other);
    copyFileSync(shardPath(PARTITION.a), join(other, 'shard-001.forager'));
    copyFileSync(shardPath(PARTITION.b), join(other, 'shard-007.forager'));
    const db = openCollection(join(other, 'shard-007.forager'), { create: false });
    saveSettings(db, { ...cluster, query: 'something else entirely' });
    db.close();
    await rejectsWith(() => mergeShards(other, join(tmp.dir, 'x.forager')), 'shards-disagree', /shard-001\.forager and shard-007\.forager.*queries differ/);
    assert.ok(!existsSync(join(tmp.dir, 'x.forager')));
  });

  it('names a damaged shard, and leaves no file behind', async () => {
    const bad = join(tmp.dir, 'bad');
    const outDir = join(tmp.dir, 'bad-out');
    mkdirSync(bad);
    mkdirSync(outDir);
    copyFileSync(shardPath(PARTITION.a), join(bad, 'shard-001.forager'));
    copyFileSync(shardPath(PARTITION.b), join(bad, 'shard-007.forager'));
    // Cut short: the pages the file's b-trees point at are gone.
    const cut = join(bad, 'shard-007.forager');
    truncateSync(cut, Math.floor(statSync(cut).size / 2));
    await rejectsWith(() => mergeShards(bad, join(outDir, 'm.forager')), 'damaged-shard', /shard-007\.forager.*damaged/);
    assert.deepEqual(readdirSync(outDir), [], 'neither the collection nor its temporary file');
    // Not a database at all.
    copyFileSync(shardPath(PARTITION.b), cut);
    writeFileSync(join(bad, 'shard-200.forager'), Buffer.alloc(8192, 0x5a));
    await rejectsWith(() => mergeShards(bad, join(outDir, 'm.forager')), 'damaged-shard', /shard-200\.forager/);
    assert.deepEqual(readdirSync(outDir), []);
  });

  it('keeps the first-fetched page when two shards stored one URL, and counts the other as a conflict', async () => {
    const twice = join(tmp.dir, 'twice');
    mkdirSync(twice);
    copyFileSync(shardPath(PARTITION.a), join(twice, 'shard-001.forager'));
    copyFileSync(shardPath(PARTITION.b), join(twice, 'shard-007.forager'));
    // Site A crawled again, later, into a lower partition's shard (a fenced worker's pages): the earlier pages must win, not the lower shard.
    const again = await crawlShard(join(twice, 'shard-000.forager'), `${a.origin}/`, cluster);
    makeStubs(again, { [b.origin]: PARTITION.b, ['http://127.0.0.5:9']: PARTITION.d });
    const repeated = (again.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[]).filter((url) => facts.some((f) => f.url === url && f.partition === PARTITION.a));
    again.close();
    assert.ok(repeated.length >= 3, `pages fetched twice: ${repeated.length}`);
    const target = join(tmp.dir, 'twice.forager');
    const result = mergeShards(twice, target);
    assert.equal(result.conflicts, repeated.length);
    const db = openCollection(target, { create: false, readonly: true });
    try {
      const urls = [...listPages(db)].map((p) => p.url);
      assert.equal(new Set(urls).size, urls.length);
      const fetchedAt = db.prepare('SELECT p.fetched_at FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?').pluck();
      for (const url of repeated) {
        const first = facts.find((f) => f.url === url && f.partition === PARTITION.a) as PageFact;
        assert.equal(fetchedAt.get(url), first.fetchedAt, `${url}: the page fetched first`);
      }
      // The dropped pages' links went with them: each link is one of the kept pages'.
      const expectedLinks = shardLinks.filter((l) => {
        const { src } = JSON.parse(l) as { src: string };
        return src.startsWith(a.origin) || src.startsWith(b.origin);
      });
      assert.deepEqual(linkFacts(db), [...new Set(expectedLinks)].sort());
    } finally {
      db.close();
    }
  });
});
