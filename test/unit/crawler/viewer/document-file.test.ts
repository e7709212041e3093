import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { attachmentDisposition, documentContentType, documentFileName } from '../../../../crawler/viewer/document-file.ts';
import { parseViewerUrl } from '../../../../crawler/viewer/viewer-url.ts';

describe('a stored document handed out as a file', () => {
  test('is named after its URL, with its type\'s extension whatever the URL ends with', () => {
    assert.equal(documentFileName('http://docs.example/manual/R-FAQ.pdf', 'pdf'), 'R-FAQ.pdf');
    assert.equal(documentFileName('http://docs.example/notes/readme', 'text'), 'readme.txt');
    assert.equal(documentFileName('http://evil.example/run.desktop', 'pdf'), 'run.pdf');
    assert.equal(documentFileName('http://evil.example/setup.exe', 'text'), 'setup.txt');
    assert.equal(documentFileName('http://docs.example/a%2F..%2F..%2Fetc%2Fpasswd', 'text'), 'passwd.txt');
    assert.equal(documentFileName('http://docs.example/.hidden.pdf', 'pdf'), 'hidden.pdf');
    assert.equal(documentFileName('http://docs.example/', 'pdf'), 'document.pdf');
    assert.equal(documentFileName('http://docs.example/r%C3%A9sum%C3%A9%20final.pdf', 'pdf'), 'résumé final.pdf');
    assert.equal(documentFileName(`http://docs.example/${'x'.repeat(300)}.pdf`, 'pdf').length, 104);
  });

  test('keeps the server\'s type only when no browser shows it as a page', () => {
    assert.equal(documentContentType('application/pdf', 'pdf', null), 'application/pdf');
    assert.equal(documentContentType('application/octet-stream', 'pdf', null), 'application/octet-stream');
    assert.equal(documentContentType('text/html; charset=utf-8', 'pdf', null), 'application/pdf');
    assert.equal(documentContentType('image/svg+xml', 'pdf', null), 'application/pdf');
    assert.equal(documentContentType(null, 'pdf', null), 'application/pdf');
    assert.equal(documentContentType('text/plain', 'text', 'windows-1252'), 'text/plain; charset=windows-1252');
    assert.equal(documentContentType('text/plain; charset=ISO-8859-1', 'text', null), 'text/plain; charset=ISO-8859-1');
    assert.equal(documentContentType('text/html', 'text', 'utf-8'), 'text/plain; charset=utf-8');
    assert.equal(documentContentType('text/plain', 'text', 'utf-8"\r\nX: y'), 'text/plain', 'a charset that is no token is left out');
  });

  test('is sent as an attachment, its exact name in filename*', () => {
    assert.equal(attachmentDisposition('R-FAQ.pdf'), `attachment; filename="R-FAQ.pdf"; filename*=UTF-8''R-FAQ.pdf`);
    assert.equal(attachmentDisposition('résumé final.pdf'), `attachment; filename="r_sum__final.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.pdf`);
  });

  test('has an address of its own under both transports', () => {
    assert.deepEqual(parseViewerUrl(new URL('http://127.0.0.1/stored/my%20crawl/12/file'), 'serve'), { kind: 'file', collection: 'my crawl', seq: 12 });
    assert.deepEqual(parseViewerUrl(new URL('forager-page://my%20crawl/12/file'), 'protocol'), { kind: 'file', collection: 'my crawl', seq: 12 });
    assert.equal(parseViewerUrl(new URL('http://127.0.0.1/stored/c/12/file?version=2'), 'serve'), undefined);
    assert.equal(parseViewerUrl(new URL('http://127.0.0.1/stored/c/file'), 'serve'), undefined);
    assert.deepEqual(parseViewerUrl(new URL('http://127.0.0.1/stored/file/12'), 'serve'), { kind: 'page', collection: 'file', seq: 12 }, 'a collection named "file"');
  });
});
