import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PageRankStrategy } from '../../../../crawler/ordering/pagerank.ts';
import type { OrderingStrategy } from '../../../../crawler/ordering/strategy.ts';

function crawlPage(s: OrderingStrategy, known: Set<number>, id: number, outlinks: number[]): void {
  for (const dst of outlinks) {
    s.linked({ srcId: id, dstId: dst, isNew: !known.has(dst), url: `https://x.example/${dst}`, depth: 1, anchor: '', context: '' });
    known.add(dst);
  }
  s.fetched({ id, relevance: 0, hot: false, terms: [], outlinks });
}

function seed(s: OrderingStrategy, known: Set<number>, id: number): void {
  s.linked({ srcId: null, dstId: id, isNew: true, url: `https://x.example/${id}`, depth: 0, anchor: '', context: '' });
  known.add(id);
}

/** Textbook PageRank by dense iteration: dangling rank spread uniformly, uniform jump. */
function referencePageRank(nodes: number[], links: Map<number, number[]>, d: number): Map<number, number> {
  const n = nodes.length;
  let rank = new Map(nodes.map((v) => [v, 1 / n]));
  for (let iteration = 0; iteration < 2000; iteration++) {
    let dangling = 0;
    for (const v of nodes) if ((links.get(v) ?? []).length === 0) dangling += rank.get(v) as number;
    const next = new Map(nodes.map((v) => [v, (1 - d) / n + (d * dangling) / n]));
    for (const [u, out] of links) for (const v of out) next.set(v, (next.get(v) as number) + (d * (rank.get(u) as number)) / out.length);
    rank = next;
  }
  return rank;
}

describe('pagerank strategy', () => {
  it('computes PageRank on the crawled graph: ranks sum to 1, the hub first, as a reference iteration says', () => {
    const s = new PageRankStrategy({ growth: 0, tolerance: 1e-13, maxIterations: 5000 });
    const known = new Set<number>();
    seed(s, known, 1);
    const links = new Map<number, number[]>([
      [1, [2, 3, 4]],
      [2, [4, 5]],
      [3, [4, 6]],
    ]);
    for (const [id, out] of links) crawlPage(s, known, id, out);
    const nodes = [1, 2, 3, 4, 5, 6];
    const reference = referencePageRank(nodes, links, 0.9);
    let sum = 0;
    for (const v of nodes) {
      sum += s.pagerank.rank(v);
      assert.ok(Math.abs(s.pagerank.rank(v) - (reference.get(v) as number)) < 1e-9, `rank of ${v}: ${s.pagerank.rank(v)} vs ${reference.get(v)}`);
    }
    assert.ok(Math.abs(sum - 1) < 1e-9, `sum ${sum}`);
    const waiting = [4, 5, 6];
    const best = waiting.reduce((a, b) => (s.priority(b) > s.priority(a) ? b : a));
    assert.equal(best, 4, 'the URL every page links to');
    // Published priority: rank × known URLs, so 1 is an average URL.
    assert.ok(Math.abs(s.priority(4) - s.pagerank.rank(4) * nodes.length) < 1e-9);
    const e = s.explain(4);
    assert.equal(e.priority, s.priority(4));
    assert.equal(e.signals[0]?.name, 'pagerank');
    assert.equal(e.signals[0]?.value, s.pagerank.rank(4));
  });

  it('recomputes in batches, and between batches pushes a fetched page rank share to its waiting children', () => {
    const s = new PageRankStrategy();
    const known = new Set<number>();
    seed(s, known, 1);
    const children = Array.from({ length: 100 }, (_, i) => 100 + i);
    crawlPage(s, known, 1, children);
    assert.equal(s.pagerank.runs, 1);
    s.takeChanged();
    const parent = 100;
    const before = s.pagerank.rank(101);
    const parentRank = s.pagerank.rank(parent);
    crawlPage(s, known, parent, [101, 102, 103, 1000, 1001]);
    assert.equal(s.pagerank.runs, 1, '5 more edges is less than 10% growth: no run');
    const share = (0.9 * parentRank) / 5;
    assert.ok(Math.abs(s.pagerank.rank(101) - (before + share)) < 1e-15);
    const changed = s.takeChanged();
    assert.ok(changed.includes(101) && changed.includes(1000), `changed: ${changed.join(',')}`);
    assert.ok(!changed.includes(parent) && !changed.includes(150), 'fetched pages and untouched URLs are not reported');
    assert.ok(s.priority(101) > s.priority(150));
    crawlPage(s, known, 101, Array.from({ length: 20 }, (_, i) => 2000 + i));
    assert.equal(s.pagerank.runs, 2, '20 more edges on 105 is more than 10%');
    let sum = 0;
    for (const v of known) sum += s.pagerank.rank(v);
    assert.ok(Math.abs(sum - 1) < 1e-6, `sum after the second run ${sum}`);
  });

  it('reports after a run only the waiting URLs whose standing moved', () => {
    const s = new PageRankStrategy({ growth: 0 });
    const known = new Set<number>();
    seed(s, known, 1);
    crawlPage(s, known, 1, [2, 3, 4, 5]);
    s.takeChanged();
    crawlPage(s, known, 2, [3]);
    const changed = s.takeChanged();
    assert.ok(changed.includes(3), 'the newly linked URL rose');
    assert.ok(!changed.includes(2) && !changed.includes(1), 'fetched pages are not waiting');
  });
});
