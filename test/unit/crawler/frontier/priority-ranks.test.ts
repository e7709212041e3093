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

  it('counts across the edges of its coarse buckets and at both ends, against a count of every bucket', () => {
    const ranks = new PriorityRanks();
    const counts = new Map<number, number>();
    const put = (bucket: number, delta: 1 | -1): void => {
      ranks.add(bucket, delta);
      counts.set(bucket, (counts.get(bucket) ?? 0) + delta);
    };
    const edges = [0, 1, 254, 255, 256, 257, 511, 512, 32767, 32768, 65279, 65280, 65534, 65535];
    for (const [i, bucket] of edges.entries()) for (let n = 0; n <= i % 3; n++) put(bucket, 1);
    put(256, -1);
    put(65535, -1);
    const expected = (bucket: number): number => [...counts].filter(([b]) => b > bucket).reduce((n, [, c]) => n + c, 0);
    for (const probe of [...edges, 100, 300, 40000]) assert.equal(ranks.above(probe), expected(probe), `above bucket ${probe}`);
    assert.equal(ranks.size, [...counts.values()].reduce((a, b) => a + b, 0));
  });
});
