import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchOrder, type FetchedPage } from '../../../../crawler/merge/fetch-order.ts';

const stream = (...times: number[]): Iterator<FetchedPage> => times.map((fetchedAt, i) => ({ seq: i + 1, fetchedAt }))[Symbol.iterator]();
const order = (...streams: Iterator<FetchedPage>[]): string[] => [...fetchOrder(streams)].map((p) => `${p.shard}:${p.seq}`);

describe('fetchOrder', () => {
  it('interleaves the shards by fetch time', () => {
    assert.deepEqual(order(stream(10, 30, 50), stream(20, 40), stream(5, 60)), ['2:1', '0:1', '1:1', '0:2', '1:2', '0:3', '2:2']);
  });

  it('gives equal times to the lower shard first', () => {
    assert.deepEqual(order(stream(7, 9), stream(7, 8), stream(7)), ['0:1', '1:1', '2:1', '1:2', '0:2']);
  });

  it('never reorders a shard\'s own pages, even where their times run backwards', () => {
    // Shard 1's second page completed before its first: it still follows it.
    assert.deepEqual(order(stream(10, 20), stream(15, 5, 30)), ['0:1', '1:1', '1:2', '0:2', '1:3']);
  });

  it('copes with empty shards and none at all', () => {
    assert.deepEqual(order(stream(), stream(1), stream()), ['1:1']);
    assert.deepEqual(order(), []);
  });

  it('yields every page once over many shards', () => {
    let x = 12345;
    const random = (): number => (x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32;
    const shards = Array.from({ length: 40 }, () => {
      let t = 0;
      return Array.from({ length: Math.floor(random() * 50) }, () => (t += Math.floor(random() * 10)));
    });
    const merged = [...fetchOrder(shards.map((times) => stream(...times)))];
    assert.equal(merged.length, shards.reduce((n, s) => n + s.length, 0));
    for (let i = 1; i < merged.length; i++) {
      const [p, q] = [merged[i - 1], merged[i]] as [(typeof merged)[0], (typeof merged)[0]];
      assert.ok(p.fetchedAt < q.fetchedAt || (p.fetchedAt === q.fetchedAt && (p.shard < q.shard || (p.shard === q.shard && p.seq < q.seq))), `at ${i}`);
    }
  });
});
