import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, deflateRawSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import yazl from 'yazl';
import { CrawlEngine } from '../../crawler/engine/engine.ts';
import { UsageError } from '../../crawler/errors.ts';
import { cdxjLine, sortCdxjLines, type CdxjEntry } from '../../crawler/export/wacz/cdxj.ts';
import { exportWacz } from '../../crawler/export/wacz/export.ts';
import { ImportError } from '../../crawler/import/import-error.ts';
import { importWacz, type ImportSummary } from '../../crawler/import/import-wacz.ts';
import { setLabel } from '../../crawler/library/labels.ts';
import { searchPages } from '../../crawler/library/search.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../../crawler/protocol/settings.ts';
import { validateSettings } from '../../crawler/settings.ts';
import { openCollection, type Db, type ReadonlyDb } from '../../crawler/store/database.ts';
import { loadSettings } from '../../crawler/store/settings-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type Handler, type TestSite } from '../support/test-site.ts';
import { TOPIC_QUERY, topicSite } from '../support/topic-site.ts';
import { buildVersionedCollection, type VersionedCollection } from '../support/versioned-collection.ts';

// ---------------------------------------------------------------------------------------
// Comparing a crawled collection with the one imported from its WACZ export.

/** Every stored column of a page that the export carries, keyed by URL. */
const PAGE_COLUMNS = `u.url, p.status, p.http_version, p.status_text, p.headers, p.content_type, p.charset, p.body, p.body_bytes, p.wire_bytes,
  p.title, p.text, p.terms, p.relevance, p.hot, p.noindex, p.nofollow, p.canonical, p.note, p.started_at, p.fetched_at,
  p.remote_address, p.request_head, p.payload, u.depth`;

type Row = Record<string, unknown>;

/** The export takes the 2xx responses: errors and redirects are crawl records, not pages. */
function exportedPages(db: ReadonlyDb): Map<string, Row> {
  const rows = db.prepare(`SELECT ${PAGE_COLUMNS} FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.status BETWEEN 200 AND 299 ORDER BY p.seq`).all() as Row[];
  return new Map(rows.map((r) => [r.url as string, r]));
}

function linksOf(db: ReadonlyDb, urls: ReadonlySet<string>): string[] {
  const rows = db
    .prepare(
      `SELECT s.url AS src, d.url AS dst, l.anchor, l.context_before AS before, l.context_after AS after
       FROM links l JOIN pages p ON p.seq = l.src_seq JOIN urls s ON s.id = p.url_id JOIN urls d ON d.id = l.dst_id`,
    )
    .all() as Row[];
  return rows.filter((r) => urls.has(r.src as string)).map((r) => JSON.stringify(r)).sort();
}

function labelsOf(db: ReadonlyDb): Row[] {
  return db.prepare('SELECT u.url, l.relevant FROM labels l JOIN urls u ON u.id = l.url_id ORDER BY u.url').all() as Row[];
}

/** URL rows in discovery order, with the parent's URL for its id. */
function urlRows(db: ReadonlyDb): Row[] {
  return db
    .prepare('SELECT u.url, u.depth, u.state, u.reason, u.redirects, p.url AS parent FROM urls u LEFT JOIN urls p ON p.id = u.parent_id ORDER BY u.id')
    .all() as Row[];
}

/** URLs of the site resources the crawl found through robots.txt rather than on a page. */
function robotsResources(db: ReadonlyDb): Set<string> {
  return new Set(db.prepare('SELECT url FROM urls WHERE kind <> 0 AND parent_id IS NULL AND depth > 0').pluck().all() as string[]);
}

/** The imported collection holds what the crawl stored, page by page, column by column. */
function assertSameCollection(original: ReadonlyDb, imported: ReadonlyDb, summary: ImportSummary): void {
  const before = exportedPages(original);
  const after = exportedPages(imported);
  assert.ok(before.size > 0);
  assert.deepEqual([...after.keys()], [...before.keys()], 'the same pages in the same fetch order');
  assert.equal(summary.pages, before.size);
  for (const [url, row] of before) {
    const copy = after.get(url) as Row;
    for (const [column, value] of Object.entries(row)) {
      // The export writes fetchedAt as an ISO date: milliseconds survive, fractions of one do not.
      const expected = column === 'fetched_at' ? Math.trunc(value as number) : value;
      assert.deepEqual(copy[column], expected, `${url}: ${column}`);
    }
  }
  const links = linksOf(original, new Set(before.keys()));
  assert.deepEqual(linksOf(imported, new Set(after.keys())), links, 'every page links to the same URLs with the same anchors and context');
  assert.equal(summary.links, links.length);
  assert.deepEqual(labelsOf(imported), labelsOf(original));
  assert.equal(summary.labels, labelsOf(original).length);
  assertSettingsCarriedSafely(loadSettings(original) as CrawlSettings, loadSettings(imported) as CrawlSettings, summary.tightened);
  assert.equal(summary.query, loadSettings(original)?.query);
}

/**
 * The archive's settings come back, except those an archive may not decide: private
 * addresses are off, politeness no lower and size caps no higher than this machine's
 * defaults. `tightened` names exactly the settings that changed.
 */
function assertSettingsCarriedSafely(original: CrawlSettings, imported: CrawlSettings, tightened: readonly string[]): void {
  const changed = (Object.keys(original) as (keyof CrawlSettings)[]).filter((key) => JSON.stringify(original[key]) !== JSON.stringify(imported[key]));
  assert.deepEqual([...tightened].sort(), changed.sort());
  assert.equal(imported.allowPrivate, false);
  assert.ok(imported.delayMs >= DEFAULT_SETTINGS.delayMs && imported.delayFactor >= DEFAULT_SETTINGS.delayFactor);
  assert.ok(imported.concurrency <= DEFAULT_SETTINGS.concurrency);
  assert.ok(imported.maxBodyBytes <= DEFAULT_SETTINGS.maxBodyBytes && imported.maxDecodedBytes <= DEFAULT_SETTINGS.maxDecodedBytes);
  for (const key of Object.keys(original) as (keyof CrawlSettings)[]) {
    if (!changed.includes(key)) assert.deepEqual(imported[key], original[key], key);
  }
}

/** Runs importCommand in a child process: the test runner's own messages share this process's stdout. */
/** `original` exported as the WACZ `waczPath` and imported again as `dbPath`: the import's summary and the new collection, read-only. */
async function exportThenImport(original: ReadonlyDb, waczPath: string, dbPath: string): Promise<{ summary: ImportSummary; imported: ReadonlyDb }> {
  await exportWacz(original, {}, waczPath);
  const summary = await importWacz(waczPath, dbPath);
  return { summary, imported: openCollection(dbPath, { create: false, readonly: true }) };
}

function runImportCommand(args: string[]): { code: number | null; out: string; err: string } {
  const script = `import { importCommand } from ${JSON.stringify(new URL('../../crawler/cli/commands/import.ts', import.meta.url).href)};
process.exitCode = await importCommand(${JSON.stringify(args)});`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { code: child.status, out: child.stdout, err: child.stderr };
}

// ---------------------------------------------------------------------------------------

describe('import of a crawl exported as WACZ (the topic site)', () => {
  const tmp = tempDir('forager-import-topic-');
  let site: TestSite;
  let original: ReadonlyDb;
  let imported: Db;
  let summary: ImportSummary;
  let settings: CrawlSettings;
  const importedPath = join(tmp.dir, 'imported.db');
  let filesAfterImport: string[];

  before(async () => {
    site = await startTestSite({}, topicSite('http://localhost:9'));
    settings = testSettings([`${site.origin}/`], { query: TOPIC_QUERY, maxPages: 40, allowPrivate: true });
    const run = await crawlOnce(tmp.dir, settings);
    setLabel(run.db, `${site.origin}/db/wal-0`, 'relevant');
    setLabel(run.db, `${site.origin}/`, 'irrelevant');
    run.db.close();
    original = openCollection(run.dbPath, { create: false, readonly: true });
    const waczPath = join(tmp.dir, 'crawl.wacz');
    await exportWacz(original, {}, waczPath);
    summary = await importWacz(waczPath, importedPath);
    filesAfterImport = readdirSync(tmp.dir).filter((name) => name.startsWith('imported'));
    imported = openCollection(importedPath, { create: false });
  });

  after(async () => {
    imported?.close();
    original?.close();
    await site?.close();
    tmp.cleanup();
  });

  test('the import leaves exactly one new file: the collection', () => {
    assert.deepEqual(filesAfterImport, ['imported.db']);
  });

  test('pages, status, title, text, verdicts, labels, links and settings come back as the crawl stored them', () => {
    assert.ok(labelsOf(original).length === 2);
    assert.ok(exportedPages(original).get(`${site.origin}/db/wal-0`)?.hot === 1);
    assert.equal(exportedPages(original).get(`${site.origin}/`)?.hot, 0, 'the irrelevant label made the home page cold');
    assertSameCollection(original, imported, summary);
  });

  test('full-text search finds the same pages in the same order', () => {
    for (const words of ['checkpoint', 'write-ahead recovery', 'sections', 'WAL segment']) {
      const hits = (db: ReadonlyDb): string[] => searchPages(db, words, { limit: 200 }).map((h) => h.url);
      assert.ok(hits(original).length > 0, words);
      assert.deepEqual(hits(imported), hits(original), words);
    }
  });

  test('URL rows match the crawl: same order, depths, states and parents, robots-blocked ones queued again', () => {
    // robots.txt is not in the archive, nor the seed host's /sitemap.xml it led to (a 404 here): the first resume asks again.
    const fromRobots = robotsResources(original);
    assert.deepEqual([...fromRobots].map((u) => new URL(u).pathname), ['/sitemap.xml']);
    const before = urlRows(original).filter((r) => !fromRobots.has(r.url as string));
    const after = urlRows(imported);
    assert.equal(after.length, before.length);
    assert.ok(before.some((r) => r.state === UrlState.robotsBlocked), 'the crawl met a robots.txt rule');
    // robots.txt is not in the archive: a blocked URL waits in the queue, and resume fetches robots.txt first.
    const expected = before.map((r) => (r.state === UrlState.robotsBlocked ? { ...r, state: UrlState.queued, reason: null } : r));
    assert.deepEqual(after, expected);
  });

  test('a resume continues the imported crawl without fetching any page twice', async () => {
    const fetchedBefore = new Set((imported.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[]).map((u) => new URL(u).pathname));
    const requestsBefore = site.requests.length;
    const stored = loadSettings(imported) as CrawlSettings;
    // The budget counts stored pages: the crawl's 404 for /sitemap.xml was not exported.
    // The archive could not carry allowPrivate, nor a delay below the default: the user turns them back on knowingly, as here.
    const engine = new CrawlEngine(imported, validateSettings({ ...stored, allowPrivate: true, delayMs: 0, delayFactor: 0, maxPages: fetchedBefore.size + 10 }), { parseWorkers: 0 });
    assert.equal(await engine.run(), 'budget');
    const pages = imported.prepare('SELECT count(*) FROM pages').pluck().get() as number;
    assert.equal(pages, fetchedBefore.size + 10);
    const asked = site.requests.slice(requestsBefore);
    assert.ok(asked.includes('/robots.txt'));
    assert.deepEqual(asked.filter((path) => fetchedBefore.has(path)), [], 'no imported page is fetched again');
  });
});

// ---------------------------------------------------------------------------------------

describe('import of a WACZ with page versions and revisits (a crawl and two refreshes)', () => {
  const tmp = tempDir('forager-import-versions-');
  let collection: VersionedCollection;
  let original: ReadonlyDb;
  let imported: ReadonlyDb;
  let summary: ImportSummary;
  let waczPath: string;

  before(async () => {
    collection = await buildVersionedCollection(tmp.dir);
    original = openCollection(collection.dbPath, { create: false, readonly: true });
    waczPath = join(tmp.dir, 'versions.wacz');
    ({ summary, imported } = await exportThenImport(original, waczPath, join(tmp.dir, 'imported.db')));
  });

  after(async () => {
    imported?.close();
    original?.close();
    collection?.db.close();
    await collection?.site.close();
    tmp.cleanup();
  });

  test('each page comes back as its latest version, as the crawl stored it', () => {
    const changed = original.prepare('SELECT count(*) FROM pages WHERE version > 1 AND status BETWEEN 200 AND 299').pluck().get() as number;
    assert.ok(changed >= 2, 'the archive holds pages with several versions');
    assertSameCollection(original, imported, summary);
    const etag = pageRow(imported, collection.url('/etag'));
    assert.match(gunzipSync(etag.body as Buffer).toString('utf8'), /and now the log too/, 'the second version, not the first');
  });

  test('says what it did not import: the other responses and the revisits, counted', () => {
    const count = (sql: string): number => original.prepare(sql).pluck().get() as number;
    const exported = 'SELECT seq FROM pages WHERE status BETWEEN 200 AND 299';
    const earlier = count(`SELECT count(*) FROM page_versions WHERE page_seq IN (${exported})`);
    const gone = count(`SELECT count(*) FROM revisits WHERE outcome = 'gone' AND page_seq IN (${exported})`);
    const revisits = count(`SELECT count(*) FROM revisits WHERE outcome IN ('not-modified', 'identical') AND page_seq IN (${exported})`);
    assert.ok(earlier > 0 && gone > 0 && revisits > 0);
    assert.deepEqual(summary.skipped, { responses: earlier + gone, revisits });
  });

  test('the command notes them', () => {
    const dbPath = join(tmp.dir, 'by-command.db');
    const { code, out, err } = runImportCommand(['--wacz', waczPath, '--db', dbPath]);
    assert.equal(code, 0);
    assert.match(out, new RegExp(`^imported ${summary.pages} pages `));
    assert.ok(
      err.includes(`forager: note: ${summary.skipped.responses} other responses and ${summary.skipped.revisits} revisits of the archive's pages were not imported: a collection keeps the latest version of each page\n`),
      err,
    );
  });
});

// ---------------------------------------------------------------------------------------

const ENCODED_HTML = (name: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Encoded with ${name}</title></head><body><p>Write-ahead logging, served as ${name}, survives export and import.</p><a href="/">home</a></body></html>`;

function encoded(name: string, encoding: string | null, encode: (b: Buffer) => Buffer): Handler {
  return (_req, res) => {
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', 'x-note': 'caf\xe9' };
    if (encoding !== null) headers['content-encoding'] = encoding;
    res.writeHead(200, headers).end(encode(Buffer.from(ENCODED_HTML(name))));
  };
}

const ENCODING_ROUTES: Record<string, Handler> = {
  '/robots.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n'),
  '/': (_req, res) => {
    const links = ['gzip', 'br', 'deflate', 'raw-deflate', 'chunked', 'manual.pdf'].map((p) => `<a href="/${p}">the ${p} page</a>`).join(' ');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>Encodings of write-ahead logging</title><p>${links}</p>`);
  },
  '/gzip': encoded('gzip', 'gzip', (b) => gzipSync(b)),
  '/br': encoded('br', 'br', (b) => brotliCompressSync(b)),
  '/deflate': encoded('deflate', 'deflate', (b) => deflateSync(b)),
  '/raw-deflate': encoded('raw deflate', 'deflate', (b) => deflateRawSync(b)),
  '/chunked': (_req, res) => {
    // Two writes without a length: Node sends Transfer-Encoding: chunked.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!doctype html><title>Chunked write-ahead logging</title><p>first chunk, ');
    res.end('second chunk</p>');
  },
  '/manual.pdf': (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.alloc(4096, 7)),
};

describe('import of a crawl exported as WACZ (content encodings, chunked, an unparsed PDF)', () => {
  const tmp = tempDir('forager-import-enc-');
  let site: TestSite;
  let original: ReadonlyDb;
  let imported: ReadonlyDb;
  let summary: ImportSummary;

  before(async () => {
    site = await startTestSite(ENCODING_ROUTES);
    // No documents read: the PDF is a type recorded from its headers (export-documents.test.ts imports documents).
    const run = await crawlOnce(tmp.dir, testSettings([`${site.origin}/`], { query: 'write-ahead logging', maxPages: 20, allowPrivate: true, documents: 'none' }));
    setLabel(run.db, `${site.origin}/manual.pdf`, 'relevant');
    run.db.close();
    original = openCollection(run.dbPath, { create: false, readonly: true });
    ({ summary, imported } = await exportThenImport(original, join(tmp.dir, 'enc.wacz'), join(tmp.dir, 'imported.db')));
  });

  after(async () => {
    imported?.close();
    original?.close();
    await site?.close();
    tmp.cleanup();
  });

  test('every column comes back, payloads as received included', () => {
    const pages = exportedPages(original);
    assert.equal(pages.size, 7);
    for (const path of ['/gzip', '/br', '/deflate', '/raw-deflate']) {
      const row = pages.get(`${site.origin}${path}`) as Row;
      assert.ok(Buffer.isBuffer(row.payload), `${path} keeps its payload as received`);
      assert.match(gunzipSync(row.body as Buffer).toString('utf8'), /survives export and import/);
    }
    const chunked = pages.get(`${site.origin}/chunked`) as Row;
    assert.ok((JSON.parse(chunked.headers as string) as [string, string][]).some(([name, value]) => name === 'Transfer-Encoding' && value === 'chunked'));
    const pdf = pages.get(`${site.origin}/manual.pdf`) as Row;
    assert.deepEqual([pdf.body, pdf.hot, pdf.relevance], [null, 1, null], 'a labelled page that was not parsed is hot by its label');
    assertSameCollection(original, imported, summary);
  });
});

// ---------------------------------------------------------------------------------------
// A WACZ made by hand after docs/archive-format.md, for what the exporter never writes
// (redirects, error pages) and for files that are not quite Forager's.

interface HandPage {
  url: string;
  date: string;
  /** The HTTP response head exactly: status line, header lines and the empty line. */
  head: string;
  payload: Buffer;
  request?: string;
  metadata?: Record<string, unknown>;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A WARC record with its digests given, so warcio keeps the block exactly as written. */
async function member(type: string, page: HandPage, block: Buffer, headers: Record<string, string>, payload: Buffer = block): Promise<Buffer> {
  const record = WARCRecord.create(
    {
      url: page.url,
      date: page.date,
      type: type as 'response',
      warcVersion: 'WARC/1.1',
      warcHeaders: { ...headers, 'WARC-Block-Digest': `sha256:${sha256(block)}`, 'WARC-Payload-Digest': `sha256:${sha256(payload)}` },
    },
    [block],
  );
  record.httpHeaders = null;
  return Buffer.from(await WARCSerializer.serialize(record, { gzip: true }));
}

interface HandWarc {
  bytes: Buffer;
  index: CdxjEntry[];
}

async function handWarc(info: Record<string, string>, pages: readonly HandPage[]): Promise<HandWarc> {
  const members: Buffer[] = [Buffer.from(await WARCSerializer.serialize(WARCRecord.createWARCInfo({ warcVersion: 'WARC/1.1', filename: 'data.warc.gz' }, info), { gzip: true }))];
  const index: CdxjEntry[] = [];
  let offset = members[0]?.length ?? 0;
  const add = (bytes: Buffer): number => {
    members.push(bytes);
    offset += bytes.length;
    return offset - bytes.length;
  };
  for (const page of pages) {
    const responseId = `<urn:uuid:${crypto.randomUUID()}>`;
    if (page.request !== undefined) {
      add(await member('request', page, Buffer.from(`${page.request}\r\n\r\n`, 'latin1'), { 'Content-Type': 'application/http; msgtype=request', 'WARC-Concurrent-To': responseId }, Buffer.alloc(0)));
    }
    const block = Buffer.concat([Buffer.from(page.head, 'latin1'), page.payload]);
    const response = await member('response', page, block, { 'WARC-Record-ID': responseId, 'Content-Type': 'application/http; msgtype=response' }, page.payload);
    const at = add(response);
    const status = Number(page.head.slice(9, 12));
    index.push({ url: page.url, date: Date.parse(page.date), mime: 'text/html', status, payloadDigest: `sha256:${sha256(page.payload)}`, offset: at, length: response.length, filename: 'data.warc.gz' });
    if (page.metadata !== undefined) {
      add(await member('metadata', page, Buffer.from(JSON.stringify({ forager: 1, ...page.metadata })), { 'Content-Type': 'application/json', 'WARC-Refers-To': responseId }));
    }
  }
  return { bytes: Buffer.concat(members), index };
}

/** A zip of stored entries; with `datapackage`, also the data package and its digest. */
async function writeZip(path: string, files: Record<string, Buffer>, datapackage = true): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, bytes] of Object.entries(files)) zip.addBuffer(bytes, name, { compress: false });
  if (datapackage) {
    const resources = Object.entries(files).map(([name, bytes]) => ({ name: name.split('/').at(-1), path: name, hash: `sha256:${sha256(bytes)}`, bytes: bytes.length }));
    const manifest = Buffer.from(JSON.stringify({ profile: 'data-package', wacz_version: '1.1.1', title: 'hand', resources }, null, 2));
    zip.addBuffer(manifest, 'datapackage.json', { compress: false });
    zip.addBuffer(Buffer.from(JSON.stringify({ path: 'datapackage.json', hash: `sha256:${sha256(manifest)}` })), 'datapackage-digest.json', { compress: false });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

/** A complete WACZ around a WARC: the index and page list point at its response records. */
async function packWacz(path: string, warc: HandWarc): Promise<void> {
  const index = sortCdxjLines(warc.index.map(cdxjLine));
  const pages = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'hand' }), ...warc.index.map((e, i) => JSON.stringify({ id: String(i), url: e.url, ts: new Date(e.date).toISOString() }))];
  await writeZip(path, {
    'archive/data.warc.gz': warc.bytes,
    'indexes/index.cdxj': Buffer.from(`${index.join('\n')}\n`),
    'pages/pages.jsonl': Buffer.from(`${pages.join('\n')}\n`),
  });
}

const HAND_QUERY = 'write-ahead logging';
const HAND_SETTINGS = testSettings(['http://site.test/'], { query: HAND_QUERY, maxDepth: 5, strategy: 'bfs' });
const HOME_HTML = `<!doctype html><html><head><title>Write-ahead logging at home</title></head><body>
<p>The write-ahead log keeps every checkpoint safe before it reaches the pages.</p>
<a href="/a">Alpha redirect</a> <a href="/down">Broken</a> <a href="http://other.test/x">Elsewhere</a></body></html>`;
const HOME_ENCODED = gzipSync(Buffer.from(HOME_HTML));
const T0 = Date.parse('2024-05-06T07:08:09.123Z');

function handPages(): HandPage[] {
  const date = (ms: number): string => new Date(T0 + ms).toISOString();
  return [
    {
      url: 'http://site.test/',
      date: date(0),
      request: 'GET / HTTP/1.1\r\nuser-agent: Forager/0.1.0\r\naccept-encoding: gzip, deflate, br',
      head: 'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Note: caf\xe9\r\n\r\n',
      payload: HOME_ENCODED,
      metadata: { query: HAND_QUERY, relevance: 0.42, hot: true, label: 'relevant', depth: 0, fetchedAt: new Date(T0 + 12).toISOString(), outlinks: [] },
    },
    {
      url: 'http://site.test/a',
      date: date(100),
      head: 'HTTP/1.1 301 Moved Permanently\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n',
      payload: Buffer.alloc(0),
      metadata: { query: HAND_QUERY, relevance: null, hot: false, label: null, depth: 1, fetchedAt: new Date(T0 + 103).toISOString() },
    },
    {
      url: 'http://site.test/down',
      date: date(300),
      head: 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nX-Forager-Transfer-Encoding: chunked\r\n\r\n',
      payload: Buffer.from('try later'),
    },
  ];
}

function warcinfo(settings: CrawlSettings | null): Record<string, string> {
  return {
    software: 'Forager/0.1.0',
    format: 'WARC File Format 1.1',
    'x-forager-query': settings?.query ?? HAND_QUERY,
    'x-forager-settings': JSON.stringify(settings),
  };
}

async function handWacz(path: string, info: Record<string, string> = warcinfo(HAND_SETTINGS), pages: HandPage[] = handPages()): Promise<void> {
  await packWacz(path, await handWarc(info, pages));
}

function pageRow(db: ReadonlyDb, url: string): Row {
  const row = db.prepare(`SELECT ${PAGE_COLUMNS}, p.redirect_to FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?`).get(url) as Row | undefined;
  assert.ok(row !== undefined, `no page for ${url}`);
  return row;
}

function urlRow(db: ReadonlyDb, url: string): Row {
  const row = db.prepare('SELECT id, state, reason, depth, redirects FROM urls WHERE url = ?').get(url) as Row | undefined;
  assert.ok(row !== undefined, `no URL row for ${url}`);
  return row;
}

describe('import of a hand-made Forager WACZ', () => {
  const tmp = tempDir('forager-import-hand-');
  const dbPath = join(tmp.dir, 'imported.db');
  let db: ReadonlyDb;
  let summary: ImportSummary;

  before(async () => {
    const waczPath = join(tmp.dir, 'hand.wacz');
    await handWacz(waczPath);
    summary = await importWacz(waczPath, dbPath);
    db = openCollection(dbPath, { create: false, readonly: true });
  });
  after(() => {
    db?.close();
    tmp.cleanup();
  });

  test('counts pages, links and labels', () => {
    // testSettings crawls loopback without politeness: an archive may not ask for that.
    assert.deepEqual(summary, { pages: 3, links: 3, labels: 1, query: HAND_QUERY, tightened: ['delayMs', 'delayFactor'], skipped: { responses: 0, revisits: 0 } });
  });

  test('a content-encoded page: payload as received, decoded body, headers byte for byte, the request as sent', () => {
    const home = pageRow(db, 'http://site.test/');
    assert.deepEqual([home.status, home.http_version, home.status_text], [200, '1.1', 'OK']);
    assert.deepEqual(JSON.parse(home.headers as string), [
      ['Content-Type', 'text/html; charset=utf-8'],
      ['Content-Encoding', 'gzip'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['X-Note', 'caf\xe9'],
    ]);
    assert.deepEqual(home.payload, HOME_ENCODED);
    assert.equal(gunzipSync(home.body as Buffer).toString('utf8'), HOME_HTML);
    assert.equal(home.body_bytes, Buffer.byteLength(HOME_HTML));
    assert.equal(home.wire_bytes, HOME_ENCODED.length);
    assert.equal(home.title, 'Write-ahead logging at home');
    assert.equal(home.request_head, 'GET / HTTP/1.1\r\nuser-agent: Forager/0.1.0\r\naccept-encoding: gzip, deflate, br\r\n');
    assert.deepEqual([home.started_at, home.fetched_at, home.relevance, home.hot], [T0, T0 + 12, 0.42, 1]);
    assert.deepEqual(searchPages(db, 'checkpoint').map((h) => h.url), ['http://site.test/']);
  });

  test('link targets become URL rows as a crawl makes them: in scope queued, out of scope skipped', () => {
    assert.deepEqual([urlRow(db, 'http://other.test/x').state, urlRow(db, 'http://other.test/x').reason, urlRow(db, 'http://other.test/x').depth], [UrlState.skipped, 'scope', 1]);
    assert.deepEqual([urlRow(db, 'http://site.test/').state, urlRow(db, 'http://site.test/').id], [UrlState.fetched, 1]);
  });

  test('a redirect points at its target, which waits in the queue', () => {
    const moved = pageRow(db, 'http://site.test/a');
    const target = urlRow(db, 'http://site.test/b');
    assert.equal(moved.redirect_to, target.id);
    assert.deepEqual([target.state, target.depth, target.redirects], [UrlState.queued, 1, 1]);
  });

  test('a 5xx page is stored with its URL failed; without metadata it has no relevance; Transfer-Encoding gets its name back', () => {
    const down = pageRow(db, 'http://site.test/down');
    assert.deepEqual([down.status, down.relevance, down.fetched_at], [503, null, T0 + 300]);
    assert.deepEqual(JSON.parse(down.headers as string), [['Content-Type', 'text/plain'], ['Transfer-Encoding', 'chunked']]);
    assert.deepEqual([urlRow(db, 'http://site.test/down').state, urlRow(db, 'http://site.test/down').reason], [UrlState.failed, 'http:503']);
  });
});

describe('import decisions for WACZ files with less in them', () => {
  const tmp = tempDir('forager-import-less-');
  after(() => tmp.cleanup());

  test('without crawl settings, the query comes from x-forager-query and the first page is the seed', async () => {
    const waczPath = join(tmp.dir, 'query-only.wacz');
    const dbPath = join(tmp.dir, 'query-only.db');
    await handWacz(waczPath, warcinfo(null), handPages().slice(0, 1));
    assert.equal((await importWacz(waczPath, dbPath)).pages, 1);
    const db = openCollection(dbPath, { create: false, readonly: true });
    try {
      const settings = loadSettings(db);
      assert.deepEqual([settings?.query, settings?.seeds], [HAND_QUERY, ['http://site.test/']]);
    } finally {
      db.close();
    }
  });

  test('a WACZ another tool wrote (no Forager fields in warcinfo) is refused, leaving nothing', async () => {
    const waczPath = join(tmp.dir, 'foreign.wacz');
    const dbPath = join(tmp.dir, 'foreign.db');
    await handWacz(waczPath, { software: 'another crawler' }, handPages().slice(0, 1));
    const before = readdirSync(tmp.dir).sort();
    await assert.rejects(importWacz(waczPath, dbPath), (err: unknown) => err instanceof ImportError && /was not written by Forager/.test(err.message));
    assert.deepEqual(readdirSync(tmp.dir).sort(), before);
  });
});

describe('refused files leave nothing behind', () => {
  const tmp = tempDir('forager-import-bad-');
  const goodPath = join(tmp.dir, 'good.wacz');
  let good: Buffer;
  before(async () => {
    await handWacz(goodPath);
    good = readFileSync(goodPath);
  });
  after(() => tmp.cleanup());

  async function refused(name: string, bytes: Buffer | undefined, pattern: RegExp): Promise<void> {
    const waczPath = join(tmp.dir, `${name}.wacz`);
    if (bytes !== undefined) writeFileSync(waczPath, bytes);
    const dbPath = join(tmp.dir, `${name}.db`);
    const before = readdirSync(tmp.dir).sort();
    await assert.rejects(importWacz(waczPath, dbPath), (err: unknown) => {
      assert.ok(err instanceof ImportError, `expected an ImportError, got ${String(err)}`);
      assert.match(err.message, pattern);
      assert.doesNotMatch(err.message, /\n/, 'one line');
      return true;
    });
    assert.equal(existsSync(dbPath), false);
    assert.deepEqual(readdirSync(tmp.dir).sort(), before, 'no temporary file is left');
  }

  test('the good file imports (so the refusals below are about the damage)', async () => {
    const dbPath = join(tmp.dir, 'good.db');
    assert.equal((await importWacz(goodPath, dbPath)).pages, 3);
  });

  test('a missing file', () => refused('missing', undefined, /^no file at .*missing\.wacz$/));

  test('a file that is not a zip', () => refused('text', Buffer.from('this is not a zip archive at all\n'.repeat(10)), /text\.wacz is not a readable zip file/));

  test('a truncated file', () => refused('truncated', good.subarray(0, Math.floor(good.length * 0.8)), /truncated\.wacz is not a readable zip file/));

  test('a flipped byte inside the WARC', () => {
    const bytes = Buffer.from(good);
    // The WARC is the zip's first entry, stored: past its local header (30 bytes, the name, a few extra) lie its own bytes.
    const at = 30 + 'archive/data.warc.gz'.length + 200;
    bytes[at] = (bytes[at] as number) ^ 0xff;
    return refused('flipped', bytes, /flipped\.wacz is not a valid WACZ: .*archive\/data\.warc\.gz.* \(and \d+ more problems?\)$/);
  });

  test('a zip without datapackage.json', async () => {
    await writeZip(join(tmp.dir, 'no-datapackage.wacz'), { 'archive/data.warc.gz': (await handWarc(warcinfo(HAND_SETTINGS), handPages())).bytes }, false);
    await refused('no-datapackage', undefined, /is not a valid WACZ: datapackage\.json is missing/);
  });

  test('a WARC cut short whose data package was made for the cut file', async () => {
    const warc = await handWarc(warcinfo(HAND_SETTINGS), handPages());
    await packWacz(join(tmp.dir, 'cut-warc.wacz'), { ...warc, bytes: warc.bytes.subarray(0, warc.bytes.length - 30) });
    await refused('cut-warc', undefined, /cut-warc\.wacz is not a valid WACZ: /);
  });

  test('an archive cannot turn on private addresses, drop politeness or lift the size caps', async () => {
    const waczPath = join(tmp.dir, 'greedy.wacz');
    const dbPath = join(tmp.dir, 'greedy.db');
    const greedy = { ...HAND_SETTINGS, allowPrivate: true, scope: 'any', delayMs: 0, delayFactor: 0, concurrency: 256, maxBodyBytes: 2 ** 53 - 1, maxDecodedBytes: 2 ** 53 - 1 };
    await handWacz(waczPath, warcinfo(greedy as CrawlSettings));
    const summary = await importWacz(waczPath, dbPath);
    assert.deepEqual([...summary.tightened].sort(), ['allowPrivate', 'concurrency', 'delayFactor', 'delayMs', 'maxBodyBytes', 'maxDecodedBytes']);
    const db = openCollection(dbPath, { create: false, readonly: true });
    try {
      const stored = loadSettings(db) as CrawlSettings;
      assert.deepEqual(
        [stored.allowPrivate, stored.delayMs, stored.delayFactor, stored.concurrency, stored.maxBodyBytes, stored.maxDecodedBytes],
        [false, DEFAULT_SETTINGS.delayMs, DEFAULT_SETTINGS.delayFactor, DEFAULT_SETTINGS.concurrency, DEFAULT_SETTINGS.maxBodyBytes, DEFAULT_SETTINGS.maxDecodedBytes],
      );
      assert.equal(stored.scope, 'any', 'the scope is the crawl\'s own: with private addresses off it reaches only the public web');
    } finally {
      db.close();
    }
  });

  test('settings that fail validation', async () => {
    await packWacz(join(tmp.dir, 'bad-settings.wacz'), await handWarc(warcinfo({ ...HAND_SETTINGS, concurrency: 0 }), handPages()));
    await refused('bad-settings', undefined, /the crawl settings in .*bad-settings\.wacz are not usable: concurrency must be a whole number/);
  });

  test('a page found malformed after pages were stored: refused, and its parse workers stopped so the process can end', async () => {
    const pages = handPages();
    (pages[1] as HandPage).metadata = { relevance: 'high' };
    await packWacz(join(tmp.dir, 'late.wacz'), await handWarc(warcinfo(HAND_SETTINGS), pages));
    await refused('late', undefined, /the Forager metadata for http:\/\/site\.test\/a is malformed/);
    // Live worker threads keep a process from ending: a child that imports it must end by itself.
    const script = `import { importWacz } from ${JSON.stringify(new URL('../../crawler/import/import-wacz.ts', import.meta.url).href)};
await importWacz(${JSON.stringify(join(tmp.dir, 'late.wacz'))}, ${JSON.stringify(join(tmp.dir, 'late-child.db'))}).catch((err) => console.log(err.message));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.signal, null, 'the process ended by itself');
    assert.match(child.stdout, /is malformed/);
  });

  test('an existing --db is a usage error, and is left as it was', async () => {
    const dbPath = join(tmp.dir, 'existing.db');
    writeFileSync(dbPath, 'precious');
    const before = readdirSync(tmp.dir).sort();
    await assert.rejects(importWacz(goodPath, dbPath), (err: unknown) => err instanceof UsageError && err.message === `${dbPath} already exists; import needs a new --db`);
    assert.equal(readFileSync(dbPath, 'utf8'), 'precious');
    assert.deepEqual(readdirSync(tmp.dir).sort(), before);
  });
});

describe('forager import (the command)', () => {
  const tmp = tempDir('forager-import-cli-');
  const waczPath = join(tmp.dir, 'hand.wacz');
  before(() => handWacz(waczPath));
  after(() => tmp.cleanup());

  function runImport(args: string[]): { code: number | null; out: string } {
    const { code, out } = runImportCommand(args);
    return { code, out };
  }

  test('prints one line naming the counts, the query and the new collection', () => {
    const dbPath = join(tmp.dir, 'new.db');
    assert.deepEqual(runImport(['--wacz', waczPath, '--db', dbPath]), {
      code: 0,
      out: `imported 3 pages (3 links, 1 labels) for the query "${HAND_QUERY}" into ${dbPath}\n`,
    });
  });

  test('--json prints the summary as JSON', () => {
    const dbPath = join(tmp.dir, 'json.db');
    const { code, out } = runImport(['--wacz', waczPath, '--db', dbPath, '--json']);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(out), { pages: 3, links: 3, labels: 1, query: HAND_QUERY, tightened: ['delayMs', 'delayFactor'], skipped: { responses: 0, revisits: 0 }, db: dbPath });
  });

  test('a missing option is a usage error', async () => {
    const { importCommand } = await import('../../crawler/cli/commands/import.ts');
    await assert.rejects(importCommand(['--wacz', waczPath]), (err: unknown) => err instanceof UsageError && err.message === 'import: --db is required');
  });
});
