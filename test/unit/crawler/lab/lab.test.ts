import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../../crawler/errors.ts';
import { evaluateBudgets, pstCurve } from '../../../../crawler/lab/evaluate.ts';
import { buildLabGraph, LabGraphBuilder, type LabGraph, type LabPageInput } from '../../../../crawler/lab/graph.ts';
import { LabHeap } from '../../../../crawler/lab/heap.ts';
import { runLabOnGraph } from '../../../../crawler/lab/run-lab.ts';
import { SYNTHETIC_QUERY, syntheticLabGraph } from '../../../../crawler/lab/synthetic.ts';
import { virtualCrawl } from '../../../../crawler/lab/virtual-crawl.ts';
import { createBfsStrategy } from '../../../../crawler/ordering/bfs.ts';
import { ChoStrategy } from '../../../../crawler/ordering/cho.ts';
import { createRandomStrategy } from '../../../../crawler/ordering/random.ts';
import { createStrategy } from '../../../../crawler/ordering/registry.ts';
import type { LinkEvent, OrderingStrategy, PageVerdict } from '../../../../crawler/ordering/strategy.ts';
import { RecordingStrategy } from '../../../support/recording-strategy.ts';

const url = (id: number): string => `https://site.example/p${id}`;

function page(hot: boolean, links: (number | [number, string])[], extra: Partial<LabPageInput> = {}): LabPageInput {
  return {
    url: '',
    hot,
    relevance: hot ? 0.9 : 0.1,
    terms: [],
    outlinks: links.map((l) => (typeof l === 'number' ? { id: l, url: url(l), anchor: 'more', context: '' } : { id: l[0], url: url(l[0]), anchor: l[1], context: '' })),
    ...extra,
  };
}

/** Seed 10 (cold) → 11 (hot), 12; 11 → 13 (hot), 99 (never stored); 12 → 14. T = 5 pages, 2 hot. */
function tinyGraph(): LabGraph {
  return buildLabGraph({
    seeds: [10],
    pages: new Map([
      [10, page(false, [11, 12], { url: url(10) })],
      [11, page(true, [13, 99])],
      [12, page(false, [14])],
      [13, page(true, [])],
      [14, page(false, [])],
    ]),
  });
}

const sourceOrder = (graph: LabGraph, order: Int32Array): number[] => [...order].map((v) => graph.sourceIds?.[v] as number);

/** A strategy with fixed priorities by source id, that records what it is told. */
class Scripted implements OrderingStrategy {
  readonly name = 'scripted';
  readonly events: string[] = [];
  readonly links: LinkEvent[] = [];
  readonly pages: PageVerdict[] = [];
  readonly priorities: Map<number, number>;
  changed: number[] = [];

  constructor(priorities: Map<number, number>) {
    this.priorities = priorities;
  }

  linked(link: LinkEvent): void {
    this.events.push(`link ${link.srcId}->${link.dstId}${link.isNew ? ' new' : ''}`);
    this.links.push({ ...link });
  }

  fetched(p: PageVerdict): void {
    this.events.push(`fetched ${p.id}`);
    this.pages.push(p);
  }

  priority(id: number): number {
    return this.priorities.get(id) ?? 0;
  }

  takeChanged(): number[] {
    const c = this.changed;
    this.changed = [];
    return c;
  }

  explain(id: number): { priority: number; signals: [] } {
    return { priority: this.priority(id), signals: [] };
  }
}

describe('LabHeap', () => {
  it('pops by priority, then discovery order, and moves an entry when its priority changes', () => {
    const heap = new LabHeap(100);
    const priorities = [3, 1, 3, 2, 5, 0, 2];
    priorities.forEach((p, seq) => heap.set(seq, p));
    heap.set(5, 4);
    heap.set(4, 1);
    const out: number[] = [];
    for (let seq = heap.pop(); seq !== -1; seq = heap.pop()) out.push(seq);
    // (seq, priority): 0:3 1:1 2:3 3:2 4:1 5:4 6:2
    assert.deepEqual(out, [5, 0, 2, 3, 6, 1, 4]);
  });

  it('raises an entry to a higher priority and leaves a lower one at its key, for the caller to find when it comes out', () => {
    const heap = new LabHeap(10);
    [3, 1, 2].forEach((p, seq) => heap.set(seq, p));
    heap.raise(1, 5);
    heap.raise(0, 0);
    heap.raise(7, 9);
    assert.equal(heap.size, 3, 'no entry made for an unknown discovery number');
    assert.deepEqual([heap.pop(), heap.poppedPriority], [1, 5]);
    assert.deepEqual([heap.pop(), heap.poppedPriority], [0, 3], 'the lowered entry keeps its key');
    assert.deepEqual([heap.pop(), heap.poppedPriority], [2, 2]);
  });
});

describe('virtualCrawl', () => {
  it('crawls breadth-first under bfs, skips URLs without a stored page at no cost, and stops at the budget', () => {
    const graph = tinyGraph();
    assert.equal(graph.pageCount, 5);
    assert.equal(graph.hotCount, 2);
    const full = virtualCrawl(graph, createBfsStrategy(), 5);
    assert.deepEqual(sourceOrder(graph, full.order), [10, 11, 12, 13, 14]);
    assert.equal(full.unavailable, 1, 'URL 99 came out between 13 and 14 and cost nothing');
    assert.equal(full.discovered, 6);
    assert.equal(full.linksProcessed, 5);
    const four = virtualCrawl(graph, createBfsStrategy(), 4);
    assert.deepEqual(sourceOrder(graph, four.order), [10, 11, 12, 13]);
    assert.equal(four.unavailable, 0);
    assert.equal(four.exhausted, false);
  });

  it('reports a frontier that runs dry before the budget', () => {
    const graph = buildLabGraph({ seeds: [1], pages: new Map([[1, page(false, [2])], [2, page(false, [])], [3, page(true, [])]]) });
    const crawl = virtualCrawl(graph, createBfsStrategy(), 10);
    assert.equal(crawl.order.length, 2);
    assert.equal(crawl.exhausted, true);
  });

  it('feeds the strategy what the engine would: links in order, then the stored verdict', () => {
    const graph = buildLabGraph({
      seeds: [1],
      pages: new Map([
        [1, page(false, [2, 3, 2, 1], { url: url(1), terms: ['alpha', 'beta'] })],
        [2, page(true, [3, 4])],
        [3, page(false, [])],
      ]),
    });
    const v = (source: number): number => (graph.sourceIds as Float64Array).indexOf(source);
    const s = new Scripted(new Map([[v(2), 1]]));
    virtualCrawl(graph, s, 3);
    const n = (source: number): number => v(source);
    assert.deepEqual(s.events.slice(0, 6), [
      `link null->${n(1)} new`,
      `link ${n(1)}->${n(2)} new`,
      `link ${n(1)}->${n(3)} new`,
      `link ${n(1)}->${n(2)}`,
      `link ${n(1)}->${n(1)}`,
      `fetched ${n(1)}`,
    ]);
    const first = s.pages[0] as PageVerdict;
    assert.deepEqual(first.outlinks, [n(2), n(3)], 'repeats once, no self-link');
    assert.deepEqual(first.terms, ['alpha', 'beta']);
    assert.equal(first.hot, false);
    const second = s.pages[1] as PageVerdict;
    assert.equal(second.id, n(2));
    assert.equal(second.hot, true);
    assert.ok(Math.abs(second.relevance - 0.9) < 1e-6);
    const to4 = s.links.find((l) => l.dstId === n(4));
    assert.deepEqual([to4?.depth, to4?.url, to4?.anchor, to4?.srcId], [2, url(4), 'more', n(2)]);
    assert.equal(s.links[0]?.depth, 0);
  });

  it('reports site resources as the engine does: kinds on links, sitemaps from robots.txt after the seeds, hints before fetched()', () => {
    // Seed 1 names search index 6; robots.txt named sitemap 5, which lists 2 and 3; the index lists 3 and 4.
    const b = new LabGraphBuilder();
    for (const id of [1, 2, 3, 4, 5, 6]) b.page(id, { url: url(id), hot: false, relevance: 0 });
    b.seed(1);
    b.kind(5, 'sitemap');
    b.kind(6, 'search-index');
    b.resourceRoot(5, 1);
    const links = (id: number, to: [number, string][]): void => {
      b.beginLinks(b.node(id));
      for (const [dst, anchor] of to) b.addLink(dst, url(dst), anchor, '');
    };
    links(1, [[6, '']]);
    links(5, [[2, ''], [3, '']]);
    b.setHints(b.node(5), [{ id: 2, source: 'sitemap', lastModified: 5 }]);
    links(6, [[3, 'Three'], [4, 'Four']]);
    b.setHints(b.node(6), [
      { id: 3, source: 'search-index', terms: ['three'], titleTerms: [] },
      { id: 4, source: 'search-index', terms: ['four'], titleTerms: ['four'] },
    ]);
    const graph = b.build();
    const recorder = new RecordingStrategy();
    virtualCrawl(graph, recorder, graph.pageCount);
    assert.deepEqual(recorder.events, [
      { type: 'linked', src: null, url: url(1), kind: 'page', anchor: '' },
      { type: 'linked', src: null, url: url(5), kind: 'sitemap', anchor: '' },
      { type: 'linked', src: url(1), url: url(6), kind: 'search-index', anchor: '' },
      { type: 'fetched', url: url(1) },
      { type: 'linked', src: url(5), url: url(2), kind: 'page', anchor: '' },
      { type: 'linked', src: url(5), url: url(3), kind: 'page', anchor: '' },
      { type: 'hinted', url: url(2), hint: { source: 'sitemap', lastModified: 5 } },
      { type: 'fetched', url: url(5) },
      { type: 'linked', src: url(6), url: url(3), kind: 'page', anchor: 'Three' },
      { type: 'linked', src: url(6), url: url(4), kind: 'page', anchor: 'Four' },
      { type: 'hinted', url: url(3), hint: { source: 'search-index', terms: ['three'], titleTerms: [] } },
      { type: 'hinted', url: url(4), hint: { source: 'search-index', terms: ['four'], titleTerms: ['four'] } },
      { type: 'fetched', url: url(6) },
      { type: 'fetched', url: url(2) },
      { type: 'fetched', url: url(3) },
      { type: 'fetched', url: url(4) },
    ]);
    assert.equal(virtualCrawl(graph, createBfsStrategy(), graph.pageCount).order.length, 6, 'a strategy without hinted() ignores hints');
  });

  it('fetches the best discovered URL overall, with ties to the first discovered, and follows reported changes', () => {
    // Seed 1 → 2, 3, 4, 5; 2 → 6. Priorities: 4 and 5 tie above the rest.
    const graph = buildLabGraph({
      seeds: [1],
      pages: new Map([[1, page(false, [2, 3, 4, 5])], [2, page(false, [6])], [3, page(false, [])], [4, page(false, [])], [5, page(false, [])], [6, page(false, [])]]),
    });
    const v = (source: number): number => (graph.sourceIds as Float64Array).indexOf(source);
    const s = new Scripted(new Map([[v(4), 2], [v(5), 2], [v(2), 1]]));
    const fetchedAfter = new Map<number, () => void>([
      // Once 4 is fetched, 3 rises above everything (reported); 5 silently drops below 2.
      [v(4), () => {
        s.priorities.set(v(3), 9);
        s.changed.push(v(3));
        s.priorities.set(v(5), 0.5);
      }],
    ]);
    const inner = s.fetched.bind(s);
    s.fetched = (p: PageVerdict): void => {
      inner(p);
      fetchedAfter.get(p.id)?.();
    };
    const crawl = virtualCrawl(graph, s, 6);
    assert.deepEqual(sourceOrder(graph, crawl.order), [1, 4, 3, 2, 5, 6]);
  });

  it('puts a URL whose reported priority dropped after the ones now above it', () => {
    // Seed 1 → 2, 3, 4; 3 and 4 start above 2, and once 3 is fetched 4 drops below 2 (reported).
    const graph = buildLabGraph({ seeds: [1], pages: new Map([[1, page(false, [2, 3, 4])], [2, page(false, [])], [3, page(false, [])], [4, page(false, [])]]) });
    const v = (source: number): number => (graph.sourceIds as Float64Array).indexOf(source);
    const s = new Scripted(new Map([[v(3), 3], [v(4), 2], [v(2), 1]]));
    const inner = s.fetched.bind(s);
    s.fetched = (p: PageVerdict): void => {
      inner(p);
      if (p.id === v(3)) {
        s.priorities.set(v(4), 0);
        s.changed.push(v(4));
      }
    };
    assert.deepEqual(sourceOrder(graph, virtualCrawl(graph, s, 4).order), [1, 3, 2, 4]);
  });
});

describe('PST and harvest rate', () => {
  it('match a hand computation on the tiny graph', () => {
    const graph = tinyGraph();
    const crawl = virtualCrawl(graph, createBfsStrategy(), 5);
    // Fetched: 10 (cold), 11 (hot), 12, 13 (hot), 14; 2 hot pages in all.
    const results = evaluateBudgets(graph, crawl, [0.2, 0.4, 0.6, 0.8, 1]);
    assert.deepEqual(
      results.map((r) => [r.pages, r.hotFetched, r.pst, r.harvest, r.randomPst]),
      [
        [1, 0, 0, 0, 0.2],
        [2, 1, 0.5, 0.5, 0.4],
        [3, 1, 0.5, 1 / 3, 0.6],
        [4, 2, 1, 0.5, 0.8],
        [5, 2, 1, 0.4, 1],
      ],
    );
    const curve = pstCurve(graph, crawl, 200);
    assert.deepEqual(curve.pages, [1, 2, 3, 4, 5]);
    assert.deepEqual(curve.pst, [0, 0.5, 0.5, 1, 1]);
    const sampled = pstCurve(graph, crawl, 2);
    assert.deepEqual(sampled.pages, [3, 5]);
  });

  it('refuses budgets outside (0, 1]', () => {
    const graph = tinyGraph();
    const crawl = virtualCrawl(graph, createBfsStrategy(), 5);
    assert.throws(() => evaluateBudgets(graph, crawl, [0]), UsageError);
    assert.throws(() => evaluateBudgets(graph, crawl, [1.5]), UsageError);
    assert.throws(() => evaluateBudgets(graph, crawl, []), UsageError);
  });

  it('puts the random crawler on the diagonal K/T', () => {
    const graph = syntheticLabGraph({ pages: 40_000, seed: 99 });
    const crawl = virtualCrawl(graph, createRandomStrategy({ query: '', randomSeed: 5 }), graph.pageCount);
    for (const r of evaluateBudgets(graph, crawl, [0.1, 0.2, 0.4, 0.6, 0.8])) {
      assert.ok(Math.abs((r.pst as number) - r.randomPst) < 0.05, `budget ${r.budget}: PST ${r.pst} vs ${r.randomPst}`);
    }
  });
});

describe('strategies in the lab', () => {
  it('backlink fetches the most-linked URL first', () => {
    // Seed 1 → 2, 3, 4; 2 → 4; so after 2, page 4 has two backlinks and jumps over 3.
    const graph = buildLabGraph({ seeds: [1], pages: new Map([[1, page(false, [2, 3, 4])], [2, page(false, [4])], [3, page(false, [])], [4, page(false, [])]]) });
    const crawl = virtualCrawl(graph, createStrategy('backlink', { query: '', randomSeed: 1 }), 4);
    assert.deepEqual(sourceOrder(graph, crawl.order), [1, 2, 4, 3]);
  });

  it('cho fetches anchor-matching URLs and the children of hot pages first', () => {
    // Seed 1 → 2, 3, 4 ("solar" anchor), 5; 4 is hot and links to 6.
    const graph = buildLabGraph({
      seeds: [1],
      pages: new Map([
        [1, page(false, [2, 3, [4, 'Solar power basics'], 5])],
        [2, page(false, [])],
        [3, page(false, [])],
        [4, page(true, [6])],
        [5, page(false, [])],
        [6, page(false, [])],
      ]),
    });
    const bfs = virtualCrawl(graph, createBfsStrategy(), 6);
    assert.deepEqual(sourceOrder(graph, bfs.order), [1, 2, 3, 4, 5, 6]);
    const cho = virtualCrawl(graph, new ChoStrategy({ query: 'solar', randomSeed: 1 }), 6);
    assert.deepEqual(sourceOrder(graph, cho.order), [1, 4, 6, 2, 3, 5]);
  });

  it('produces a JSON-able report for every strategy', () => {
    const graph = syntheticLabGraph({ pages: 3000, seed: 3 });
    const strategies = ['bfs', 'random', 'backlink', 'pagerank', 'fpr', 'cho'];
    const results = runLabOnGraph(graph, { strategies, budgets: [0.1, 0.5], query: SYNTHETIC_QUERY, randomSeed: 1, curvePoints: 50 });
    assert.deepEqual(results.map((r) => r.strategy), strategies);
    for (const r of results) {
      assert.equal(r.fetched, 1500);
      assert.equal(r.curve.pages.length, 50);
      assert.equal(r.budgets[1]?.fetched, 1500);
      const pst = r.curve.pst as number[];
      assert.ok(pst.every((x, i) => i === 0 || x >= (pst[i - 1] as number)), 'PST never falls');
    }
    assert.deepEqual(JSON.parse(JSON.stringify(results)), results);
    assert.throws(() => runLabOnGraph(graph, { strategies: ['nope'], budgets: [0.1], query: '', randomSeed: 1 }), UsageError);
  });
});
