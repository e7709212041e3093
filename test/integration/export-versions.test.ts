import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CDXIndexer, WARCParser } from 'warcio';
import { zipEntry } from '../support/zip-entries.ts';
import { exportCollection } from '../../crawler/export/run-export.ts';
import { cdxTimestamp } from '../../crawler/export/wacz/cdxj.ts';
import { exportWacz } from '../../crawler/export/wacz/export.ts';
import { verifyWacz } from '../../crawler/export/wacz/verify.ts';
import { checkWarc } from '../../crawler/export/wacz/verify-warc.ts';
import { exportWarc } from '../../crawler/export/warc/export.ts';
import { setLabel } from '../../crawler/library/labels.ts';
import { openCollection, type ReadonlyDb } from '../../crawler/store/database.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { buildVersionedCollection, type VersionedCollection } from '../support/versioned-collection.ts';

const IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
const NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

type Headers = [string, string][];

/** One version of a page as the collection stores it: the latest in pages, earlier ones in page_versions. */
interface StoredVersion {
  version: number;
  status: number;
  statusText: string | null;
  headers: Headers;
  requestHead: string;
  startedAt: number;
  body: string;
}

/** A revisit that stored no new version. */
interface StoredRevisit {
  version: number;
  outcome: 'not-modified' | 'identical' | 'gone';
  status: number;
  statusText: string | null;
  headers: Headers;
  requestHead: string;
  startedAt: number;
}

interface History {
  url: string;
  version: number;
  fetchedAt: number;
  goneAt: number | null;
  versions: StoredVersion[];
  revisits: StoredRevisit[];
}

type Row = Record<string, unknown>;

function versionOf(row: Row): StoredVersion {
  assert.ok(row.body instanceof Buffer, 'every version of this site keeps its own body');
  assert.ok(typeof row.requestHead === 'string');
  return {
    version: row.version as number,
    status: row.status as number,
    statusText: row.statusText as string | null,
    headers: JSON.parse(row.headers as string) as Headers,
    requestHead: row.requestHead,
    startedAt: row.startedAt as number,
    body: gunzipSync(row.body).toString('utf8'),
  };
}

/** Every exported page's history, read from the collection, by URL. */
function histories(db: ReadonlyDb): Map<string, History> {
  const columns = 'status, status_text AS statusText, headers, request_head AS requestHead, started_at AS startedAt, body';
  const pages = db
    .prepare(`SELECT p.seq, u.url, p.version, p.fetched_at AS fetchedAt, p.gone_at AS goneAt, ${columns} FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.status BETWEEN 200 AND 299 ORDER BY p.seq`)
    .all() as Row[];
  const earlier = db.prepare(`SELECT version, ${columns} FROM page_versions WHERE page_seq = ? ORDER BY version`);
  const revisits = db.prepare(
    `SELECT version, outcome, status, status_text AS statusText, headers, request_head AS requestHead, started_at AS startedAt
     FROM revisits WHERE page_seq = ? AND outcome <> 'changed' ORDER BY started_at`,
  );
  const out = new Map<string, History>();
  for (const page of pages) {
    const versions = [...(earlier.all(page.seq) as Row[]).map(versionOf), versionOf(page)];
    const visits = (revisits.all(page.seq) as Row[]).map((r) => ({ ...r, headers: JSON.parse(r.headers as string) as Headers }) as StoredRevisit);
    out.set(page.url as string, { url: page.url as string, version: page.version as number, fetchedAt: page.fetchedAt as number, goneAt: page.goneAt as number | null, versions, revisits: visits });
  }
  return out;
}

interface ReadRecord {
  type: string;
  header: (name: string) => string | null;
  block: Buffer;
}

async function readWarc(source: NodeJS.ReadableStream | AsyncIterable<Uint8Array>): Promise<ReadRecord[]> {
  const records: ReadRecord[] = [];
  for await (const record of new WARCParser(source, { parseHttp: false })) {
    const block = Buffer.from(await record.readFully(false));
    const headers = record.warcHeaders.headers;
    records.push({ type: record.warcType, header: (name) => headers.get(name) ?? null, block });
  }
  return records;
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The HTTP head the exporter must write for a stored status and headers (Transfer-Encoding renamed: the payload is de-chunked). */
function expectedHead(status: number, statusText: string | null, headers: Headers): string {
  const lines = headers.map(([name, value]) => `${name.toLowerCase() === 'transfer-encoding' ? 'X-Forager-Transfer-Encoding' : name}: ${value}`);
  return `HTTP/1.1 ${status} ${statusText ?? ''}\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

interface IndexLine {
  key: string;
  timestamp: string;
  url: string;
  mime: string;
  status: string;
  digest?: string;
  offset: number;
  length: number;
}

function parseIndex(text: string): IndexLine[] {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => {
      const [key, timestamp] = line.split(' ', 2) as [string, string];
      const json = JSON.parse(line.slice(line.indexOf(' {') + 1)) as Record<string, string>;
      return { key, timestamp, url: json.url as string, mime: json.mime as string, status: json.status as string, ...(json.digest !== undefined && { digest: json.digest }), offset: Number(json.offset), length: Number(json.length) };
    });
}

/** The one record in a gzip member of a WARC, read by warcio with its HTTP head parsed, as a replay tool loads a capture by offset. */
async function recordAt(warc: Buffer, offset: number, length: number): Promise<{ type: string; status: number | undefined; content: string; refersToUri: string | null; refersToDate: string | null; digest: string | null }> {
  const parser = new WARCParser([warc.subarray(offset, offset + length)]);
  const record = await parser.parse();
  assert.ok(record !== null, `a record at ${offset}`);
  return {
    type: record.warcType,
    status: record.httpHeaders?.statusCode === undefined ? undefined : Number(record.httpHeaders.statusCode),
    content: record.warcType === 'response' ? await record.contentText() : '',
    refersToUri: record.warcRefersToTargetURI ?? null,
    refersToDate: record.warcRefersToDate ?? null,
    digest: record.warcPayloadDigest ?? null,
  };
}

describe('export with time: every version and revisit of a page', () => {
  const dir = tempDir('forager-versions-');
  let collection: VersionedCollection;
  let readonly: ReadonlyDb;
  let pages: Map<string, History>;
  const url = (path: string): string => collection.url(path);
  const history = (path: string): History => {
    const found = pages.get(url(path));
    assert.ok(found !== undefined, `${path} is exported`);
    return found;
  };

  before(async () => {
    collection = await buildVersionedCollection(dir.dir);
    readonly = openCollection(collection.dbPath, { create: false, readonly: true });
    pages = histories(readonly);
  });

  after(async () => {
    readonly?.close();
    collection?.db.close();
    await collection?.site.close();
    dir.cleanup();
  });

  it('starts from a crawl and two refreshes that found each kind of history', () => {
    const outcomes = (path: string): string[] => history(path).revisits.map((r) => `${r.outcome}:${r.status}:v${r.version}`);
    assert.deepEqual([history('/etag').version, outcomes('/etag')], [2, ['not-modified:304:v1']], 'ETag: a 304, then a change');
    assert.ok(history('/etag').revisits[0]?.requestHead.includes('if-none-match: "etag-1"'), 'the 304 answered If-None-Match');
    assert.deepEqual([history('/dated').version, outcomes('/dated')], [1, ['not-modified:304:v1', 'not-modified:304:v1']], 'Last-Modified only');
    assert.ok(history('/dated').revisits.every((r) => /if-modified-since: /i.test(r.requestHead)));
    assert.deepEqual([history('/plain').version, outcomes('/plain')], [1, ['identical:200:v1', 'identical:200:v1']], 'no validators');
    assert.deepEqual([history('/changes').version, outcomes('/changes')], [2, ['not-modified:304:v2']], 'changed, then a 304 for the new version');
    assert.deepEqual([history('/goes-404').version, outcomes('/goes-404')], [1, ['gone:404:v1', 'gone:404:v1']]);
    assert.deepEqual(outcomes('/wiki/Write-ahead_log'), ['gone:200:v1', 'gone:200:v1'], 'a soft 404 is gone with a 200');
    assert.match(history('/etag').versions[1]?.body ?? '', /and now the log too/);
  });

  it('writes each version as request and response, and each revisit as request and revisit naming the response it repeats', async () => {
    const out = join(dir.dir, 'all.warc.gz');
    const summary = await exportWarc(readonly, {}, out);
    const records = await readWarc(createReadStream(out));
    let expectedRecords = 1;
    for (const page of pages.values()) expectedRecords += 2 * page.versions.length + 1 + 2 * page.revisits.length;
    assert.deepEqual([summary.pages, summary.records, records.length], [pages.size, expectedRecords, expectedRecords]);

    for (const page of pages.values()) {
      const own = records.filter((r) => r.header('WARC-Target-URI') === page.url);
      const dates = own.map((r) => Date.parse(r.header('WARC-Date') ?? ''));
      assert.deepEqual(dates, [...dates].sort((a, b) => a - b), `${page.url}: records in time order`);
      const at = (type: string, startedAt: number): ReadRecord => {
        const found = own.filter((r) => r.type === type && r.header('WARC-Date') === iso(startedAt));
        assert.equal(found.length, 1, `${page.url}: one ${type} record at ${iso(startedAt)}`);
        return found[0] as ReadRecord;
      };
      const requestFor = (record: ReadRecord): ReadRecord => {
        const found = own.find((r) => r.type === 'request' && r.header('WARC-Concurrent-To') === record.header('WARC-Record-ID'));
        assert.ok(found !== undefined, `${page.url}: the request of the ${record.type} at ${record.header('WARC-Date')}`);
        return found;
      };

      const responses = new Map<number, ReadRecord>();
      for (const version of page.versions) {
        const response = at('response', version.startedAt);
        responses.set(version.version, response);
        assert.equal(response.block.toString('utf8'), expectedHead(version.status, version.statusText, version.headers) + version.body, `${page.url} version ${version.version}`);
        assert.equal(response.header('WARC-Payload-Digest'), sha256(Buffer.from(version.body)));
        assert.equal(requestFor(response).block.toString('latin1'), `${version.requestHead}\r\n`, 'the request as sent');
      }
      assert.equal(own.filter((r) => r.type === 'metadata').length, 1, 'Forager metadata for the latest version only');
      assert.equal(own.find((r) => r.type === 'metadata')?.header('WARC-Refers-To'), responses.get(page.version)?.header('WARC-Record-ID'));

      for (const revisit of page.revisits) {
        const head = expectedHead(revisit.status, revisit.statusText, revisit.headers);
        if (revisit.outcome === 'gone') {
          const response = at('response', revisit.startedAt);
          assert.equal(response.block.toString('utf8'), head, `${page.url}: the gone answer's head, no body kept`);
          assert.equal(response.header('WARC-Truncated'), 'unspecified', 'its body was received, not kept');
          assert.equal(requestFor(response).block.toString('latin1'), `${revisit.requestHead}\r\n`);
          continue;
        }
        const record = at('revisit', revisit.startedAt);
        const repeated = responses.get(revisit.version) as ReadRecord;
        assert.equal(record.header('WARC-Profile'), revisit.outcome === 'not-modified' ? NOT_MODIFIED : IDENTICAL);
        assert.equal(record.header('WARC-Refers-To-Target-URI'), page.url);
        assert.equal(record.header('WARC-Refers-To-Date'), repeated.header('WARC-Date'), 'the date of the response it repeats');
        assert.notEqual(record.header('WARC-Refers-To-Date'), record.header('WARC-Date'), 'never the revisit\'s own time');
        assert.equal(record.header('WARC-Refers-To'), repeated.header('WARC-Record-ID'));
        assert.equal(record.header('Content-Type'), 'application/http; msgtype=response');
        assert.equal(record.block.toString('utf8'), head, 'the revisit\'s response head, no payload');
        assert.equal(record.header('WARC-Block-Digest'), sha256(record.block));
        if (revisit.outcome === 'identical') {
          assert.equal(record.header('WARC-Payload-Digest'), repeated.header('WARC-Payload-Digest'));
          assert.equal(record.header('WARC-Truncated'), 'length');
        } else {
          assert.equal(record.header('WARC-Payload-Digest'), null, 'a 304 has no payload to digest');
        }
        assert.equal(requestFor(record).block.toString('latin1'), `${revisit.requestHead}\r\n`, 'the conditional request as sent');
      }
    }
  });

  it('reads back with warcio as a replay tool would: each version with its status and content, each revisit resolving to the one it repeats', async () => {
    const out = join(dir.dir, 'replay.warc.gz');
    await exportWarc(readonly, {}, out);
    const captures: { type: string; url: string; date: string; status: number | undefined; content: string; refersToUri: string | null; refersToDate: string | null }[] = [];
    for await (const record of new WARCParser(createReadStream(out))) {
      if (record.warcType !== 'response' && record.warcType !== 'revisit') continue;
      captures.push({
        type: record.warcType,
        url: record.warcTargetURI ?? '',
        date: record.warcDate ?? '',
        status: record.httpHeaders?.statusCode === undefined ? undefined : Number(record.httpHeaders.statusCode),
        content: record.warcType === 'response' ? await record.contentText() : '',
        refersToUri: record.warcRefersToTargetURI ?? null,
        refersToDate: record.warcRefersToDate ?? null,
      });
    }
    const of = (path: string) => captures.filter((c) => c.url === url(path));
    const etag = of('/etag');
    assert.deepEqual(etag.map((c) => [c.type, c.status]), [['response', 200], ['revisit', 304], ['response', 200]]);
    assert.match(etag[0]?.content ?? '', /Checkpoints flush dirty pages\.<\/p>/);
    assert.match(etag[2]?.content ?? '', /and now the log too/);
    assert.deepEqual(of('/goes-404').map((c) => [c.type, c.status]), [['response', 200], ['response', 404], ['response', 404]]);
    assert.deepEqual(of('/wiki/Write-ahead_log').map((c) => [c.type, c.status, c.content]).slice(1), [['response', 200, ''], ['response', 200, '']]);
    // Each revisit resolves as wabac.js and pywb resolve it: by the URI and date it names.
    const revisits = captures.filter((c) => c.type === 'revisit');
    assert.equal(revisits.length, [...pages.values()].reduce((n, p) => n + p.revisits.filter((r) => r.outcome !== 'gone').length, 0));
    for (const revisit of revisits) {
      const original = captures.filter((c) => c.type === 'response' && c.url === revisit.refersToUri && c.date === revisit.refersToDate);
      assert.equal(original.length, 1, `${revisit.url} at ${revisit.date} resolves to one response`);
      assert.equal(original[0]?.status, 200);
      const page = pages.get(revisit.url) as History;
      const repeated = page.versions.find((v) => iso(v.startedAt) === revisit.refersToDate);
      assert.equal(original[0]?.content, repeated?.body);
    }
    // The server still serves what an identical revisit repeats.
    const plain = of('/plain');
    const served = await (await fetch(url('/plain'))).text();
    assert.equal(captures.find((c) => c.type === 'response' && c.url === plain[1]?.refersToUri && c.date === plain[1]?.refersToDate)?.content, served);
  });

  it('packs a WACZ whose index lists every capture with its own timestamp, revisits as warc/revisit, and checks out', async () => {
    const out = join(dir.dir, 'all.wacz');
    const summary = await exportWacz(readonly, {}, out);
    const check = await verifyWacz(out);
    assert.deepEqual(check.errors, []);
    const captureCount = [...pages.values()].reduce((n, p) => n + p.versions.length + p.revisits.length, 0);
    const revisitCount = [...pages.values()].reduce((n, p) => n + p.revisits.filter((r) => r.outcome !== 'gone').length, 0);
    assert.deepEqual([check.records, check.revisits, check.responses + check.revisits, check.indexLines, check.pages], [summary.records, revisitCount, captureCount, captureCount, pages.size]);

    const warc = await zipEntry(out, 'archive/data.warc.gz');
    const lines = parseIndex((await zipEntry(out, 'indexes/index.cdxj')).toString('utf8'));
    for (const page of pages.values()) {
      const own = lines.filter((l) => l.url === page.url);
      assert.equal(own.length, page.versions.length + page.revisits.length, `${page.url}: one line per capture`);
      assert.equal(new Set(own.map((l) => l.timestamp)).size, own.length, `${page.url}: each capture at its own timestamp`);
      const expected = [
        ...page.versions.map((v) => ({ timestamp: cdxTimestamp(v.startedAt), mime: 'text/html', status: String(v.status) })),
        ...page.revisits.map((r) => ({
          timestamp: cdxTimestamp(r.startedAt),
          mime: r.outcome === 'gone' ? (r.status === 404 ? 'text/plain' : 'text/html') : 'warc/revisit',
          // A 304 is indexed as the 200 it confirms: replay answers a revisit line with a 3xx status by the revisit's own head.
          status: String(r.outcome === 'not-modified' ? page.versions.find((v) => v.version === r.version)?.status : r.status),
        })),
      ].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
      assert.deepEqual(own.map((l) => ({ timestamp: l.timestamp, mime: l.mime, status: l.status })), expected, page.url);
    }

    // Each line loads the record it names; a revisit line's record resolves through the index as ReplayWeb.page resolves it.
    for (const line of lines) {
      const record = await recordAt(warc, line.offset, line.length);
      if (line.mime !== 'warc/revisit') {
        assert.notEqual(record.type, 'revisit');
        continue;
      }
      assert.equal(record.type, 'revisit');
      const original = lines.filter((l) => l.url === record.refersToUri && l.timestamp === cdxTimestamp(Date.parse(record.refersToDate ?? '')) && l.mime !== 'warc/revisit');
      assert.equal(original.length, 1, `${line.url} ${line.timestamp}: the capture it repeats is indexed`);
      const repeated = await recordAt(warc, (original[0] as IndexLine).offset, (original[0] as IndexLine).length);
      assert.equal(repeated.type, 'response');
      const page = pages.get(line.url) as History;
      assert.equal(repeated.content, page.versions.find((v) => iso(v.startedAt) === record.refersToDate)?.body);
      if (line.digest === undefined) assert.equal(record.digest, null, 'a 304 line has no digest, as its record has none');
      else assert.equal(`sha256:${line.digest}`, record.digest);
    }

    // warcio.js's own indexer (what ReplayWeb.page runs over a bare WARC) finds the same captures; only a 304's status differs, by design.
    const indexer = new CDXIndexer({ format: 'cdxj' });
    const theirs: IndexLine[] = [];
    for await (const result of indexer.iterIndex([{ filename: 'data.warc.gz', reader: (async function* () { yield warc; })() }])) {
      if (result.mime !== undefined && result.mime !== null && (result.status !== undefined || result.mime === 'warc/revisit')) theirs.push(...parseIndex(indexer.serializeCDXJ(result)));
    }
    const comparable = (l: IndexLine) => `${l.key} ${l.timestamp} ${l.offset} ${l.length} ${l.mime} ${l.digest ?? '-'}`;
    assert.deepEqual(theirs.filter((l) => !l.url.startsWith('urn:')).map(comparable).sort(), lines.map(comparable).sort());
    const notModified = theirs.filter((l) => l.mime === 'warc/revisit' && l.digest === undefined);
    assert.ok(notModified.length > 0 && notModified.every((l) => l.status === '304'));

    const pageList = (await zipEntry(out, 'pages/pages.jsonl')).toString('utf8').trimEnd().split('\n').slice(1).map((l) => JSON.parse(l) as { url: string; ts: string });
    assert.deepEqual(pageList.map((p) => [p.url, p.ts]), [...pages.values()].map((p) => [p.url, iso((p.versions.at(-1) as StoredVersion).startedAt)]), 'one entry per page, at its latest version');
  });

  it('a filter selects pages, and a selected page brings its whole history', async () => {
    setLabel(collection.db, url('/etag'), 'relevant');
    try {
      const out = join(dir.dir, 'labelled.wacz');
      const summary = await exportWacz(readonly, { labelledRelevant: true }, out);
      assert.equal(summary.pages, 1);
      const check = await verifyWacz(out);
      assert.deepEqual(check.errors, []);
      const lines = parseIndex((await zipEntry(out, 'indexes/index.cdxj')).toString('utf8'));
      assert.deepEqual(lines.map((l) => [l.url, l.mime]), [[url('/etag'), 'text/html'], [url('/etag'), 'warc/revisit'], [url('/etag'), 'text/html']]);
    } finally {
      setLabel(collection.db, url('/etag'), null);
    }
  });

  it('JSONL and CSV carry each page\'s version count, last change and when it was found gone', async () => {
    const jsonl = join(dir.dir, 'pages.jsonl');
    await exportCollection(readonly, 'jsonl', {}, jsonl);
    const lines = readFileSync(jsonl, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { finalUrl: string; versions: number; lastChangedAt: string | null; gone: string | null });
    assert.equal(lines.length, pages.size);
    for (const line of lines) {
      const page = pages.get(line.finalUrl) as History;
      assert.deepEqual(
        [line.versions, line.lastChangedAt, line.gone],
        [page.version, page.version > 1 ? iso(page.fetchedAt) : null, page.goneAt === null ? null : iso(page.goneAt)],
        line.finalUrl,
      );
    }
    const byUrl = new Map(lines.map((l) => [l.finalUrl, l]));
    assert.equal(byUrl.get(url('/etag'))?.versions, 2);
    assert.ok(Date.parse(byUrl.get(url('/etag'))?.lastChangedAt ?? '') > Date.parse(byUrl.get(url('/goes-404'))?.gone ?? ''), 'changed at the second refresh, after the first found /goes-404 gone');
    assert.deepEqual([byUrl.get(url('/plain'))?.versions, byUrl.get(url('/plain'))?.lastChangedAt, byUrl.get(url('/plain'))?.gone], [1, null, null]);
    assert.ok(byUrl.get(url('/goes-404'))?.gone !== null && byUrl.get(url('/wiki/Write-ahead_log'))?.gone !== null);

    const csv = join(dir.dir, 'pages.csv');
    await exportCollection(readonly, 'csv', {}, csv);
    const rows = readFileSync(csv, 'utf8').split('\r\n').filter((r) => r !== '');
    assert.equal(rows[0], 'url,title,relevance,hot,depth,fetchedAt,versions,lastChangedAt,gone,type,pageCount');
    assert.equal(rows.length, pages.size + 1);
    for (const row of rows.slice(1)) {
      const page = pages.get(row.slice(0, row.indexOf(','))) as History;
      const tail = `,${page.version},${page.version > 1 ? iso(page.fetchedAt) : ''},${page.goneAt === null ? '' : iso(page.goneAt)},html,`;
      assert.ok(row.endsWith(tail), `${row} ends with ${tail}`);
    }
  });

  it('the read-back checker refuses a revisit that names no capture, a wrong digest, or no target URI', async () => {
    const out = join(dir.dir, 'tamper.wacz');
    await exportWacz(readonly, {}, out);
    const warc = await zipEntry(out, 'archive/data.warc.gz');
    const lines = parseIndex((await zipEntry(out, 'indexes/index.cdxj')).toString('utf8'));
    const errorsOf = async (bytes: Buffer): Promise<string[]> => {
      const errors: string[] = [];
      await checkWarc((async function* () { yield bytes; })(), 'data.warc.gz', (m) => errors.push(m));
      return errors;
    };
    assert.deepEqual(await errorsOf(warc), [], 'as exported it checks out');
    /** The WARC with one revisit member's WARC headers edited (the block, and so its digest, untouched). */
    const edited = (line: IndexLine, edit: (warcHeaders: string) => string): Buffer => {
      const member = gunzipSync(warc.subarray(line.offset, line.offset + line.length)).toString('latin1');
      const end = member.indexOf('\r\n\r\n');
      const changed = gzipSync(Buffer.from(edit(member.slice(0, end)) + member.slice(end), 'latin1'));
      return Buffer.concat([warc.subarray(0, line.offset), changed, warc.subarray(line.offset + line.length)]);
    };
    const identical = lines.find((l) => l.mime === 'warc/revisit' && l.digest !== undefined) as IndexLine;
    const notModified = lines.find((l) => l.mime === 'warc/revisit' && l.digest === undefined) as IndexLine;

    const earlier = await errorsOf(edited(notModified, (h) => h.replace(/^(WARC-Refers-To-Date: )(.*)$/m, (_m, name: string, date: string) => `${name}${iso(Date.parse(date) - 1000)}`)));
    assert.equal(earlier.length, 1, earlier.join('\n'));
    assert.match(earlier[0] ?? '', /revisit .* repeats .* but the WARC has no response for it then/);

    const digest = await errorsOf(edited(identical, (h) => h.replace(/^WARC-Payload-Digest: .*$/m, `WARC-Payload-Digest: ${sha256(Buffer.from('something else'))}`)));
    assert.equal(digest.length, 1, digest.join('\n'));
    assert.match(digest[0] ?? '', /WARC-Payload-Digest sha256:[0-9a-f]{64} is not the payload digest of the response it repeats/);

    const untargeted = await errorsOf(edited(identical, (h) => h.replace(/^WARC-Refers-To-Target-URI: .*\r\n/m, '')));
    assert.equal(untargeted.length, 1, untargeted.join('\n'));
    assert.match(untargeted[0] ?? '', /no WARC-Refers-To-Target-URI, so replay cannot find the capture it repeats/);
  });
});
