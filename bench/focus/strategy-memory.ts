/**
 * The focused strategy's memory per known URL, measured in a child process started with
 * --expose-gc: a synthetic web graph (crawler/lab/synthetic.ts) is replayed through the
 * strategy until a share of its pages is fetched, and the heap plus typed-array memory the
 * strategy holds afterwards, less what was held before it was made, is divided by the URLs
 * it knows. Prints one JSON line.
 *
 *   node --expose-gc bench/focus/strategy-memory.ts [--pages 1000000] [--budget 0.2]
 */
import { parseArgs } from 'node:util';
import { syntheticLabGraph, SYNTHETIC_QUERY } from '../../crawler/lab/synthetic.ts';
import { virtualCrawl } from '../../crawler/lab/virtual-crawl.ts';
import { createStrategy } from '../../crawler/ordering/registry.ts';
import type { OrderingStrategy } from '../../crawler/ordering/strategy.ts';

/**
 * Gives the strategy ids in the order URLs are discovered, as the engine does (a URL's id
 * is its row in the collection), rather than the lab's ids over the whole graph, most of
 * which a partial crawl never meets.
 */
function withDiscoveryIds(inner: OrderingStrategy, nodes: number): OrderingStrategy {
  // Allocated in full up front, so the measurement sees none of it.
  const dense = new Int32Array(nodes).fill(-1);
  const sparse = new Int32Array(nodes);
  let next = 0;
  const id = (node: number): number => {
    let d = dense[node] as number;
    if (d < 0) {
      d = next++;
      dense[node] = d;
      sparse[d] = node;
    }
    return d;
  };
  return {
    name: inner.name,
    linked: (link) => inner.linked({ ...link, srcId: link.srcId === null ? null : id(link.srcId), dstId: id(link.dstId) }),
    hinted: (hint) => inner.hinted?.({ ...hint, id: id(hint.id) }),
    fetched: (page) => inner.fetched({ ...page, id: id(page.id), outlinks: page.outlinks.map(id) }),
    priority: (node) => inner.priority(id(node)),
    takeChanged: () => inner.takeChanged().map((d) => sparse[d] as number),
    explain: (node) => inner.explain(id(node)),
  };
}

const { values } = parseArgs({ options: { pages: { type: 'string' }, budget: { type: 'string' }, strategy: { type: 'string' } } });
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const held = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

const graph = syntheticLabGraph({ pages: Number(values.pages ?? 200_000) });
const strategy = withDiscoveryIds(createStrategy(values.strategy ?? 'focused', { query: SYNTHETIC_QUERY, randomSeed: 1 }), graph.nodeCount);
const before = held();
const crawl = virtualCrawl(graph, strategy, Math.round(Number(values.budget ?? 0.2) * graph.pageCount));
const after = held() - crawl.order.byteLength;
process.stdout.write(`${JSON.stringify({ strategy: strategy.name, knownUrls: crawl.discovered, fetched: crawl.order.length, bytes: after - before, bytesPerUrl: (after - before) / crawl.discovered, keep: strategy.priority(0) })}\n`);
