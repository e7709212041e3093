import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryAfterMs } from '../../../../crawler/net/retry-after.ts';

test('Retry-After as seconds or as an HTTP date; anything else is ignored', () => {
  const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT');
  assert.equal(retryAfterMs('120', now), 120_000);
  assert.equal(retryAfterMs(' 0 ', now), 0);
  assert.equal(retryAfterMs('Sun, 06 Nov 1994 08:50:37 GMT', now), 60_000);
  assert.equal(retryAfterMs('Sun, 06 Nov 1994 08:00:00 GMT', now), 0, 'a date in the past: no wait');
  for (const junk of [undefined, '', '-5', '1.5', 'soon', '12abc', '2026-11-24']) assert.equal(retryAfterMs(junk, now), undefined, String(junk));
});
