import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priorityBucket, PriorityRanks } from '../../../../crawler/frontier/priority-ranks.ts';

describe('priorityBucket', () => {
  it('keeps the order of priorities across signs, zero and infinities', () => {
    const ordered = [Number.NEGATIVE_INFINITY, -1e30, -5, -1, -0.001, 0, 0.001, 0.5, 1, 2, 1e30, Number.POSITIVE_INFINITY];
    const buckets = ordered.map(priorityBucket);
    for (let i = 1; i < buckets.length; i++) assert.ok((buckets[i] as number) > (buckets[i - 1] as number), `${ordered[i]} above ${ordered[i - 1]}`);
  });

  it('puts -0 with 0 and NaN lowest', () => {
    assert.equal(priorityBucket(-0), priorityBucket(0));
    assert.equal(priorityBucket(Number.NaN), priorityBucket(Number.NEGATIVE_INFINITY));
  });
});

describe('PriorityRanks', () => {
  it('counts the entries strictly above a bucket, against a sorted list', () => {
    const ranks = new PriorityRanks();
    let seed = 7;
    const values: number[] = [];
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const value = Math.round(((seed / 2 ** 31) * 20 - 10) * 4) / 4;
      values.push(value);
      ranks.add(priorityBucket(value), 1);
    }
    for (const removed of values.splice(0, 500)) ranks.add(priorityBucket(removed), -1);
    assert.equal(ranks.size, 1500);
    for (const probe of [-10, -3.25, 0, 0.25, 4, 9.75, 10]) {
      assert.equal(ranks.above(priorityBucket(probe)), values.filter((v) => v > probe).length, `above ${probe}`);
    }
  });
});
