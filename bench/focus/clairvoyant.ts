/**
 * The ceiling of a focused order: a strategy that knows which pages are hot but, like any
 * crawler, may fetch only URLs it has discovered. A hot URL goes first; any other goes by
 * how few links separate it from the nearest hot page in the stored graph, so the crawl
 * walks the shortest paths to the hot pages. What it reaches at a budget is what the
 * evidence could reach at best; the gap between it and a real ordering is judgement.
 */
import type { LabGraph } from '../../crawler/lab/graph.ts';
import type { OrderingStrategy } from '../../crawler/ordering/strategy.ts';

const UNREACHABLE = -1_000_000;

/** Links from each node to the nearest hot page (0 for a hot page), by a breadth-first search over reversed links. */
function linksToHot(graph: LabGraph, truth: Uint8Array): Int32Array {
  const n = graph.nodeCount;
  const { linkStart, linkEnd, linkDst } = graph;
  const inCount = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) {
    for (let i = linkStart[v] as number; i < (linkEnd[v] as number); i++) {
      const slot = (linkDst[i] as number) + 1;
      inCount[slot] = (inCount[slot] as number) + 1;
    }
  }
  for (let v = 0; v < n; v++) inCount[v + 1] = (inCount[v + 1] as number) + (inCount[v] as number);
  const fill = inCount.slice(0, n);
  const inSrc = new Int32Array(inCount[n] as number);
  for (let v = 0; v < n; v++) {
    for (let i = linkStart[v] as number; i < (linkEnd[v] as number); i++) {
      const dst = linkDst[i] as number;
      const at = fill[dst] as number;
      inSrc[at] = v;
      fill[dst] = at + 1;
    }
  }
  const distance = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let tail = 0;
  for (let v = 0; v < n; v++) {
    if (truth[v] === 1) {
      distance[v] = 0;
      queue[tail++] = v;
    }
  }
  for (let head = 0; head < tail; head++) {
    const v = queue[head] as number;
    for (let i = inCount[v] as number; i < (inCount[v + 1] as number); i++) {
      const src = inSrc[i] as number;
      if (distance[src] !== -1) continue;
      distance[src] = (distance[v] as number) + 1;
      queue[tail++] = src;
    }
  }
  return distance;
}

export function createClairvoyantStrategy(graph: LabGraph, truth: Uint8Array): OrderingStrategy {
  const distance = linksToHot(graph, truth);
  const priority = (id: number): number => {
    const d = distance[id] ?? -1;
    return d === -1 ? UNREACHABLE : -d;
  };
  return {
    name: 'clairvoyant',
    needsHistory: false,
    linked: () => undefined,
    fetched: () => undefined,
    priority,
    takeChanged: () => [],
    explain: (id) => ({ priority: priority(id), signals: [{ name: 'links-to-hot', value: distance[id] ?? -1, contribution: priority(id), note: 'links from the nearest hot page, known in advance' }] }),
  };
}
