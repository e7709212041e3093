import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';
import { CDXIndexer, WARCParser } from 'warcio';
import { zipEntry } from '../support/zip-entries.ts';
import { exportCollection } from '../../crawler/export/run-export.ts';
import { exportMirror } from '../../crawler/export/mirror/export.ts';
import { exportWacz } from '../../crawler/export/wacz/export.ts';
import { verifyWacz } from '../../crawler/export/wacz/verify.ts';
import { exportWarc } from '../../crawler/export/warc/export.ts';
import { ImportError } from '../../crawler/import/import-error.ts';
import { importWacz } from '../../crawler/import/import-wacz.ts';
import { parsePageMetadata } from '../../crawler/import/page-metadata.ts';
import type { DocumentFacts } from '../../crawler/parse/documents/document-facts.ts';
import { openCollection, type ReadonlyDb } from '../../crawler/store/database.ts';
import { DocumentStore, documentOf } from '../../crawler/store/document-store.ts';
import { HostStore } from '../../crawler/store/host-store.ts';
import type { NewPage } from '../../crawler/store/page-row.ts';
import { PageStore } from '../../crawler/store/page-store.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';
import { UrlState } from '../../crawler/store/url-state.ts';
import { UrlStore } from '../../crawler/store/url-store.ts';
import { fingerprint } from '../../crawler/url/fingerprint.ts';
import { crawlOnce, tempDir, testSettings } from '../support/crawl-harness.ts';
import { html, startTestSite, type TestSite } from '../support/test-site.ts';

/*
 * A collection holding documents as the crawler stores them (docs/archive-format.md): an HTML
 * page linking a real PDF (R's FAQ, from Debian's r-doc-pdf), a plain-text file sent
 * gzip-encoded, and an image the crawl does not read (recorded from its headers, no body).
 * Each export must carry the documents' bytes and facts, and import must bring them back.
 */

const ORIGIN = 'http://docs.example.org';
const QUERY = 'R frequently asked questions';
const PDF_BYTES = readFileSync('/usr/share/doc/r-doc-pdf/manual/R-FAQ.pdf');
const PDF_PAGES = Array.from({ length: 52 }, (_, i) => `R FAQ page ${i + 1}: frequently asked questions on R.`);
const PDF_TEXT = PDF_PAGES.join('\n\n');
const PDF_FACTS: DocumentFacts = {
  type: 'pdf',
  pageCount: 52,
  pagesRead: 52,
  pageStarts: PDF_PAGES.map((_, i) => PDF_PAGES.slice(0, i).reduce((sum, page) => sum + page.length + 2, 0)),
  metadata: { title: 'R FAQ', creator: 'TeX', producer: 'pdfTeX-1.40.24', created: '2023-01-20T16:49:27.000Z' },
};
const TEXT_BODY = Buffer.from('Notes on R\n\nInstalling R packages from CRAN, and the questions asked most often — in UTF-8.\n', 'utf8');
const TEXT_PAYLOAD = gzipSync(TEXT_BODY, { level: 9 });
const TEXT_FACTS: DocumentFacts = { type: 'text', pageCount: 1, pagesRead: 1, pageStarts: [0], metadata: {} };
const HTML = `<!doctype html><html><head><title>R documentation</title></head><body><h1>R documentation</h1>
<p>Read <a href="/docs/R-FAQ.pdf">the R FAQ (PDF)</a>, <a href="/notes/readme.txt#install">the install notes</a> and see <a href="/img/logo.png">the logo</a>.</p>
<p>Also <a href="https://cran.r-project.org/">CRAN</a>.</p></body></html>`;

interface BuiltCollection {
  dbPath: string;
  seqs: { html: number; pdf: number; text: number; image: number };
}

/** Writes the collection through the store, as the recorder would: one page row per response, a documents row beside each document read. */
function buildCollection(dir: string): BuiltCollection {
  const dbPath = join(dir, 'documents.db');
  const db = openCollection(dbPath, { create: true });
  saveSettings(db, testSettings([`${ORIGIN}/`], { query: QUERY, documents: 'pdf,text' }));
  const urls = new UrlStore(db);
  const pages = new PageStore(db);
  const documents = new DocumentStore(db);
  const hostId = new HostStore(db).idFor(ORIGIN);
  const urlId = (path: string, depth: number): number =>
    urls.insert({ fp: fingerprint(`${ORIGIN}${path}`), url: `${ORIGIN}${path}`, hostId, depth, state: UrlState.fetched, parentId: null, redirects: 0, reason: null });
  let clock = Date.UTC(2026, 0, 5, 10, 0, 0);
  const page = (path: string, depth: number, fields: Partial<NewPage> & Pick<NewPage, 'headers' | 'contentType'>): number => {
    clock += 1000;
    return pages.insert({
      urlId: urlId(path, depth), status: 200, httpVersion: '1.1', statusText: 'OK', charset: null, body: null, bodyBytes: 0, wireBytes: 0,
      title: null, text: null, terms: null, relevance: null, hot: false, judgedHot: null, noindex: false, nofollow: false, canonical: null,
      redirectTo: null, note: null, startedAt: clock, fetchedAt: clock + 20, responseMs: 20, remoteAddress: '192.0.2.7',
      requestHead: `GET ${path} HTTP/1.1\r\nhost: docs.example.org\r\nuser-agent: Forager-test\r\n`, payload: null, simhash: null, bodyHash: null,
      duplicateOf: null, soft404: false, ...fields,
    });
  };
  const seqs = db.transaction(() => {
    const html = page('/', 0, {
      headers: [['Content-Type', 'text/html; charset=utf-8']], contentType: 'text/html; charset=utf-8', charset: 'utf-8',
      body: gzipSync(HTML), bodyBytes: HTML.length, title: 'R documentation', text: 'R documentation Read the R FAQ', relevance: 0.4, hot: true, judgedHot: true,
    });
    const pdf = page('/docs/R-FAQ.pdf', 1, {
      headers: [['Content-Type', 'application/pdf'], ['Content-Length', String(PDF_BYTES.length)]], contentType: 'application/pdf',
      body: gzipSync(PDF_BYTES), bodyBytes: PDF_BYTES.length, wireBytes: PDF_BYTES.length, title: 'R FAQ', text: PDF_TEXT, relevance: 0.7, hot: true, judgedHot: true,
    });
    documents.save(pdf, PDF_FACTS);
    const text = page('/notes/readme.txt', 1, {
      headers: [['Content-Type', 'text/plain; charset=utf-8'], ['Content-Encoding', 'gzip']], contentType: 'text/plain; charset=utf-8', charset: 'utf-8',
      body: gzipSync(TEXT_BODY), bodyBytes: TEXT_BODY.length, wireBytes: TEXT_PAYLOAD.length, payload: TEXT_PAYLOAD,
      title: 'Notes on R', text: TEXT_BODY.toString('utf8'), relevance: 0.2, judgedHot: false,
    });
    documents.save(text, TEXT_FACTS);
    const image = page('/img/logo.png', 1, { headers: [['Content-Type', 'image/png']], contentType: 'image/png', note: 'not-html:image/png' });
    for (const [path, anchor] of [['/docs/R-FAQ.pdf', 'the R FAQ (PDF)'], ['/notes/readme.txt', 'the install notes'], ['/img/logo.png', 'the logo']] as const) {
      const dstId = urls.findIdByFingerprint(hostId, fingerprint(`${ORIGIN}${path}`)) as number;
      pages.insertLink(html, { dstId, anchor, contextBefore: '', contextAfter: '' });
    }
    return { html, pdf, text, image };
  })();
  db.close();
  return { dbPath, seqs };
}

function sha256(...parts: Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return `sha256:${hash.digest('hex')}`;
}

interface RawRecord {
  type: string;
  header: (name: string) => string | null;
  block: Buffer;
}

async function readWarc(path: string): Promise<RawRecord[]> {
  const records: RawRecord[] = [];
  for await (const record of new WARCParser(createReadStream(path), { parseHttp: false })) {
    const headers = record.warcHeaders.headers;
    records.push({ type: record.warcType, header: (name) => headers.get(name) ?? null, block: Buffer.from(await record.readFully(false)) });
  }
  return records;
}

function splitHttp(block: Buffer): { head: string; payload: Buffer } {
  const end = block.indexOf('\r\n\r\n');
  assert.ok(end > 0, 'an HTTP block has a head');
  return { head: block.subarray(0, end).toString('latin1'), payload: block.subarray(end + 4) };
}

/** The href of every <a> in an HTML file, as a browser reads it. */
function hrefs(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser({ onopentag: (name, attribs) => name === 'a' && attribs.href !== undefined && found.push(attribs.href) }, { decodeEntities: true });
  parser.end(html);
  return found;
}

describe('export and import of documents (a PDF and a plain-text file beside an HTML page)', () => {
  const dir = tempDir('forager-export-documents-');
  let built: BuiltCollection;
  let readonly: ReadonlyDb;
  const url = (path: string): string => `${ORIGIN}${path}`;

  before(() => {
    built = buildCollection(dir.dir);
    readonly = openCollection(built.dbPath, { create: false, readonly: true });
  });

  after(() => {
    readonly.close();
    dir.cleanup();
  });

  it('WARC: a document\'s response record carries its bytes as received with true digests, and its metadata record the document\'s facts', async () => {
    const out = join(dir.dir, 'documents.warc.gz');
    await exportWarc(readonly, {}, out);
    const records = await readWarc(out);
    const of = (type: string, path: string): RawRecord => {
      const record = records.find((r) => r.type === type && r.header('WARC-Target-URI') === url(path));
      assert.ok(record !== undefined, `a ${type} record for ${path}`);
      return record;
    };

    const pdf = of('response', '/docs/R-FAQ.pdf');
    const pdfHttp = splitHttp(pdf.block);
    assert.ok(pdfHttp.payload.equals(PDF_BYTES), 'the PDF as received, byte for byte');
    assert.match(pdfHttp.head, /\r\nContent-Type: application\/pdf\r\n/);
    assert.equal(pdf.header('WARC-Block-Digest'), sha256(pdf.block));
    assert.equal(pdf.header('WARC-Payload-Digest'), sha256(PDF_BYTES));
    assert.equal(pdf.header('WARC-Truncated'), null);

    // Content-encoded on the wire: the payload is the gzip as received, as for a web page.
    const text = of('response', '/notes/readme.txt');
    assert.ok(splitHttp(text.block).payload.equals(TEXT_PAYLOAD));
    assert.equal(text.header('WARC-Payload-Digest'), sha256(TEXT_PAYLOAD));
    assert.equal(text.header('WARC-Block-Digest'), sha256(text.block));

    // A type the crawl does not read keeps no body: its record says so.
    const image = of('response', '/img/logo.png');
    assert.equal(image.header('WARC-Truncated'), 'unspecified');
    assert.equal(splitHttp(image.block).payload.length, 0);

    const metadata = (path: string): Record<string, unknown> => JSON.parse(of('metadata', path).block.toString('utf8')) as Record<string, unknown>;
    assert.deepEqual(metadata('/docs/R-FAQ.pdf').document, PDF_FACTS);
    assert.deepEqual(metadata('/notes/readme.txt').document, TEXT_FACTS);
    assert.equal(metadata('/').document, null, 'a web page is no document');
    assert.equal(metadata('/img/logo.png').document, null);
  });

  it('warcio reads the PDF back as a replay tool would: status 200, application/pdf, the file\'s bytes', async () => {
    const out = join(dir.dir, 'replay.warc.gz');
    await exportWarc(readonly, {}, out);
    let found = false;
    for await (const record of new WARCParser(createReadStream(out))) {
      if (record.warcType !== 'response' || record.warcTargetURI !== url('/docs/R-FAQ.pdf')) continue;
      found = true;
      assert.equal(record.httpHeaders?.statusCode, 200);
      assert.equal(record.httpHeaders?.headers.get('content-type'), 'application/pdf');
      assert.ok(Buffer.from(await record.readFully(true)).equals(PDF_BYTES));
    }
    assert.ok(found);
  });

  it('WACZ: the index lists each document with its MIME type and digest, and the read-back checker passes', async () => {
    const out = join(dir.dir, 'documents.wacz');
    await exportWacz(readonly, {}, out);
    const check = await verifyWacz(out);
    assert.deepEqual(check.errors, []);
    const index = (await zipEntry(out, 'indexes/index.cdxj')).toString('utf8').trimEnd().split('\n');
    const line = (path: string): Record<string, string> => {
      const found = index.find((l) => l.includes(`"url":"${url(path)}"`));
      assert.ok(found !== undefined, `${path} is indexed`);
      return JSON.parse(found.slice(found.indexOf(' {') + 1)) as Record<string, string>;
    };
    assert.deepEqual([line('/docs/R-FAQ.pdf').mime, line('/docs/R-FAQ.pdf').digest], ['application/pdf', sha256(PDF_BYTES).slice('sha256:'.length)]);
    assert.equal(line('/notes/readme.txt').mime, 'text/plain');

    // warcio.js's own indexer (what ReplayWeb.page's loader reads a WARC with) finds the PDF as a 200 application/pdf.
    const warc = await zipEntry(out, 'archive/data.warc.gz');
    const indexer = new CDXIndexer({ format: 'cdxj' });
    const theirs: string[] = [];
    for await (const result of indexer.iterIndex([{ filename: 'data.warc.gz', reader: (async function* () { yield warc; })() }])) {
      if (result.url === url('/docs/R-FAQ.pdf') && result.status !== undefined) theirs.push(indexer.serializeCDXJ(result).trimEnd());
    }
    assert.deepEqual(theirs, index.filter((l) => l.includes(`"url":"${url('/docs/R-FAQ.pdf')}"`)));
  });

  it('JSONL and CSV carry each page\'s type and a document\'s page count; JSONL its text', async () => {
    const jsonl = join(dir.dir, 'pages.jsonl');
    await exportCollection(readonly, 'jsonl', {}, jsonl);
    const lines = new Map(
      readFileSync(jsonl, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((l) => [l.finalUrl as string, l]),
    );
    const fields = (path: string): unknown[] => {
      const line = lines.get(url(path));
      return [line?.type, line?.pageCount, line?.title];
    };
    assert.deepEqual(fields('/'), ['html', null, 'R documentation']);
    assert.deepEqual(fields('/docs/R-FAQ.pdf'), ['pdf', 52, 'R FAQ']);
    assert.deepEqual(fields('/notes/readme.txt'), ['text', 1, 'Notes on R']);
    assert.deepEqual(fields('/img/logo.png'), ['png', null, null]);
    assert.equal(lines.get(url('/docs/R-FAQ.pdf'))?.text, PDF_TEXT);
    assert.equal(lines.get(url('/notes/readme.txt'))?.text, TEXT_BODY.toString('utf8'));

    const csv = join(dir.dir, 'pages.csv');
    await exportCollection(readonly, 'csv', {}, csv);
    const rows = readFileSync(csv, 'utf8').split('\r\n').filter((r) => r !== '');
    assert.equal(rows[0], 'url,title,relevance,hot,depth,fetchedAt,versions,lastChangedAt,gone,type,pageCount');
    const tail = (path: string): string | undefined => rows.find((r) => r.startsWith(`${url(path)},`))?.split(',').slice(-2).join(',');
    assert.deepEqual([tail('/'), tail('/docs/R-FAQ.pdf'), tail('/notes/readme.txt'), tail('/img/logo.png')], ['html,', 'pdf,52', 'text,1', 'png,']);
  });

  it('mirror: the PDF and the text file as files of their own, linked from the page and listed in the index', async () => {
    const out = join(dir.dir, 'mirror');
    const summary = await exportMirror(readonly, {}, out);
    assert.equal(summary.pages, 3, 'the page and two documents; the image has no body to mirror');
    const site = join(out, 'docs.example.org');
    assert.ok(readFileSync(join(site, 'docs/R-FAQ.pdf')).equals(PDF_BYTES), 'the PDF byte for byte');
    assert.ok(readFileSync(join(site, 'notes/readme.txt')).equals(TEXT_BODY), 'the text as received, its Content-Encoding removed');

    const links = hrefs(readFileSync(join(site, 'index.html'), 'utf8'));
    assert.ok(links.includes('docs/R-FAQ.pdf'), `the page links the local PDF: ${links.join(' ')}`);
    assert.ok(links.includes('notes/readme.txt#install'), 'and the local text file, fragment kept');
    assert.ok(links.includes(url('/img/logo.png')), 'a file not in the mirror stays an external link');

    const index = readFileSync(join(out, 'index.html'), 'utf8');
    assert.match(index, /1 page and 2 documents saved by Forager/);
    assert.deepEqual(hrefs(index).filter((h) => !h.startsWith('http')), ['docs.example.org/docs/R-FAQ.pdf', 'docs.example.org/index.html', 'docs.example.org/notes/readme.txt'], 'by relevance');
    assert.match(index, /<span class="kind">PDF, 52 pages<\/span>/);
    assert.match(index, /<span class="kind">Plain text, 1 page<\/span>/);
  });

  it('import reads the documents back: each page row with its bytes, and its documents row from the metadata record', async () => {
    const wacz = join(dir.dir, 'roundtrip.wacz');
    await exportWacz(readonly, {}, wacz);
    const importedPath = join(dir.dir, 'imported.db');
    const summary = await importWacz(wacz, importedPath);
    assert.equal(summary.pages, 4);
    const imported = openCollection(importedPath, { create: false, readonly: true });
    try {
      const row = (db: ReadonlyDb, path: string): { seq: number; status: number; contentType: string; headers: string; body: Buffer | null; payload: Buffer | null } =>
        db
          .prepare('SELECT p.seq, p.status, p.content_type AS contentType, p.headers, p.body, p.payload FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?')
          .get(url(path)) as { seq: number; status: number; contentType: string; headers: string; body: Buffer | null; payload: Buffer | null };
      for (const path of ['/docs/R-FAQ.pdf', '/notes/readme.txt']) {
        const before = row(readonly, path);
        const after = row(imported, path);
        assert.deepEqual([after.status, after.contentType, after.headers], [before.status, before.contentType, before.headers], path);
        assert.ok(after.body !== null && gunzipSync(after.body).equals(gunzipSync(before.body as Buffer)), `${path}: the bytes as received`);
        assert.deepEqual(after.payload, before.payload, `${path}: the payload as received`);
      }
      assert.deepEqual(documentOf(imported, row(imported, '/docs/R-FAQ.pdf').seq), PDF_FACTS);
      assert.deepEqual(documentOf(imported, row(imported, '/notes/readme.txt').seq), TEXT_FACTS);
      assert.equal(documentOf(imported, row(imported, '/').seq), null);
      assert.equal(row(imported, '/img/logo.png').body, null, 'a type the crawl did not read comes back without a body');
    } finally {
      imported.close();
    }
  });

  it('import refuses document facts that cannot be true, and reads a record written before documents as having none', () => {
    const record = (document: unknown): Buffer => Buffer.from(JSON.stringify({ forager: 1, relevance: 0.5, hot: false, document }));
    assert.deepEqual(parsePageMetadata(record(PDF_FACTS), url('/a.pdf'))?.document, PDF_FACTS);
    assert.equal(parsePageMetadata(Buffer.from(JSON.stringify({ forager: 1, relevance: 0.5 })), url('/a'))?.document, null);
    for (const bad of [{ ...PDF_FACTS, pagesRead: 53 }, { ...PDF_FACTS, type: 'docx' }, { ...PDF_FACTS, pageStarts: [-1] }, { ...PDF_FACTS, metadata: { pages: 3 } }]) {
      assert.throws(() => parsePageMetadata(record(bad), url('/a.pdf')), (err: unknown) => err instanceof ImportError && /metadata for .*a\.pdf is malformed/.test(err.message), JSON.stringify(bad));
    }
  });
});

describe('documents read in a crawl of a loopback site: exported as WACZ and imported again', () => {
  const dir = tempDir('forager-crawl-documents-');
  let site: TestSite;
  let original: ReadonlyDb;
  let imported: ReadonlyDb;
  const notes = 'Notes on R packages\n\nInstalling packages from CRAN, and what the R FAQ says about them.\n';

  before(async () => {
    site = await startTestSite({
      '/': html('<p>The <a href="/manual/R-FAQ.pdf">R FAQ</a> and <a href="/notes.txt">notes on packages</a>.</p>', 'R documentation'),
      '/manual/R-FAQ.pdf': (_req, res) => void res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF_BYTES),
      '/notes.txt': (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(notes),
    });
    const run = await crawlOnce(dir.dir, testSettings([`${site.origin}/`], { query: QUERY, maxPages: 10, allowPrivate: true, documents: 'pdf,text' }));
    run.db.close();
    original = openCollection(run.dbPath, { create: false, readonly: true });
    const wacz = join(dir.dir, 'crawl.wacz');
    await exportWacz(original, {}, wacz);
    assert.deepEqual((await verifyWacz(wacz)).errors, []);
    await importWacz(wacz, join(dir.dir, 'imported.db'));
    imported = openCollection(join(dir.dir, 'imported.db'), { create: false, readonly: true });
  });

  after(async () => {
    imported?.close();
    original?.close();
    await site?.close();
    dir.cleanup();
  });

  const stored = (db: ReadonlyDb, path: string): Record<string, unknown> & { seq: number } => {
    const row = db
      .prepare('SELECT p.seq, p.status, p.content_type, p.headers, p.title, p.text, p.note, p.relevance, p.hot, p.body FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = ?')
      .get(`${site.origin}${path}`) as (Record<string, unknown> & { seq: number }) | undefined;
    assert.ok(row !== undefined, `${path} is stored`);
    return row;
  };

  it('the crawl stored both documents as read, and import brings back their page rows and documents rows', () => {
    for (const [path, type] of [['/manual/R-FAQ.pdf', 'pdf'], ['/notes.txt', 'text']] as const) {
      const before = stored(original, path);
      const after = stored(imported, path);
      const facts = documentOf(original, before.seq);
      assert.equal(facts?.type, type, `${path} was read as a document`);
      assert.equal(before.note, null);
      assert.deepEqual(documentOf(imported, after.seq), facts, `${path}: the documents row`);
      const { seq: _before, body: beforeBody, ...beforeColumns } = before;
      const { seq: _after, body: afterBody, ...afterColumns } = after;
      assert.deepEqual(afterColumns, beforeColumns, `${path}: status, type, headers, title, text, note and verdict`);
      assert.ok(gunzipSync(afterBody as Buffer).equals(gunzipSync(beforeBody as Buffer)), `${path}: the bytes`);
    }
    assert.ok(gunzipSync(stored(imported, '/manual/R-FAQ.pdf').body as Buffer).equals(PDF_BYTES));
    assert.equal(documentOf(original, stored(original, '/manual/R-FAQ.pdf').seq)?.pageCount, 52);
  });

  it('the mirror of the crawl holds the PDF and links it from the page', async () => {
    const out = join(dir.dir, 'mirror');
    await exportMirror(original, {}, out);
    const host = `127.0.0.1_${new URL(site.origin).port}`;
    assert.ok(readFileSync(join(out, host, 'manual/R-FAQ.pdf')).equals(PDF_BYTES));
    assert.ok(readFileSync(join(out, host, 'notes.txt')).equals(Buffer.from(notes)));
    assert.deepEqual(hrefs(readFileSync(join(out, host, 'index.html'), 'utf8')).filter((h) => !h.startsWith('http') && !h.includes('index.html')), ['manual/R-FAQ.pdf', 'notes.txt']);
  });
});
