import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { CrawlStatus, DocumentContent, PageDetail, PageList, SearchResult } from '../../crawler/protocol/api.ts';
import { sessionCookieName, type ApiReply } from '../../crawler/protocol/wire.ts';
import { startServer, type RunningServer } from '../../crawler/serve/server.ts';
import { createServeStoredPages } from '../../crawler/serve/stored-pages.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { buildDocumentCollection, COLLECTION, HOSTILE_TEXT, type DocumentCollection } from '../unit/crawler/library/document-collection.ts';

/*
 * Documents through `forager serve`, as the app reads them: the library's types and filter,
 * the page of a search hit, a document's bytes for the app's own PDF renderer, and the file
 * itself as a download that no browser takes for a page.
 */

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function raw(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('documents in the app, through forager serve', () => {
  const dir = tempDir('forager-documents-app-');
  let built: DocumentCollection;
  let service: ForagerService;
  let server: RunningServer;
  let cookie: string;

  const call = async (method: string, input: unknown): Promise<ApiReply> => {
    const res = await raw(server.port, {
      method: 'POST',
      path: `${server.appRoot}api/${method}`,
      headers: { cookie, 'content-type': 'application/json', origin: `http://127.0.0.1:${server.port}` },
      body: JSON.stringify(input),
    });
    return JSON.parse(res.body.toString('utf8')) as ApiReply;
  };
  const value = async <T>(method: string, input: unknown): Promise<T> => {
    const reply = await call(method, input);
    assert.equal(reply.ok, true, JSON.stringify(reply));
    return (reply as { value: T }).value;
  };
  const get = (path: string, headers: Record<string, string> = { cookie }): Promise<RawResponse> => raw(server.port, { path: `${server.appRoot}${path}`, headers });

  before(async () => {
    built = await buildDocumentCollection(dir.dir);
    built.db.close();
    service = new ForagerService({ dir: dir.dir, statusIntervalMs: 100 });
    server = await startServer({ service, storedPages: createServeStoredPages(service), rendererDir: dir.dir });
    const start = await raw(server.port, { path: `/?token=${server.token}` });
    cookie = String(start.headers['set-cookie']).split(';')[0] as string;
    assert.equal(cookie, `${sessionCookieName(server.port)}=${server.token}`);
  });

  after(async () => {
    await service.close();
    await server.close();
    dir.cleanup();
  });

  it('lists pages with their type, size and page count, and filters by type', async () => {
    const all = await value<PageList>('listPages', { collection: COLLECTION, sort: 'url' });
    assert.equal(all.total, 3);
    const pdf = all.pages.find((p) => p.seq === built.pdfSeq);
    assert.deepEqual([pdf?.type, pdf?.pageCount, pdf?.bodyBytes], ['pdf', built.pdfPageStarts.length, built.pdfBytes.length]);
    const documents = await value<PageList>('listPages', { collection: COLLECTION, type: 'document' });
    assert.deepEqual(documents.pages.map((p) => p.type).sort(), ['pdf', 'text']);
    assert.equal((await value<PageList>('listPages', { collection: COLLECTION, type: 'html' })).total, 1);
    const refused = await call('listPages', { collection: COLLECTION, type: 'docx' });
    assert.equal(!refused.ok && refused.error.code, 'INVALID_INPUT');
  });

  it('counts documents apart from pages on the dashboard', async () => {
    const status = await value<CrawlStatus>('crawlStatus', { collection: COLLECTION });
    assert.equal(status.figures.fetched, 3);
    assert.equal(status.figures.documents, 2);
  });

  it('names the PDF page of a search hit', async () => {
    const hits = await value<SearchResult[]>('searchPages', { collection: COLLECTION, text: 'quokkaverse' });
    assert.deepEqual(hits.map((h) => [h.type, h.documentPage]), [['text', null]]);
    const word = /\b(?<word>[A-Za-z]{9,})\b/.exec(built.pdfText.slice(built.pdfPageStarts[5]))?.groups?.word as string;
    const [hit] = await value<SearchResult[]>('searchPages', { collection: COLLECTION, text: word });
    assert.equal(hit?.seq, built.pdfSeq);
    assert.ok(hit !== undefined && hit.documentPage !== null && hit.documentPage >= 1 && hit.documentPage <= built.pdfPageStarts.length, JSON.stringify(hit));
  });

  it('describes a document: its reading, where its file is, and no frame for a PDF', async () => {
    const pdf = await value<PageDetail>('getPage', { collection: COLLECTION, seq: built.pdfSeq });
    assert.deepEqual(pdf.document, { type: 'pdf', pageCount: built.pdfPageStarts.length, pagesRead: built.pdfPageStarts.length, metadata: { producer: 'pdfTeX' } });
    assert.equal(pdf.viewPath, null, 'the app draws a PDF itself; the stored-page frame does not');
    assert.equal(pdf.filePath, `${COLLECTION}/${built.pdfSeq}/file`);
    const text = await value<PageDetail>('getPage', { collection: COLLECTION, seq: built.textSeq });
    assert.equal(text.viewPath, `${COLLECTION}/${built.textSeq}`, 'plain text is shown in the frame, as text');
    const html = await value<PageDetail>('getPage', { collection: COLLECTION, seq: built.htmlSeq });
    assert.deepEqual([html.type, html.document, html.filePath], ['html', null, null]);
  });

  it('hands a document\'s bytes and text to the app\'s own viewer', async () => {
    const content = await value<DocumentContent>('readDocument', { collection: COLLECTION, seq: built.pdfSeq });
    assert.equal(content.type, 'pdf');
    assert.ok(content.data !== null && Buffer.from(content.data, 'base64').equals(built.pdfBytes), 'the bytes as received');
    assert.equal(content.bytes, built.pdfBytes.length);
    assert.equal(content.text, built.pdfText);
    assert.deepEqual(content.pageStarts, built.pdfPageStarts);
    const notDocument = await call('readDocument', { collection: COLLECTION, seq: built.htmlSeq });
    assert.equal(!notDocument.ok && notDocument.error.code, 'USAGE');
  });

  it('serves a PDF\'s bytes as an attachment of its stored type, never sniffed', async () => {
    const file = await get(`stored/${COLLECTION}/${built.pdfSeq}/file`);
    assert.equal(file.status, 200);
    assert.ok(file.body.equals(built.pdfBytes));
    assert.equal(file.headers['content-type'], 'application/pdf');
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.equal(file.headers['content-disposition'], `attachment; filename="R-FAQ.pdf"; filename*=UTF-8''R-FAQ.pdf`);
    assert.match(String(file.headers['content-security-policy']), /sandbox/);
    const head = await raw(server.port, { method: 'HEAD', path: `${server.appRoot}stored/${COLLECTION}/${built.pdfSeq}/file`, headers: { cookie } });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
  });

  it('never serves a plain-text document that holds HTML as a page', async () => {
    const file = await get(`stored/${COLLECTION}/${built.textSeq}/file`);
    assert.equal(file.status, 200);
    assert.equal(file.body.toString('utf8'), HOSTILE_TEXT);
    assert.equal(file.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.match(String(file.headers['content-disposition']), /^attachment; filename="readme\.txt"/);
    const shown = await get(`stored/${COLLECTION}/${built.textSeq}`);
    assert.equal(shown.status, 200);
    const page = shown.body.toString('utf8');
    assert.doesNotMatch(page, /<script|<h1>Not a heading/i, 'the markup is text');
    assert.match(page, /<pre>&lt;script&gt;document\.title = "ran"&lt;\/script&gt;&lt;h1&gt;Not a heading&lt;\/h1&gt;/);
    assert.match(String(shown.headers['content-security-policy']), /script-src 'none'/);
  });

  it('keeps a stored page\'s links to the collection\'s documents inside the viewer', async () => {
    const shown = (await get(`stored/${COLLECTION}/${built.htmlSeq}`)).body.toString('utf8');
    const hrefs = [...shown.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1] as string);
    assert.equal(hrefs.length, 2, shown);
    assert.ok(hrefs[0]?.endsWith(`/${COLLECTION}/${built.pdfSeq}`), hrefs[0]);
    assert.ok(hrefs[1]?.endsWith(`/${COLLECTION}/${built.textSeq}`), hrefs[1]);
    const pdfInFrame = (await get(`stored/${COLLECTION}/${built.pdfSeq}`)).body.toString('utf8');
    assert.match(pdfInFrame, /A PDF document of this collection/, 'the frame points to the library, where the PDF is drawn');
  });

  it('answers a file only for a document, and only to the session', async () => {
    assert.equal((await get(`stored/${COLLECTION}/${built.htmlSeq}/file`)).status, 404);
    assert.equal((await get(`stored/${COLLECTION}/999/file`)).status, 404);
    assert.equal((await get(`stored/${COLLECTION}/${built.pdfSeq}/file`, {})).status, 401, 'no session, no file');
    const foreign = await raw(server.port, { path: `${server.appRoot}stored/${COLLECTION}/${built.pdfSeq}/file`, headers: { cookie, host: `evil.example:${server.port}` } });
    assert.equal(foreign.status, 421);
    const crossSite = await get(`stored/${COLLECTION}/${built.pdfSeq}/file`, { cookie, 'sec-fetch-site': 'cross-site' });
    assert.equal(crossSite.status, 403);
  });

  it('forager pages filters and shows the type, and forager search names the PDF page of a hit', async () => {
    const pdfs = await runCli(['pages', '--db', built.path, '--type', 'pdf']);
    assert.equal(pdfs.code, 0, pdfs.stderr);
    const columns = pdfs.stdout.trim().split('\n').map((line) => line.split('\t'));
    assert.deepEqual(columns.map((c) => [c[0], c[2], c[5]]), [[String(built.pdfSeq), `pdf:${built.pdfPageStarts.length}`, 'http://docs.example/manual/R-FAQ.pdf']]);
    const all = await runCli(['pages', '--db', built.path, '--json']);
    assert.deepEqual(all.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type).sort(), ['html', 'pdf', 'text']);
    const wrong = await runCli(['pages', '--db', built.path, '--type', 'docx']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--type must be one of html, pdf, text, document/);
    const search = await runCli(['search', '--db', built.path, 'experience']);
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /^1\. The R FAQ, zyzzyva edition \(PDF\)\n   http:\/\/docs\.example\/manual\/R-FAQ\.pdf\n   p\. 12: …/);
    const json = await runCli(['search', '--db', built.path, '--json', 'experience']);
    assert.deepEqual(JSON.parse(json.stdout.trim().split('\n')[0] as string).documentPage, 12);
  });

  it('leaves opening a document in the system\'s viewer to the desktop app', async () => {
    const reply = await call('openDocument', { collection: COLLECTION, seq: built.pdfSeq });
    assert.equal(!reply.ok && reply.error.code, 'USAGE');
    assert.match(!reply.ok ? reply.error.message : '', /desktop app/);
  });
});
