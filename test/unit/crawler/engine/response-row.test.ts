import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FetchResult } from '../../../../crawler/net/fetch-page.ts';
import { responseRow } from '../../../../crawler/engine/response-row.ts';

const RESULT: FetchResult = {
  url: 'http://site.test/a',
  status: 200,
  statusText: 'OK',
  httpVersion: '1.1',
  headers: { 'content-type': 'text/html' },
  rawHeaders: [['Content-Type', 'text/html']],
  body: Buffer.from('<p>hi</p>'),
  bodySkipped: false,
  timings: { startedAt: 1_000, headersMs: 20, totalMs: 75 },
  remoteAddress: '127.0.0.1',
  requestHeaders: 'GET /a HTTP/1.1\r\nhost: site.test\r\n',
  bytesReceived: 42,
};

test('a fetch result becomes the response columns pages and revisits rows share', () => {
  assert.deepEqual(responseRow(RESULT), {
    status: 200,
    httpVersion: '1.1',
    statusText: 'OK',
    headers: [['Content-Type', 'text/html']],
    requestHead: 'GET /a HTTP/1.1\r\nhost: site.test\r\n',
    startedAt: 1_000,
    fetchedAt: 1_075,
    responseMs: 75,
    wireBytes: 42,
    remoteAddress: '127.0.0.1',
  });
});

test('what the fetch did not report is stored as null', () => {
  const { remoteAddress: _address, requestHeaders: _head, ...bare } = RESULT;
  const row = responseRow(bare);
  assert.equal(row.remoteAddress, null);
  assert.equal(row.requestHead, null);
});
