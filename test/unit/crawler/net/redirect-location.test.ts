import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redirectLocation } from '../../../../crawler/net/redirect-location.ts';

const BASE = 'http://site.test/dir/page';

test('a 3xx Location resolves against the URL that answered', () => {
  assert.equal(redirectLocation(301, [['Location', '/b']], BASE), 'http://site.test/b');
  assert.equal(redirectLocation(302, [['location', 'next']], BASE), 'http://site.test/dir/next');
  assert.equal(redirectLocation(307, [['LOCATION', ' https://other.test/x ']], BASE), 'https://other.test/x', 'names in any case, the value trimmed');
});

test('the first Location counts', () => {
  assert.equal(redirectLocation(302, [['X-Other', 'a'], ['Location', '/first'], ['location', '/second']], BASE), 'http://site.test/first');
});

test('non-ASCII Location bytes are read as UTF-8, as browsers read them', () => {
  // The header value holds one char per byte received: "é" sent as UTF-8 arrives as "Ã©".
  const received = Buffer.from('/café', 'utf8').toString('latin1');
  assert.equal(redirectLocation(301, [['Location', received]], BASE), 'http://site.test/caf%C3%A9');
});

test('no location outside 3xx, nor for a missing or unparsable Location', () => {
  assert.equal(redirectLocation(200, [['Location', '/b']], BASE), undefined);
  assert.equal(redirectLocation(400, [['Location', '/b']], BASE), undefined);
  assert.equal(redirectLocation(299, [['Location', '/b']], BASE), undefined);
  assert.equal(redirectLocation(301, [['Content-Type', 'text/html']], BASE), undefined);
  assert.equal(redirectLocation(301, [['Location', 'http://[bad']], BASE), undefined);
});
