import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ForagerError } from '../../../../crawler/errors.ts';
import { BacklinkStrategy } from '../../../../crawler/ordering/backlink.ts';
import { ChangeSet, CrawlGraph } from '../../../../crawler/ordering/crawl-graph.ts';
import { FprStrategy } from '../../../../crawler/ordering/fpr.ts';
import { createRandomStrategy, randomPriority } from '../../../../crawler/ordering/random.ts';
import { createStrategy, strategyNames } from '../../../../crawler/ordering/registry.ts';
import type { OrderingStrategy } from '../../../../crawler/ordering/strategy.ts';

/** Feeds one fetched page the way the engine does: its links, then the verdict. */
function crawlPage(s: OrderingStrategy, known: Set<number>, id: number, outlinks: number[], hot = false): void {
  for (const dst of outlinks) {
    s.linked({ srcId: id, dstId: dst, isNew: !known.has(dst), url: `https://x.example/${dst}`, depth: 1, anchor: '', context: '' });
    known.add(dst);
  }
  s.fetched({ id, relevance: hot ? 1 : 0, hot, terms: [], outlinks: [...new Set(outlinks)] });
}

function seed(s: OrderingStrategy, known: Set<number>, id: number): void {
  s.linked({ srcId: null, dstId: id, isNew: !known.has(id), url: `https://x.example/${id}`, depth: 0, anchor: '', context: '' });
  known.add(id);
}

describe('registry', () => {
  it('offers every non-learned strategy by name', () => {
    for (const name of ['bfs', 'random', 'backlink', 'pagerank', 'fpr', 'cho']) {
      assert.ok(strategyNames().includes(name), name);
      assert.equal(createStrategy(name, { query: 'q', randomSeed: 1 }).name, name);
    }
  });
});

describe('random strategy', () => {
  it('gives the same permutation for the same seed, whatever order URLs arrive in', () => {
    const a = createRandomStrategy({ query: '', randomSeed: 42 });
    const b = createRandomStrategy({ query: '', randomSeed: 42 });
    const ids = Array.from({ length: 2000 }, (_, i) => i + 1);
    const knownA = new Set<number>();
    const knownB = new Set<number>();
    for (const id of ids) seed(a, knownA, id);
    for (const id of [...ids].reverse()) seed(b, knownB, id);
    const orderA = [...ids].sort((x, y) => a.priority(y) - a.priority(x));
    const orderB = [...ids].sort((x, y) => b.priority(y) - b.priority(x));
    assert.deepEqual(orderA, orderB);
    assert.equal(new Set(ids.map((id) => a.priority(id))).size, ids.length, 'no ties');
    assert.deepEqual(a.takeChanged(), []);
    assert.equal(a.needsHistory, false);
  });

  it('changes the order with the seed, and draws uniformly in [0, 1)', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => i);
    const order = (s: number): number[] => [...ids].sort((x, y) => randomPriority(s, y) - randomPriority(s, x));
    assert.notDeepEqual(order(1).slice(0, 50), order(2).slice(0, 50));
    const draws = ids.map((id) => randomPriority(7, id));
    assert.ok(draws.every((d) => d >= 0 && d < 1));
    const mean = draws.reduce((x, y) => x + y, 0) / draws.length;
    assert.ok(Math.abs(mean - 0.5) < 0.02, `mean ${mean}`);
    const lowTenth = draws.filter((d) => d < 0.1).length / draws.length;
    assert.ok(Math.abs(lowTenth - 0.1) < 0.02, `share below 0.1: ${lowTenth}`);
  });

  it('explains its draw', () => {
    const s = createRandomStrategy({ query: '', randomSeed: 3 });
    const e = s.explain(17);
    assert.equal(e.priority, s.priority(17));
    assert.equal(e.signals[0]?.name, 'random-draw');
  });
});

describe('backlink strategy', () => {
  it('counts distinct fetched pages linking to a URL, not repeats, seeds or self-links', () => {
    const s = new BacklinkStrategy();
    const known = new Set<number>();
    seed(s, known, 1);
    crawlPage(s, known, 1, [2, 3, 2, 1]);
    assert.equal(s.priority(2), 1);
    assert.equal(s.priority(3), 1);
    assert.equal(s.priority(1), 0, 'the seed event and the self-link do not count');
    crawlPage(s, known, 2, [3, 4]);
    crawlPage(s, known, 4, [3]);
    assert.equal(s.priority(3), 3);
    assert.equal(s.priority(4), 1);
    const e = s.explain(3);
    assert.deepEqual(e.signals.map((x) => [x.name, x.value]), [['backlinks', 3]]);
  });

  it('reports known URLs whose count rose, each once; new URLs are read when they arrive', () => {
    const s = new BacklinkStrategy();
    const known = new Set<number>();
    seed(s, known, 1);
    crawlPage(s, known, 1, [2, 3]);
    assert.deepEqual(s.takeChanged(), [], 'both targets were new');
    crawlPage(s, known, 2, [3, 5]);
    crawlPage(s, known, 5, [3]);
    assert.deepEqual(s.takeChanged(), [3]);
    assert.deepEqual(s.takeChanged(), []);
  });
});

describe('fpr strategy', () => {
  it('matches a hand computation of fractional PageRank (d = 0.9)', () => {
    const s = new FprStrategy(0.9);
    const known = new Set<number>();
    seed(s, known, 1);
    seed(s, known, 9);
    assert.ok(Math.abs(s.priority(1) - 0.1) < 1e-12, 'a seed starts with (1 - d)');
    crawlPage(s, known, 1, [2, 3]);
    // fpr(2) = fpr(3) = 0.9 · 0.1 / 2
    assert.ok(Math.abs(s.priority(2) - 0.045) < 1e-12);
    assert.ok(Math.abs(s.priority(3) - 0.045) < 1e-12);
    assert.deepEqual(s.takeChanged().sort(), [2, 3]);
    crawlPage(s, known, 2, [3, 4, 1]);
    // share = 0.9 · 0.045 / 3 = 0.0135; the fetched page 1 gets nothing.
    assert.ok(Math.abs(s.priority(3) - 0.0585) < 1e-12);
    assert.ok(Math.abs(s.priority(4) - 0.0135) < 1e-12);
    assert.ok(Math.abs(s.priority(1) - 0.1) < 1e-12);
    assert.deepEqual(s.takeChanged().sort(), [3, 4]);
    // The seed 9 also links to 3: 0.9 · 0.1 / 1.
    crawlPage(s, known, 9, [3]);
    assert.ok(Math.abs(s.priority(3) - 0.1485) < 1e-12);
    const e = s.explain(3);
    assert.equal(e.priority, s.priority(3));
    assert.equal(e.signals[0]?.name, 'fractional-pagerank');
  });

  it('hands nothing to children fetched before', () => {
    const s = new FprStrategy(0.9);
    const known = new Set<number>();
    seed(s, known, 1);
    crawlPage(s, known, 1, [2]);
    crawlPage(s, known, 2, [1, 3]);
    const before = s.priority(2);
    crawlPage(s, known, 3, [2]);
    assert.equal(s.priority(2), before);
  });
});

describe('crawl graph', () => {
  it('keeps nodes, pages and edges in compressed rows', () => {
    const g = new CrawlGraph();
    assert.equal(g.addNode(5), true);
    assert.equal(g.addNode(5), false);
    g.addPage(5, [7, 3000]);
    g.addPage(7, []);
    assert.equal(g.nodeCount, 3);
    assert.deepEqual([...g.nodes()], [5, 7, 3000]);
    assert.deepEqual([...g.pages()], [5, 7]);
    assert.deepEqual([...g.pageStarts()], [0, 2, 2]);
    assert.equal(g.isFetched(5), true);
    assert.equal(g.isFetched(3000), false);
    assert.deepEqual([g.firstEdge(5), g.endEdge(5), g.edge(1)], [0, 2, 3000]);
    assert.equal(g.firstEdge(3000), -1);
  });

  it('refuses ids no array can index', () => {
    const g = new CrawlGraph();
    assert.throws(() => g.addNode(-1), (err: unknown) => err instanceof ForagerError && err.code === 'ORDERING_ID');
    assert.throws(() => g.addNode(2 ** 40), ForagerError);
  });

  it('lists each changed id once', () => {
    const c = new ChangeSet();
    c.add(3);
    c.add(70_000);
    c.add(3);
    assert.deepEqual(c.take(), [3, 70_000]);
    c.add(3);
    assert.deepEqual(c.take(), [3]);
  });
});
