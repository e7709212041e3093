import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClockCache } from '../../../../crawler/frontier/clock-cache.ts';
import { HostScheduler, type SchedulableHost } from '../../../../crawler/frontier/host-scheduler.ts';
import { politeWaitMs, retryBackoffMs } from '../../../../crawler/frontier/politeness.ts';
import { UrlHeap } from '../../../../crawler/frontier/url-heap.ts';

describe('UrlHeap', () => {
  it('pops by priority, then by discovery order, for any insertion order', () => {
    const heap = new UrlHeap();
    const entries: [number, number][] = [];
    let seed = 7;
    for (let id = 1; id <= 500; id++) {
      seed = (seed * 48271) % 2147483647;
      entries.push([id, seed % 5]);
    }
    for (const [id, p] of [...entries].reverse()) heap.push(id, p);
    const expected = [...entries].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
    const popped: number[] = [];
    for (let id = heap.pop(); id !== undefined; id = heap.pop()) popped.push(id);
    assert.deepEqual(popped, expected);
    assert.equal(heap.size, 0);
  });

  it('peeks without removing, lists ids, and clears', () => {
    const heap = new UrlHeap();
    heap.push(3, 0);
    heap.push(9, 2);
    assert.deepEqual(heap.peek(), { id: 9, priority: 2 });
    assert.equal(heap.size, 2);
    assert.deepEqual([...heap.ids()].sort(), [3, 9]);
    heap.clear();
    assert.equal(heap.pop(), undefined);
  });
});

describe('UrlHeap: compaction', () => {
  it('keeps one entry per live URL at its current priority, in heap order, and gives back space', () => {
    const heap = new UrlHeap();
    for (let round = 0; round < 50; round++) for (let id = 1; id <= 40; id++) heap.push(id, (id * 7 + round) % 13);
    assert.equal(heap.size, 2000);
    const live = new Map<number, number>();
    for (let id = 2; id <= 40; id += 2) live.set(id, id % 5);
    heap.compact((id) => live.get(id));
    assert.equal(heap.size, live.size, 'stale and repeated entries are gone');
    const popped: number[] = [];
    for (let id = heap.pop(); id !== undefined; id = heap.pop()) popped.push(id);
    assert.deepEqual(popped, [...live].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id), 'ordered by current priority, then id');
    for (let id = 0; id < 1000; id++) heap.push(id, 0);
    heap.compact(() => undefined);
    assert.equal(heap.size, 0);
    for (let i = 0; i < 8; i++) heap.push(i, i);
    assert.equal(heap.full, true, 'the arrays shrank back to the smallest capacity');
  });
});

describe('UrlHeap: compaction cost', () => {
  it('compacts rarely when the heap is nearly all live URLs (no compaction per push)', () => {
    const heap = new UrlHeap();
    const live = new Map<number, number>();
    for (let id = 0; id < 4096; id++) {
      live.set(id, id);
      heap.push(id, id);
    }
    let reads = 0;
    const current = (id: number): number | undefined => {
      reads++;
      return live.get(id);
    };
    // New URLs, one in fifty a re-push: compactions free little, and must not come often.
    let next = 4096;
    for (let change = 0; change < 200_000; change++) {
      const id = change % 50 === 0 ? change % 4096 : next++;
      live.set(id, change);
      if (heap.full) heap.compact(current);
      heap.push(id, change);
    }
    // Amortised: fewer than two entries read per push (without the guard, 4.4).
    assert.ok(reads < 2 * 204_096, `${reads} entries read by compactions`);
  });
});

describe('ClockCache', () => {
  it('returns what was stored and counts hits', () => {
    const cache = new ClockCache(4);
    cache.set(1n, 10);
    cache.set(2n, 20);
    assert.equal(cache.get(1n), 10);
    assert.equal(cache.get(3n), undefined);
    assert.equal(cache.hits, 1);
    assert.equal(cache.lookups, 2);
    assert.equal(cache.hitRate, 0.5);
  });

  it('evicts an unreferenced entry before a referenced one', () => {
    const cache = new ClockCache(3);
    cache.set(1n, 1);
    cache.set(2n, 2);
    cache.set(3n, 3);
    cache.get(1n);
    cache.get(3n);
    cache.set(4n, 4);
    assert.equal(cache.get(2n), undefined, 'the one entry not used since it was stored goes first');
    assert.equal(cache.get(1n), 1);
    assert.equal(cache.get(3n), 3);
    assert.equal(cache.get(4n), 4);
    assert.equal(cache.size, 3);
  });

  it('never holds more than its capacity', () => {
    const cache = new ClockCache(100);
    for (let i = 0; i < 10_000; i++) cache.set(BigInt(i), i);
    assert.equal(cache.size, 100);
    let present = 0;
    for (let i = 0; i < 10_000; i++) if (cache.get(BigInt(i)) !== undefined) present++;
    assert.equal(present, 100);
  });

  it('tells apart fingerprints that differ only in one half, negative ones included', () => {
    const cache = new ClockCache(8);
    const keys = [1n << 32n, 2n << 32n, 1n, -1n, -(1n << 32n), (1n << 63n) - 1n, -(1n << 63n)];
    keys.forEach((key, i) => cache.set(key, i));
    keys.forEach((key, i) => assert.equal(cache.get(key), i, String(key)));
    assert.equal(cache.get(3n << 32n), undefined);
  });

  it('under heavy eviction, agrees with a plain list that keeps the same CLOCK', () => {
    // The reference keeps slots in an array and searches it: no index to get wrong.
    const capacity = 64;
    const cache = new ClockCache(capacity);
    const keys: bigint[] = [];
    const values: number[] = [];
    const referenced: number[] = [];
    let hand = 0;
    let seed = 12345;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 20_000; i++) {
      // Few distinct keys (so hits and updates happen), spread over both halves.
      const key = BigInt.asIntN(64, (BigInt(next() % 97) << 32n) | BigInt(next() % 53));
      const at = keys.indexOf(key);
      if (next() % 2 === 0) {
        assert.equal(cache.get(key), at === -1 ? undefined : values[at], `get ${key} at step ${i}`);
        if (at !== -1) referenced[at] = 1;
        continue;
      }
      cache.set(key, i);
      if (at !== -1) {
        values[at] = i;
        referenced[at] = 1;
      } else if (keys.length < capacity) {
        keys.push(key);
        values.push(i);
        referenced.push(0);
      } else {
        while (referenced[hand] === 1) {
          referenced[hand] = 0;
          hand = (hand + 1) % capacity;
        }
        keys[hand] = key;
        values[hand] = i;
        referenced[hand] = 0;
        hand = (hand + 1) % capacity;
      }
    }
    assert.equal(cache.size, capacity);
    keys.forEach((key, i) => assert.equal(cache.get(key), values[i], `resident ${key}`));
  });
});

function host(id: number, nextAllowedAt: number, priorities: number[]): SchedulableHost {
  const queue = new UrlHeap();
  priorities.forEach((p, i) => queue.push(id * 100 + i, p));
  return { id, queue, inflight: false, nextAllowedAt, scheduled: false, turnsWanted: 0 };
}

describe('HostScheduler', () => {
  it('gives the ready host whose best URL ranks highest, and says when to look again', () => {
    const scheduler = new HostScheduler<SchedulableHost>();
    const a = host(1, 0, [1]);
    const b = host(2, 0, [5]);
    const c = host(3, 1000, [9]);
    for (const h of [a, b, c]) scheduler.offer(h);
    const first = scheduler.next(10);
    assert.equal(first.kind === 'host' && first.host.id, 2);
    const second = scheduler.next(10);
    assert.equal(second.kind === 'host' && second.host.id, 1);
    assert.deepEqual(scheduler.next(10), { kind: 'wait', until: 1000 });
    const third = scheduler.next(1000);
    assert.equal(third.kind === 'host' && third.host.id, 3);
    assert.deepEqual(scheduler.next(1000), { kind: 'idle' });
  });

  it('never offers a host that is in flight or has nothing queued, nor one twice', () => {
    const scheduler = new HostScheduler<SchedulableHost>();
    const busy = host(1, 0, [1]);
    busy.inflight = true;
    const empty = host(2, 0, []);
    const twice = host(3, 0, [1]);
    scheduler.offer(busy);
    scheduler.offer(empty);
    scheduler.offer(twice);
    scheduler.offer(twice);
    const next = scheduler.next(0);
    assert.equal(next.kind === 'host' && next.host.id, 3);
    assert.deepEqual(scheduler.next(0), { kind: 'idle' });
  });
});

describe('politeness', () => {
  const settings = { delayMs: 1000, delayFactor: 2, maxCrawlDelayMs: 30_000 };
  it('waits the largest of the delay, Crawl-delay and k × response time', () => {
    assert.equal(politeWaitMs(settings, 100, undefined), 1000);
    assert.equal(politeWaitMs(settings, 800, undefined), 1600);
    assert.equal(politeWaitMs(settings, 100, 5), 5000);
  });
  it('caps Crawl-delay by the setting', () => {
    assert.equal(politeWaitMs(settings, 100, 3600), 30_000);
  });
  it('backs off exponentially after failures, within the cap', () => {
    assert.equal(retryBackoffMs(settings, 1), 2000);
    assert.equal(retryBackoffMs(settings, 3), 8000);
    assert.equal(retryBackoffMs(settings, 20), 30_000);
  });
});
