import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CDXIndexer, getSurt, WARCParser } from 'warcio';
import { openPromise, type ZipFile } from 'yauzl';
import { ZipFile as ZipWriter } from 'yazl';
import { ExportError } from '../../crawler/export/export-error.ts';
import { exportWacz } from '../../crawler/export/wacz/export.ts';
import { verifyWacz } from '../../crawler/export/wacz/verify.ts';
import { exportWarc } from '../../crawler/export/warc/export.ts';
import { ORIGINAL_TRANSFER_ENCODING } from '../../crawler/export/warc/http.ts';
import { setLabel } from '../../crawler/library/labels.ts';
import { openCollection, type Db, type ReadonlyDb } from '../../crawler/store/database.ts';
import { loadSettings } from '../../crawler/store/settings-store.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { startTestSite, type TestSite } from '../support/test-site.ts';
import { TOPIC_QUERY, topicSite } from '../support/topic-site.ts';

// The loopback site sends identity bodies; these routes add a gzip-encoded page, a chunked
// page with a non-ASCII (latin1) header byte, and a type the crawler does not download (the
// crawl reads no documents: export-documents.test.ts exports those).
const GZIP_HTML = '<!doctype html><html><head><title>Compressed notes on write-ahead logging</title></head><body><p>checkpoint and write-ahead log</p><a href="/db/wal-1">next</a></body></html>';
const GZIP_BYTES = gzipSync(Buffer.from(GZIP_HTML), { level: 9 });
const CHUNKS = ['<!doctype html><html><head><title>Chunked checkpoints</title></head><body>', '<p>checkpoint tuning and the write-ahead log</p></body></html>'];

interface StoredPage {
  seq: number;
  url: string;
  status: number;
  headers: string;
  requestHead: string | null;
  startedAt: number;
  relevance: number | null;
  hot: number;
  depth: number;
  title: string | null;
  label: number | null;
}

interface ReadRecord {
  type: string;
  header: (name: string) => string | null;
  block: Buffer;
  offset: number;
}

async function readWarc(path: string): Promise<ReadRecord[]> {
  const parser = new WARCParser(createReadStream(path), { parseHttp: false });
  const records: ReadRecord[] = [];
  for await (const record of parser) {
    const block = Buffer.from(await record.readFully(false));
    const headers = record.warcHeaders.headers;
    records.push({ type: record.warcType, header: (name) => headers.get(name) ?? null, block, offset: parser.offset });
  }
  return records;
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function splitHttp(block: Buffer): { head: string; payload: Buffer } {
  const end = block.indexOf('\r\n\r\n');
  assert.ok(end > 0, 'an HTTP block has a head');
  return { head: block.subarray(0, end).toString('latin1'), payload: block.subarray(end + 4) };
}

async function zipEntries(path: string): Promise<Map<string, { bytes: Buffer; method: number }>> {
  const zip: ZipFile = await openPromise(path, { autoClose: false });
  const out = new Map<string, { bytes: Buffer; method: number }>();
  try {
    for await (const entry of zip.eachEntry()) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      out.set(entry.fileName, { bytes: Buffer.concat(chunks), method: entry.compressionMethod });
    }
  } finally {
    zip.close();
  }
  return out;
}

async function writeZip(path: string, entries: Map<string, Buffer>): Promise<void> {
  const zip = new ZipWriter();
  for (const [name, bytes] of entries) zip.addBuffer(bytes, name, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  writeFileSync(path, Buffer.concat(chunks));
}

describe('export: WARC and WACZ', () => {
  let site: TestSite;
  let db: Db;
  let readonly: ReadonlyDb;
  let pages: StoredPage[];
  const dir = tempDir('forager-warc-');
  const url = (path: string): string => `${site.origin}${path}`;
  const extras = (): string[] => ['/extra/gzip', '/extra/chunked', '/extra/report.pdf'].map(url);

  before(async () => {
    site = await startTestSite(
      {
        '/extra/gzip': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip', 'content-length': String(GZIP_BYTES.length) }).end(GZIP_BYTES);
        },
        '/extra/chunked': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-note': 'caf\u00e9' });
          res.write(CHUNKS[0]);
          res.end(CHUNKS[1]);
        },
        '/extra/report.pdf': (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.alloc(2048, 7));
        },
      },
      topicSite('http://127.0.0.1:9'),
    );
    // Breadth-first fetches every seed before the pages they lead to, so the extras are in the export whatever the focused order makes of them.
    const run = await crawlOnce(dir.dir, testSettings([url('/'), ...extras()], { query: TOPIC_QUERY, maxPages: 30, allowPrivate: true, strategy: 'bfs', documents: 'none' }));
    db = run.db;
    setLabel(db, url('/db/wal-0'), 'relevant');
    setLabel(db, url('/extra/chunked'), 'irrelevant');
    readonly = openCollection(run.dbPath, { create: false, readonly: true });
    pages = db
      .prepare(
        `SELECT p.seq, u.url, p.status, p.headers, p.request_head AS requestHead, p.started_at AS startedAt, p.relevance, p.hot, u.depth, p.title, l.relevant AS label
         FROM pages p JOIN urls u ON u.id = p.url_id LEFT JOIN labels l ON l.url_id = p.url_id
         WHERE p.status BETWEEN 200 AND 299 ORDER BY p.seq`,
      )
      .all() as StoredPage[];
    for (const extra of extras()) assert.ok(pages.some((p) => p.url === extra), `the crawl fetched ${extra}`);
  });

  after(async () => {
    readonly.close();
    db.close();
    await site.close();
    dir.cleanup();
  });

  it('writes warcinfo, then request, response and metadata per page in fetch order, with true digests', async () => {
    const out = join(dir.dir, 'all.warc.gz');
    const summary = await exportWarc(readonly, {}, out);
    assert.deepEqual(summary, { path: out, pages: pages.length, records: 1 + 3 * pages.length, bytes: statSync(out).size });
    const records = await readWarc(out);
    assert.equal(records.length, summary.records);

    const [info, ...rest] = records;
    assert.equal(info?.type, 'warcinfo');
    assert.equal(info.header('WARC-Filename'), 'all.warc.gz');
    const fields = info.block.toString('utf8');
    assert.match(fields, /^software: Forager\/\d+\.\d+\.\d+\r\n/m);
    assert.match(fields, /^format: WARC File Format 1\.1\r\n/m);
    assert.match(fields, /^isPartOf: crawl\r\n/m);
    assert.ok(fields.includes(`x-forager-query: ${TOPIC_QUERY}\r\n`));
    const settingsJson = /^x-forager-settings: (.*)\r$/m.exec(fields)?.[1];
    assert.deepEqual(JSON.parse(settingsJson ?? 'null'), loadSettings(db));
    const warcinfoId = info.header('WARC-Record-ID');

    pages.forEach((page, i) => {
      const [request, response, metadata] = rest.slice(3 * i, 3 * i + 3) as [ReadRecord, ReadRecord, ReadRecord];
      assert.deepEqual([request.type, response.type, metadata.type], ['request', 'response', 'metadata'], page.url);
      for (const record of [request, response, metadata]) {
        assert.equal(record.header('WARC-Target-URI'), page.url);
        assert.equal(record.header('WARC-Date'), new Date(page.startedAt).toISOString());
        assert.match(record.header('WARC-Date') ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.equal(record.header('WARC-Block-Digest'), sha256(record.block), `block digest of the ${record.type} of ${page.url}`);
        assert.equal(record.header('WARC-Warcinfo-ID'), warcinfoId);
      }
      const responseId = response.header('WARC-Record-ID');
      assert.equal(request.header('WARC-Concurrent-To'), responseId);
      assert.equal(metadata.header('WARC-Refers-To'), responseId);
      assert.equal(response.header('WARC-IP-Address'), '127.0.0.1');

      const sent = splitHttp(request.block);
      assert.equal(`${sent.head}\r\n`, page.requestHead, 'the request as sent');
      assert.equal(sent.payload.length, 0);

      const received = splitHttp(response.block);
      const [statusLine, ...headerLines] = received.head.split('\r\n');
      assert.equal(statusLine, `HTTP/1.1 ${page.status} OK`);
      const expectedHeaders = (JSON.parse(page.headers) as [string, string][]).map(([n, v]) => `${n.toLowerCase() === 'transfer-encoding' ? ORIGINAL_TRANSFER_ENCODING : n}: ${v}`);
      assert.deepEqual(headerLines, expectedHeaders, `headers of ${page.url}`);
      assert.equal(response.header('WARC-Payload-Digest'), sha256(received.payload), `payload digest of ${page.url}`);

      const meta = JSON.parse(metadata.block.toString('utf8')) as Record<string, unknown>;
      assert.equal(metadata.header('Content-Type'), 'application/json');
      assert.equal(meta.forager, 1);
      assert.equal(meta.query, TOPIC_QUERY);
      assert.equal(meta.relevance, page.relevance);
      assert.equal(meta.hot, page.hot === 1);
      assert.equal(meta.label, page.label === null ? null : page.label === 1 ? 'relevant' : 'irrelevant');
      assert.equal(meta.depth, page.depth);
      assert.equal(meta.title, page.title);
      const links = db.prepare('SELECT u.url, l.anchor FROM links l JOIN urls u ON u.id = l.dst_id WHERE l.src_seq = ? ORDER BY u.url').all(page.seq);
      assert.deepEqual([...(meta.outlinks as { url: string }[])].sort((a, b) => a.url.localeCompare(b.url)), links);
    });

    const byUrl = (target: string): ReadRecord[] => rest.filter((r) => r.header('WARC-Target-URI') === target);
    const labels = byUrl(url('/db/wal-0')).find((r) => r.type === 'metadata');
    assert.equal((JSON.parse(labels?.block.toString('utf8') ?? '{}') as { label?: string }).label, 'relevant');

    // Payloads as the server sent them: the gzip route's compressed bytes, the chunked route de-chunked.
    const gzipResponse = byUrl(url('/extra/gzip')).find((r) => r.type === 'response') as ReadRecord;
    assert.deepEqual(splitHttp(gzipResponse.block).payload, GZIP_BYTES);
    assert.match(splitHttp(gzipResponse.block).head, /^content-encoding: gzip$/im);
    const chunked = byUrl(url('/extra/chunked')).find((r) => r.type === 'response') as ReadRecord;
    assert.equal(splitHttp(chunked.block).payload.toString('utf8'), CHUNKS.join(''));
    assert.ok(chunked.block.includes(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a])), 'the latin1 header byte is written as received');
    assert.match(splitHttp(chunked.block).head, new RegExp(`^${ORIGINAL_TRANSFER_ENCODING}: chunked$`, 'm'));
    for (const page of pages.filter((p) => !extras().includes(p.url))) {
      const response = byUrl(page.url).find((r) => r.type === 'response') as ReadRecord;
      const served = Buffer.from(await (await fetch(page.url)).arrayBuffer());
      assert.deepEqual(splitHttp(response.block).payload, served, `payload of ${page.url}`);
    }
    // A body the crawler did not download is marked truncated, with an empty payload.
    const pdf = byUrl(url('/extra/report.pdf')).find((r) => r.type === 'response') as ReadRecord;
    assert.equal(pdf.header('WARC-Truncated'), 'unspecified');
    assert.equal(splitHttp(pdf.block).payload.length, 0);
    assert.equal(gzipResponse.header('WARC-Truncated'), null);
  });

  it('reads back with warcio as a replay tool would: status and content decoded', async () => {
    const out = join(dir.dir, 'replay.warc.gz');
    await exportWarc(readonly, {}, out);
    const seen = new Map<string, string>();
    for await (const record of new WARCParser(createReadStream(out))) {
      if (record.warcType !== 'response') continue;
      assert.equal(record.httpHeaders?.statusCode, 200);
      seen.set(record.warcTargetURI ?? '', await record.contentText());
    }
    assert.equal(seen.get(url('/extra/gzip')), GZIP_HTML);
    assert.equal(seen.get(url('/extra/chunked')), CHUNKS.join(''));
    assert.equal(seen.size, pages.length);
  });

  it('rebuilds the request of a page stored before schema 2 from the crawl settings', async () => {
    const target = pages.find((p) => p.url === url('/extra/gzip')) as StoredPage;
    db.prepare('UPDATE pages SET request_head = NULL WHERE seq = ?').run(target.seq);
    try {
      const out = join(dir.dir, 'rebuilt.warc.gz');
      await exportWarc(readonly, {}, out);
      const request = (await readWarc(out)).find((r) => r.type === 'request' && r.header('WARC-Target-URI') === target.url) as ReadRecord;
      const host = new URL(site.origin).host;
      const userAgent = loadSettings(db)?.userAgent ?? '';
      assert.match(request.block.toString('latin1'), new RegExp(`^GET /extra/gzip HTTP/1\\.1\\r\\nhost: ${host.replace(/\./g, '\\.')}\\r\\nuser-agent: ${userAgent.replace(/[.()+/]/g, '\\$&')}\\r\\naccept: [^\\r]+\\r\\naccept-encoding: gzip, deflate, br\\r\\n\\r\\n$`));
    } finally {
      db.prepare('UPDATE pages SET request_head = ? WHERE seq = ?').run(target.requestHead, target.seq);
    }
  });

  it('applies the filters, and refuses an empty selection', async () => {
    const hot = pages.filter((p) => p.hot === 1);
    assert.ok(hot.length > 0 && hot.length < pages.length, 'the crawl has hot and other pages');
    const out = join(dir.dir, 'hot.warc.gz');
    const summary = await exportWarc(readonly, { hotOnly: true }, out);
    assert.equal(summary.pages, hot.length);
    assert.equal(summary.records, 1 + 3 * hot.length);
    const responses = (await readWarc(out)).filter((r) => r.type === 'response').map((r) => r.header('WARC-Target-URI'));
    assert.deepEqual(responses, hot.map((p) => p.url));

    const labelled = await exportWacz(readonly, { labelledRelevant: true }, join(dir.dir, 'labelled.wacz'));
    assert.equal(labelled.pages, 1);
    assert.equal((await verifyWacz(labelled.path)).ok, true);

    for (const write of [exportWarc, exportWacz]) {
      const empty = join(dir.dir, `empty-${write.name}`);
      await assert.rejects(write(readonly, { host: 'example.org' }, empty), (err: unknown) => err instanceof ExportError && /no page matches/.test(err.message));
      assert.equal(existsSync(empty), false);
    }
  });

  it('writes a WACZ whose entries, digests, index and page list check out', async () => {
    const out = join(dir.dir, 'all.wacz');
    const before = new Set(readdirSync(dir.dir));
    const summary = await exportWacz(readonly, {}, out);
    assert.deepEqual(readdirSync(dir.dir).filter((f) => !before.has(f)), ['all.wacz'], 'no temporary file is left');
    assert.equal(summary.pages, pages.length);
    assert.equal(summary.records, 1 + 3 * pages.length);
    assert.equal(summary.bytes, statSync(out).size);

    const check = await verifyWacz(out);
    assert.deepEqual(check.errors, []);
    assert.equal(check.ok, true);
    assert.deepEqual([check.records, check.responses, check.indexLines, check.pages], [summary.records, pages.length, pages.length, pages.length]);

    const entries = await zipEntries(out);
    assert.deepEqual([...entries.keys()], ['archive/data.warc.gz', 'indexes/index.cdxj', 'pages/pages.jsonl', 'datapackage.json', 'datapackage-digest.json']);
    for (const [name, entry] of entries) assert.equal(entry.method, 0, `${name} is stored, not deflated`);
    const bytesOf = (name: string): Buffer => (entries.get(name) as { bytes: Buffer }).bytes;

    const datapackage = JSON.parse(bytesOf('datapackage.json').toString('utf8')) as Record<string, unknown>;
    assert.equal(datapackage.profile, 'data-package');
    assert.equal(datapackage.wacz_version, '1.1.1');
    assert.equal(datapackage.title, TOPIC_QUERY);
    assert.match(String(datapackage.software), /^Forager\//);
    assert.ok(!Number.isNaN(Date.parse(String(datapackage.created))));
    const seed = pages.find((p) => p.url === url('/')) as StoredPage;
    assert.equal(datapackage.mainPageUrl, seed.url);
    assert.equal(datapackage.mainPageDate, new Date(seed.startedAt).toISOString());
    assert.deepEqual(
      datapackage.resources,
      ['archive/data.warc.gz', 'indexes/index.cdxj', 'pages/pages.jsonl'].map((path) => ({
        name: path.slice(path.lastIndexOf('/') + 1),
        path,
        hash: sha256(bytesOf(path)),
        bytes: bytesOf(path).length,
      })),
    );
    assert.deepEqual(JSON.parse(bytesOf('datapackage-digest.json').toString('utf8')), { path: 'datapackage.json', hash: sha256(bytesOf('datapackage.json')) });

    // The index: sorted, keyed as warcio.js keys URLs, each line pointing at exactly one response member.
    const warc = bytesOf('archive/data.warc.gz');
    const lines = bytesOf('indexes/index.cdxj').toString('utf8').trimEnd().split('\n');
    assert.equal(lines.length, pages.length);
    for (let i = 1; i < lines.length; i++) assert.ok((lines[i - 1] as string) <= (lines[i] as string), 'sorted');
    for (const line of lines) {
      const [key, timestamp, json] = [line.slice(0, line.indexOf(' ')), line.split(' ')[1], line.slice(line.indexOf(' {') + 1)];
      const entry = JSON.parse(json) as { url: string; offset: string; length: string; status: string; mime: string; filename: string };
      const page = pages.find((p) => p.url === entry.url) as StoredPage;
      assert.equal(key, getSurt(entry.url));
      assert.equal(timestamp, new Date(page.startedAt).toISOString().replace(/[-:T]/g, '').slice(0, 14));
      assert.equal(entry.filename, 'data.warc.gz');
      const member = warc.subarray(Number(entry.offset), Number(entry.offset) + Number(entry.length));
      const record = gunzipSync(member).toString('latin1');
      assert.match(record, /^WARC\/1\.1\r\nWARC-Type: response\r\n/);
      assert.ok(record.includes(`WARC-Target-URI: ${entry.url}\r\n`));
      const next = warc.subarray(Number(entry.offset) + Number(entry.length), Number(entry.offset) + Number(entry.length) + 2);
      assert.deepEqual(next, Buffer.from([0x1f, 0x8b]), 'the next gzip member starts right after');
    }
    // warcio.js's own indexer finds the same response lines.
    const theirs: string[] = [];
    const indexer = new CDXIndexer({ format: 'cdxj' });
    for await (const result of indexer.iterIndex([{ filename: 'data.warc.gz', reader: (async function* () { yield warc; })() }])) {
      if (result.status !== undefined && result.status !== null) theirs.push(indexer.serializeCDXJ(result).trimEnd());
    }
    assert.deepEqual(theirs.sort(), [...lines].sort());

    const pageLines = bytesOf('pages/pages.jsonl').toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(pageLines[0], { format: 'json-pages-1.0', id: 'pages', title: TOPIC_QUERY });
    assert.deepEqual(
      pageLines.slice(1).map((p) => [p.url, p.ts, p.relevance, p.hot]),
      pages.map((p) => [p.url, new Date(p.startedAt).toISOString(), p.relevance, p.hot === 1]),
    );
    for (const line of pageLines.slice(1)) assert.ok(typeof line.id === 'string' && typeof line.text === 'string' && typeof line.title === 'string');
  });

  it('finds a flipped byte, a truncated file, a non-zip and a tampered data package', async () => {
    const good = join(dir.dir, 'good.wacz');
    await exportWacz(readonly, {}, good);
    const bytes = readFileSync(good);

    const zip = await openPromise(good, { autoClose: false });
    let dataStart = 0;
    let dataLength = 0;
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== 'archive/data.warc.gz') continue;
      dataStart = (await zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart;
      dataLength = entry.compressedSize;
    }
    zip.close();
    assert.ok(dataLength > 0);
    const flipped = Buffer.from(bytes);
    const at = dataStart + Math.floor(dataLength / 2);
    flipped[at] = (flipped[at] as number) ^ 0x20;
    writeFileSync(join(dir.dir, 'flipped.wacz'), flipped);
    const flippedCheck = await verifyWacz(join(dir.dir, 'flipped.wacz'));
    assert.equal(flippedCheck.ok, false);
    assert.ok(flippedCheck.errors.some((e) => /^archive\/data\.warc\.gz: CRC-32 does not match/.test(e)), flippedCheck.errors.join('\n'));
    assert.ok(flippedCheck.errors.some((e) => /^archive\/data\.warc\.gz: datapackage\.json says sha256:[0-9a-f]{64}, the content hashes to/.test(e)), flippedCheck.errors.join('\n'));

    writeFileSync(join(dir.dir, 'truncated.wacz'), bytes.subarray(0, bytes.length - 200));
    const truncated = await verifyWacz(join(dir.dir, 'truncated.wacz'));
    assert.equal(truncated.ok, false);
    assert.match(truncated.errors[0] ?? '', /truncated\.wacz is not a readable zip file/);

    writeFileSync(join(dir.dir, 'text.wacz'), 'this is not a zip file\n');
    const text = await verifyWacz(join(dir.dir, 'text.wacz'));
    assert.equal(text.ok, false);
    assert.match(text.errors[0] ?? '', /is not a readable zip file/);
    assert.equal((await verifyWacz(join(dir.dir, 'missing.wacz'))).ok, false);

    // A data package that no longer matches its digest file, nor the WARC's size.
    const entries = new Map([...(await zipEntries(good))].map(([name, e]) => [name, e.bytes]));
    const datapackage = JSON.parse((entries.get('datapackage.json') as Buffer).toString('utf8')) as { resources: { bytes: number }[] };
    (datapackage.resources[0] as { bytes: number }).bytes += 1;
    entries.set('datapackage.json', Buffer.from(JSON.stringify(datapackage)));
    await writeZip(join(dir.dir, 'tampered.wacz'), entries);
    const tampered = await verifyWacz(join(dir.dir, 'tampered.wacz'));
    assert.equal(tampered.ok, false);
    assert.ok(tampered.errors.some((e) => /^datapackage-digest\.json says sha256:\w+ but datapackage\.json hashes to/.test(e)), tampered.errors.join('\n'));
    assert.ok(tampered.errors.some((e) => /^archive\/data\.warc\.gz: datapackage\.json says \d+ bytes, the zip holds \d+/.test(e)), tampered.errors.join('\n'));
  });

  it('leaves nothing behind when an export fails part-way', async () => {
    const missing = join(dir.dir, 'no', 'such', 'folder', 'x.wacz');
    await assert.rejects(exportWacz(readonly, {}, missing), (err: unknown) => err instanceof ExportError && /folder does not exist/.test(err.message));

    const last = pages[pages.length - 1] as StoredPage;
    db.prepare('UPDATE pages SET headers = ? WHERE seq = ?').run('not json', last.seq);
    try {
      const before = readdirSync(dir.dir).sort();
      for (const [write, name] of [[exportWacz, 'broken.wacz'], [exportWarc, 'broken.warc.gz']] as const) {
        await assert.rejects(write(readonly, {}, join(dir.dir, name)), (err: unknown) => err instanceof ExportError && new RegExp(`headers of page ${last.seq} are corrupt`).test(err.message));
        assert.deepEqual(readdirSync(dir.dir).sort(), before, `no partial or temporary file after a failed ${name}`);
      }
    } finally {
      db.prepare('UPDATE pages SET headers = ? WHERE seq = ?').run(last.headers, last.seq);
    }
  });
});
