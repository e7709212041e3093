import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChildrenWindow } from '../../../../../crawler/ordering/focused/children-window.ts';
import { PastFeatures } from '../../../../../crawler/ordering/focused/delayed-credit.ts';
import { FEATURE_COUNT } from '../../../../../crawler/ordering/focused/features.ts';

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('children window', () => {
  it('keeps each page\'s links until the window of pages is full, then forgets the oldest', () => {
    const w = new ChildrenWindow({ window: 3, maxPoolSize: 100 });
    w.ensure(10);
    for (let page = 0; page < 5; page++) w.remember(page, Int32Array.of(page * 10, page * 10 + 1), 2);
    assert.equal(w.childrenOf(0), undefined);
    assert.equal(w.childrenOf(1), undefined);
    assert.deepEqual([...(w.childrenOf(2) ?? [])], [20, 21]);
    assert.deepEqual([...(w.childrenOf(4) ?? [])], [40, 41]);
    assert.equal(w.childrenOf(7), undefined, 'a page never kept');
    assert.equal(w.childrenOf(99), undefined, 'an id beyond the column');
  });

  it('keeps only the first `count` entries of the array it is given, and no slot for a page without links', () => {
    const w = new ChildrenWindow({ window: 2, maxPoolSize: 100 });
    w.ensure(4);
    w.remember(1, Int32Array.of(5, 6, 7, 8), 2);
    w.remember(2, Int32Array.of(9), 0);
    w.remember(3, Int32Array.of(10), 1);
    assert.deepEqual([...(w.childrenOf(1) ?? [])], [5, 6], 'page 2 took no slot from page 1');
    assert.equal(w.childrenOf(2), undefined);
    assert.deepEqual([...(w.childrenOf(3) ?? [])], [10]);
  });

  it('forgets the oldest pages when the pool has no room, and never returns another page\'s links', () => {
    const maxRun = 40;
    // The second window starts with fewer slots than it may have, and its pool holds about as many pages as that: the slots grow after the pool has forgotten pages.
    const shapes = [[50, 200], [300, 700]] as const;
    for (const [window, pool, seed] of shapes.flatMap(([window, pool]) => [1, 2, 3, 4, 5].map((seed) => [window, pool, seed] as const))) {
      const random = lcg(seed);
      const w = new ChildrenWindow({ window, maxPoolSize: pool, initialPoolSize: 8 });
      const remembered: { page: number; links: number[] }[] = [];
      w.ensure(5000);
      for (let page = 0; page < 5000; page++) {
        const n = Math.floor(random() * random() * maxRun);
        const links = Array.from({ length: n }, (_, k) => page * 100 + k);
        w.remember(page, Int32Array.from(links), n);
        remembered.push({ page, links });

        // What is kept is the newest pages, each with exactly its own links.
        let kept = 0;
        let keptLinks = 0;
        let forgotten = false;
        for (let i = remembered.length - 1; i >= 0; i--) {
          const entry = remembered[i] as { page: number; links: number[] };
          const got = w.childrenOf(entry.page);
          if (entry.links.length === 0) {
            assert.equal(got, undefined);
            continue;
          }
          if (got === undefined) {
            forgotten = true;
            continue;
          }
          assert.ok(!forgotten, `seed ${seed}: page ${entry.page} kept after a newer page was forgotten`);
          assert.deepEqual([...got], entry.links, `seed ${seed}: page ${entry.page}`);
          kept++;
          keptLinks += entry.links.length;
        }
        if (n > 0) assert.ok(w.childrenOf(page) !== undefined, 'the newest page is always kept');
        assert.ok(kept <= window && keptLinks <= pool);
        // Room is lost only at the pool's end, less than one run: a page is forgotten early only when the pool is nearly full.
        if (forgotten && kept < window) assert.ok(keptLinks > pool - 2 * maxRun, `seed ${seed}, page ${page}: ${kept} pages, ${keptLinks} links kept`);
      }
    }
  });

  it('grows its pool only as far as the window\'s links need, up to the maximum', () => {
    const w = new ChildrenWindow({ window: 100, maxPoolSize: 1 << 20, initialPoolSize: 16 });
    w.ensure(10_001);
    for (let page = 0; page < 10_000; page++) w.remember(page, Int32Array.from({ length: 8 }, (_, k) => page * 8 + k), 8);
    // 100 pages of 8 links need 800 ids: one doubling past that at most, not the maximum.
    assert.ok(w.poolSize >= 800 && w.poolSize <= 2048, `pool of ${w.poolSize} ids`);
    for (let page = 9_900; page < 10_000; page++) assert.deepEqual([...(w.childrenOf(page) ?? [])], Array.from({ length: 8 }, (_, k) => page * 8 + k));
    assert.equal(w.childrenOf(9_899), undefined);

    const long = Int32Array.from({ length: 5000 }, (_, k) => k);
    w.remember(10_000, long, 5000);
    assert.ok(w.poolSize >= 5000, 'a page with more links than the pool holds grows it');
    assert.equal(w.childrenOf(10_000)?.length, 5000);
    assert.deepEqual([...(w.childrenOf(9_998) ?? [])], Array.from({ length: 8 }, (_, k) => 9_998 * 8 + k), 'growing kept the other pages\' links');
  });
});

describe('past features', () => {
  const features = (v: number) => new Float32Array(FEATURE_COUNT).fill(v);

  it('keeps the last `window` pages\' features, found by page id', () => {
    const past = new PastFeatures(2);
    past.keep(10, features(1));
    past.keep(3, features(2));
    past.keep(7, features(3));
    assert.equal(past.kept(10), undefined, 'forgotten: older than the window');
    assert.equal(past.kept(3)?.[0], 2);
    assert.equal(past.kept(7)?.[0], 3);
    assert.equal(past.kept(500), undefined);
  });

  it('grows its slots as pages come, keeping every page, until the window is full', () => {
    const past = new PastFeatures(100);
    for (let page = 0; page < 250; page++) {
      past.keep(page, features(page));
      if (page === 60) for (let p = 0; p <= 60; p++) assert.equal(past.kept(p)?.[0], p, `page ${p} kept while the slots grow`);
    }
    for (let page = 0; page < 150; page++) assert.equal(past.kept(page), undefined, `page ${page} is older than the window`);
    for (let page = 150; page < 250; page++) assert.equal(past.kept(page)?.[0], page, `page ${page} is in the window`);
  });

  it('credits a page only with a target above its grade and above what it was credited with', () => {
    const past = new PastFeatures(2);
    past.keep(4, features(1));
    assert.equal(past.creditable(4, 0.3, 0.5), undefined, 'not above its own grade');
    assert.ok(past.creditable(4, 0.6, 0.5) !== undefined);
    assert.equal(past.creditable(4, 0.6, 0.5), undefined, 'already credited with as much');
    assert.ok(past.creditable(4, 0.7, 0.5) !== undefined);
    past.keep(5, features(2));
    past.keep(6, features(3));
    assert.equal(past.creditable(4, 0.9, 0), undefined, 'forgotten');
    assert.ok(past.creditable(6, 0.1, 0) !== undefined, 'page 6 has page 4\'s slot, not its credit');
  });
});
