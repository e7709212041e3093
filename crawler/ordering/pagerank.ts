import { ChangeSet, CrawlGraph } from './crawl-graph.ts';
import { enlarge } from '../memory/enlarge.ts';
import type { LinkEvent, OrderingStrategy, PageVerdict } from './strategy.ts';
import type { PriorityExplanation, SignalExplanation } from '../protocol/explanation.ts';

export interface PageRankOptions {
  /** Cho et al. use d = 0.9. */
  damping: number;
  /** Recompute once the crawled graph has this many more edges, relative to the last recompute. */
  growth: number;
  /**
   * Power iteration stops when the vector moves less than this (L1; the ranks sum to 1). With
   * d = 0.9 the remaining error is about 9× the last move: ~1% of the rank mass, as coarse as
   * reportTolerance, which is all an order needs.
   */
  tolerance: number;
  maxIterations: number;
  /** A waiting URL is re-queued when its priority moves by more than this fraction. */
  reportTolerance: number;
}

export const PAGERANK_DEFAULTS: Readonly<PageRankOptions> = {
  damping: 0.9,
  growth: 0.1,
  tolerance: 1e-3,
  maxIterations: 100,
  reportTolerance: 0.01,
};

/**
 * IR'(P): PageRank on the crawled graph, Cho et al.'s estimate of PageRank. Nodes are all
 * known URLs, edges the links of fetched pages; the rank of dangling nodes (the whole
 * frontier, and pages without links) is spread uniformly, like the random jump.
 *
 * The full power iteration runs in batches: whenever the graph has grown by `growth`
 * (10%) in edges since the last run, so the total work is a small multiple of one run on
 * the final graph. Each run starts from the previous vector (new URLs hold estimates, see
 * below), which cuts the iterations needed. Between runs, a new URL starts with the last
 * run's uniform share, and a fetched page pushes d·rank/outdegree to each waiting child,
 * one step of the iteration done locally, so the order keeps moving with the evidence.
 *
 * Priorities are published as rank × (known URLs at the last run): 1 is an average URL, and
 * the graph's growth alone does not change every priority. A waiting URL is reported as
 * changed only when its published value moves by more than `reportTolerance`, so a run
 * re-queues the URLs whose standing moved, not the whole frontier each time.
 */
export class CrawlPageRank {
  readonly graph = new CrawlGraph();
  readonly #options: PageRankOptions;
  readonly #changes: ChangeSet;
  #rank = new Float64Array(0);
  #next = new Float64Array(0);
  #published = new Float64Array(0);
  /** Rank a URL starts with between runs: before the first run every URL is equal. */
  #base = 1;
  #scale = 1;
  #edgesAtLastRun = 0;
  #pagesAtLastRun = 0;
  #runs = 0;
  #iterations = 0;

  constructor(changes: ChangeSet, options: Partial<PageRankOptions> = {}) {
    this.#changes = changes;
    this.#options = { ...PAGERANK_DEFAULTS, ...options };
  }

  /** Registers a URL; true when it was new. */
  addUrl(id: number): boolean {
    if (!this.graph.addNode(id)) return false;
    if (this.graph.capacity > this.#rank.length) this.#grow();
    this.#rank[id] = this.#base;
    this.#published[id] = this.#base * this.#scale;
    return true;
  }

  addPage(id: number, outlinks: readonly number[]): void {
    if (this.graph.isFetched(id)) return;
    this.addUrl(id);
    for (const child of outlinks) this.addUrl(child);
    this.graph.addPage(id, outlinks);
    const edges = this.graph.edgeCount;
    if (edges > this.#edgesAtLastRun && edges >= this.#edgesAtLastRun * (1 + this.#options.growth)) {
      this.#run();
      return;
    }
    if (outlinks.length === 0) return;
    const share = (this.#options.damping * (this.#rank[id] as number)) / outlinks.length;
    for (const child of outlinks) {
      if (this.graph.isFetched(child)) continue;
      this.#rank[child] = (this.#rank[child] as number) + share;
      this.#publish(child);
    }
  }

  /** The published priority: rank × known URLs at the last run. */
  priority(id: number): number {
    return id >= 0 && id < this.#published.length ? (this.#published[id] as number) : 0;
  }

  /** The current rank estimate (after a run, the ranks of all known URLs sum to 1). */
  rank(id: number): number {
    return id >= 0 && id < this.#rank.length ? (this.#rank[id] as number) : 0;
  }

  get runs(): number {
    return this.#runs;
  }

  signal(id: number): SignalExplanation {
    const note =
      this.#runs === 0
        ? 'no PageRank run yet: every URL is equal'
        : `PageRank on the crawled graph (d = ${this.#options.damping}) × ${this.#scale} known URLs; ` +
          `last run after ${this.#pagesAtLastRun} fetched pages, ${this.#iterations} iterations`;
    return { name: 'pagerank', value: this.rank(id), contribution: this.priority(id), note };
  }

  #publish(id: number): void {
    const value = (this.#rank[id] as number) * this.#scale;
    const old = this.#published[id] as number;
    if (Math.abs(value - old) <= this.#options.reportTolerance * old) return;
    this.#published[id] = value;
    this.#changes.add(id);
  }

  #run(): void {
    const graph = this.graph;
    const nodes = graph.nodes();
    const pages = graph.pages();
    const starts = graph.pageStarts();
    const edges = graph.edges();
    const n = nodes.length;
    const d = this.#options.damping;
    let x = this.#rank;
    let y = this.#next;

    let total = 0;
    for (let i = 0; i < n; i++) total += x[nodes[i] as number] as number;
    const norm = total > 0 ? 1 / total : 0;
    for (let i = 0; i < n; i++) {
      const v = nodes[i] as number;
      x[v] = total > 0 ? (x[v] as number) * norm : 1 / n;
    }
    total = 1;

    let iterations = 0;
    let base = 0;
    while (iterations < this.#options.maxIterations) {
      iterations++;
      // Links first, into a zeroed vector; the uniform part (jump + dangling rank) needs their total.
      for (let i = 0; i < n; i++) y[nodes[i] as number] = 0;
      let withLinks = 0;
      for (let k = 0; k < pages.length; k++) {
        const start = starts[k] as number;
        const end = starts[k + 1] as number;
        if (end === start) continue;
        const rank = x[pages[k] as number] as number;
        withLinks += rank;
        const share = (d * rank) / (end - start);
        for (let e = start; e < end; e++) {
          const dst = edges[e] as number;
          y[dst] = (y[dst] as number) + share;
        }
      }
      base = ((1 - d) * total + d * (total - withLinks)) / n;
      let diff = 0;
      total = 0;
      for (let i = 0; i < n; i++) {
        const v = nodes[i] as number;
        const value = (y[v] as number) + base;
        y[v] = value;
        diff += Math.abs(value - (x[v] as number));
        total += value;
      }
      const swap = x;
      x = y;
      y = swap;
      if (diff < this.#options.tolerance) break;
    }
    this.#rank = x;
    this.#next = y;
    this.#base = base;
    this.#scale = n;
    this.#runs++;
    this.#iterations = iterations;
    this.#edgesAtLastRun = graph.edgeCount;
    this.#pagesAtLastRun = graph.pageCount;
    for (let i = 0; i < n; i++) {
      const v = nodes[i] as number;
      if (!graph.isFetched(v)) this.#publish(v);
    }
  }

  #grow(): void {
    const capacity = this.graph.capacity;
    this.#rank = enlarge(this.#rank, capacity);
    this.#next = enlarge(this.#next, capacity);
    this.#published = enlarge(this.#published, capacity);
  }
}

/** Orders the frontier by IR', PageRank on the crawled graph. */
export class PageRankStrategy implements OrderingStrategy {
  readonly name = 'pagerank';
  readonly #changes = new ChangeSet();
  readonly pagerank: CrawlPageRank;

  constructor(options: Partial<PageRankOptions> = {}) {
    this.pagerank = new CrawlPageRank(this.#changes, options);
  }

  linked(link: LinkEvent): void {
    this.pagerank.addUrl(link.dstId);
  }

  fetched(page: PageVerdict): void {
    this.pagerank.addPage(page.id, page.outlinks);
  }

  priority(id: number): number {
    return this.pagerank.priority(id);
  }

  takeChanged(): number[] {
    return this.#changes.take();
  }

  explain(id: number): PriorityExplanation {
    return { priority: this.priority(id), signals: [this.pagerank.signal(id)] };
  }
}

export function createPageRankStrategy(): OrderingStrategy {
  return new PageRankStrategy();
}
