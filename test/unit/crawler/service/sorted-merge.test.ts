import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeSorted } from '../../../../crawler/service/sorted-merge.ts';

const ascending = (a: number, b: number): boolean => a < b;

describe('mergeSorted: a window of sorted streams merged', () => {
  it('gives the whole merge in order, and any window of it', () => {
    const streams = [[1, 4, 9], [], [2, 3, 10, 11], [5]];
    const all = [1, 2, 3, 4, 5, 9, 10, 11];
    assert.deepEqual(mergeSorted(streams, ascending, 0, 100), all);
    for (let skip = 0; skip <= all.length; skip++) {
      for (let take = 0; take <= 3; take++) assert.deepEqual(mergeSorted(streams, ascending, skip, take), all.slice(skip, skip + take), `skip ${skip} take ${take}`);
    }
  });

  it('gives ties to the lower stream, and keeps each stream\'s own order', () => {
    const streams = [[{ k: 1, s: 'a1' }, { k: 2, s: 'a2' }], [{ k: 1, s: 'b1' }, { k: 2, s: 'b2' }], [{ k: 1, s: 'c1' }]];
    assert.deepEqual(mergeSorted(streams, (x, y) => x.k < y.k, 0, 10).map((x) => x.s), ['a1', 'b1', 'c1', 'a2', 'b2']);
  });

  it('reads nothing past the window: an empty window or no streams give nothing', () => {
    assert.deepEqual(mergeSorted([[1, 2]], ascending, 0, 0), []);
    assert.deepEqual(mergeSorted([], ascending, 0, 5), []);
    assert.deepEqual(mergeSorted([[], []], ascending, 3, 5), []);
  });
});
