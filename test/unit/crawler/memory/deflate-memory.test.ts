import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { deflateMemory } from '../../../../crawler/memory/deflate-memory.ts';

describe('deflate memory', () => {
  it('fits the window to the input, from 9 to 15 bits, and what it deflates inflates with the defaults', () => {
    let seed = 3;
    const words = ['page', 'index', 'database', 'the', 'a', 'transaction', 'log'];
    for (const size of [0, 1, 100, 511, 512, 513, 5_000, 40_000, 200_000]) {
      const text = Buffer.alloc(size);
      for (let i = 0; i < size; ) for (const c of `${words[(seed = (seed * 48271) % 2147483647) % words.length]} `) if (i < size) text[i++] = c.charCodeAt(0);
      const { windowBits, memLevel } = deflateMemory(size);
      assert.ok(windowBits >= 9 && windowBits <= 15 && memLevel >= 1 && memLevel <= 8, `${size} bytes: window ${windowBits}, memLevel ${memLevel}`);
      if (size <= 1 << 15) assert.ok(1 << windowBits >= size, `${size} bytes fit a window of ${windowBits} bits`);
      assert.deepEqual(gunzipSync(gzipSync(text, { level: 1, windowBits, memLevel })), text);
      assert.deepEqual(inflateRawSync(deflateRawSync(text, { level: 1, windowBits, memLevel })), text);
    }
  });
});
