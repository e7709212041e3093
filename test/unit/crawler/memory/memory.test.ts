import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { enlarge } from '../../../../crawler/memory/enlarge.ts';
import { freeNow, freeWholeView } from '../../../../crawler/memory/free-buffer.ts';

describe('enlarge', () => {
  it('keeps the values, fills the new entries and frees the old column at once', () => {
    const old = Float64Array.from([1.5, 2.5, 3.5]);
    const grown = enlarge(old, 6, -1);
    assert.deepEqual([...grown], [1.5, 2.5, 3.5, -1, -1, -1]);
    assert.equal(old.byteLength, 0, 'the old column gave its memory to the new one');
    assert.deepEqual([...enlarge(Uint8Array.from([7]), 3)], [7, 0, 0]);
  });

  it('makes only the copied values resident, not the room it adds', () => {
    // 32 MB of written values grown threefold: the 64 MB of new room holds zeros nobody wrote,
    // which cost no memory. ArrayBuffer.transfer(capacity) zero-fills it by hand: +64 MB.
    const column = new Float64Array(4 << 20).fill(1);
    const before = process.memoryUsage.rss();
    const grown = enlarge(column, 12 << 20);
    const added = process.memoryUsage.rss() - before;
    assert.equal(grown[(4 << 20) - 1], 1);
    assert.ok(added < 16 << 20, `growing added ${(added / 1048576).toFixed(1)} MB of resident memory`);
  });

  it('copies a view of a larger buffer and leaves that buffer alone', () => {
    const whole = Int32Array.from([1, 2, 3, 4]);
    const grown = enlarge(whole.subarray(1, 3), 4);
    assert.deepEqual([...grown], [2, 3, 0, 0]);
    assert.deepEqual([...whole], [1, 2, 3, 4]);
  });
});

describe('freeing buffers at once', () => {
  it('frees a buffer, and a view that spans all of its buffer', () => {
    const buffer = new ArrayBuffer(64);
    freeNow(buffer);
    assert.equal(buffer.detached, true);
    const view = new Uint8Array(32);
    freeWholeView(view);
    assert.equal(view.buffer.detached, true);
    freeNow(buffer);
    freeWholeView(null);
  });

  it('leaves a buffer alone when the view covers only part of it', () => {
    const whole = new Uint8Array(8).fill(5);
    freeWholeView(whole.subarray(0, 4));
    freeWholeView(whole.subarray(4));
    assert.equal(whole.buffer.detached, false);
    assert.deepEqual([...whole], [5, 5, 5, 5, 5, 5, 5, 5]);
  });

  it('leaves a SharedArrayBuffer to V8', () => {
    const shared = new Int32Array(new SharedArrayBuffer(16));
    freeWholeView(shared);
    shared[0] = 7;
    assert.equal(shared[0], 7);
  });
});
