import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstHeader, headerMap } from '../../../../crawler/net/header-pairs.ts';

test('firstHeader finds the first value of a name in any case', () => {
  const pairs: [string, string][] = [['ETag', '"a"'], ['etag', '"b"']];
  assert.equal(firstHeader(pairs, 'etag'), '"a"');
  assert.equal(firstHeader(pairs, 'location'), undefined);
});

test('headerMap lowercases names and joins repeated fields in order', () => {
  const map = headerMap([['Content-Type', 'text/html'], ['Set-Cookie', 'a=1'], ['set-cookie', 'b=2']]);
  assert.deepEqual({ ...map }, { 'content-type': 'text/html', 'set-cookie': 'a=1, b=2' });
});

test('headerMap keeps a header named like an object property as a plain header', () => {
  const map = headerMap([['__proto__', 'x'], ['Constructor', 'y']]);
  assert.equal(Object.getPrototypeOf(map), null);
  assert.equal(map['__proto__'], 'x');
  assert.equal(map.constructor, 'y');
});
