import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { payloadAsReceived, type ArchiveRow } from '../../../../../crawler/export/warc/archive-rows.ts';
import { ExportError } from '../../../../../crawler/export/export-error.ts';
import { ORIGINAL_TRANSFER_ENCODING, requestHead, responseHead } from '../../../../../crawler/export/warc/http.ts';

function row(overrides: Partial<ArchiveRow> = {}): ArchiveRow {
  return {
    httpVersion: '1.1',
    statusText: 'OK',
    headers: [['Content-Type', 'text/html']],
    requestHead: null,
    payload: null,
    body: null,
    startedAt: 0,
    remoteAddress: null,
    note: null,
    ...overrides,
  };
}

describe('export: HTTP messages in WARC records', () => {
  it('writes the status line and the headers as received, byte for byte, repeated ones included', () => {
    // Stored header text is latin1-decoded: 'Ã©' is the UTF-8 bytes of 'é', and a lone 'é' is the byte 0xE9.
    const head = responseHead(row({ headers: [['Content-Type', 'text/html'], ['X-Utf8', 'caf\u00c3\u00a9'], ['X-Latin1', 'caf\u00e9'], ['link', '<a>'], ['Vary', 'x'], ['link', '<b>']] }), 200);
    const expected = Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Utf8: caf'),
      Buffer.from([0xc3, 0xa9]),
      Buffer.from('\r\nX-Latin1: caf'),
      Buffer.from([0xe9]),
      Buffer.from('\r\nlink: <a>\r\nVary: x\r\nlink: <b>\r\n\r\n'),
    ]);
    assert.deepEqual(head, expected);
  });

  it("leaves out the session's headers: Set-Cookie in any case, the others kept in order", () => {
    const head = responseHead(row({ headers: [['Content-Type', 'text/html'], ['set-cookie', 'a=1'], ['Vary', 'x'], ['Set-Cookie2', 'b=2'], ['SET-COOKIE', 'c=3']] }), 200);
    assert.equal(head.toString('latin1'), 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nVary: x\r\n\r\n');
  });

  it('renames Transfer-Encoding, since the payload is stored de-chunked', () => {
    const head = responseHead(row({ headers: [['Transfer-Encoding', 'chunked'], ['transfer-encoding', 'chunked']] }), 200).toString('latin1');
    assert.doesNotMatch(head, /^transfer-encoding:/im);
    assert.equal(head.split(`${ORIGINAL_TRANSFER_ENCODING}: chunked\r\n`).length - 1, 2);
  });

  it('keeps the status as stored, with an empty reason phrase when there was none', () => {
    assert.match(responseHead(row({ httpVersion: null, statusText: null }), 204).toString('latin1'), /^HTTP\/1\.1 204 \r\n/);
    assert.match(responseHead(row({ httpVersion: '1.0', statusText: 'Partial Content' }), 206).toString('latin1'), /^HTTP\/1\.0 206 Partial Content\r\n/);
  });

  it('writes the request as sent, or rebuilds it for pages stored before schema 2', () => {
    const sent = 'GET /a?b=1 HTTP/1.1\r\nhost: example.org\r\nuser-agent: UA\r\n';
    assert.equal(requestHead(row({ requestHead: sent }), 'http://example.org/a?b=1', 'other').toString('latin1'), `${sent}\r\n`);
    const rebuilt = requestHead(row(), 'http://example.org:8080/a/b?c=d', 'Forager/test').toString('latin1');
    assert.match(rebuilt, /^GET \/a\/b\?c=d HTTP\/1\.1\r\nhost: example\.org:8080\r\nuser-agent: Forager\/test\r\naccept: text\/html[^\r\n]*\r\naccept-encoding: gzip, deflate, br\r\n\r\n$/);
  });

  it('takes the payload as received: the stored encoded bytes, else the decoded body, else nothing', () => {
    const decoded = Buffer.from('<html>hello</html>');
    const encoded = gzipSync(decoded, { level: 9 });
    assert.deepEqual(payloadAsReceived(row({ payload: encoded, body: gzipSync(decoded) }), 1), { bytes: encoded, truncated: false });
    assert.deepEqual(payloadAsReceived(row({ body: gzipSync(decoded) }), 1), { bytes: decoded, truncated: false });
    assert.deepEqual(payloadAsReceived(row({ note: 'not-html:image/png' }), 1), { bytes: Buffer.alloc(0), truncated: true });
    assert.deepEqual(payloadAsReceived(row(), 1), { bytes: Buffer.alloc(0), truncated: false }, 'an empty HTML body was downloaded');
    assert.throws(() => payloadAsReceived(row({ body: Buffer.from('not gzip') }), 7), (err: unknown) => err instanceof ExportError && /page 7/.test(err.message));
  });
});
