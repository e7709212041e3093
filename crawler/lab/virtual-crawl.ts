import type { LinkEvent, OrderingStrategy } from '../ordering/strategy.ts';
import { urlKindOf } from '../store/url-kind.ts';
import type { LabGraph } from './graph.ts';
import type { LabVerdict } from './page-texts.ts';
import { LabHeap } from './heap.ts';

export interface VirtualCrawlResult {
  strategy: string;
  /** Nodes in fetch order. */
  order: Int32Array;
  /**
   * Discovered URLs that reached the top of the frontier but have no stored page (the
   * original crawl never fetched them: out of its budget, scope or robots). They are
   * passed over without spending budget: what they hold is unknown, and charging for
   * them would punish an ordering for reaching where the original crawl did not.
   */
  unavailable: number;
  discovered: number;
  /** Link events fed to the strategy. */
  linksProcessed: number;
  seconds: number;
  /** True when the frontier ran dry before the budget was spent. */
  exhausted: boolean;
}

const UNSEEN = 0;
const WAITING = 1;
const FETCHED = 2;
const UNAVAILABLE = 3;
const NO_TERMS: readonly string[] = Object.freeze([]);

export interface VirtualCrawlOptions {
  /**
   * The verdict the strategy is told for each fetched node, asked once per page in fetch
   * order. Default: the graph's stored relevance and hot flag.
   */
  verdict?: (node: number) => LabVerdict;
}

/**
 * Replays a stored crawl under an ordering strategy. Each step fetches the best URL
 * overall among those discovered (no hosts, so no politeness), feeding the strategy the
 * events the engine would: for the fetched page P, linked() for each link on P in order
 * (the new URL enters the frontier at the priority read right after its linked()), then
 * for a site resource its hinted() events, then fetched(P) with the stored judgement, then
 * the URLs of takeChanged() are queued again. Site resources no page listed (robots.txt
 * sitemaps) are linked with no source right after the seeds; a link to a resource carries
 * its kind.
 * As in the engine, a URL whose priority dropped without being reported goes back at its
 * new place when it comes out of the heap; a link's depth is its page's + 1 (a page's depth: its URL's at first discovery); a self-link
 * or a repeated link reaches linked() but enters the page's outlinks at most once (never,
 * for a self-link).
 */
export function virtualCrawl(graph: LabGraph, strategy: OrderingStrategy, budgetPages: number, options: VirtualCrawlOptions = {}): VirtualCrawlResult {
  const started = performance.now();
  const n = graph.nodeCount;
  const { urls, stored, hot, relevance, linkStart, linkEnd, linkDst, linkText, anchors, contexts, kinds } = graph;
  const state = new Uint8Array(n);
  const seqOf = new Int32Array(n);
  const idAt = new Int32Array(n);
  /** Depth at first discovery, as the engine stores it. */
  const depth = new Int32Array(n);
  /** The page that last linked each node, so a page's repeated links enter outlinks once. */
  const lastLinker = new Int32Array(n).fill(-1);
  const heap = new LabHeap(n);
  const budget = Math.max(0, Math.min(Math.floor(budgetPages), graph.pageCount));
  const order = new Int32Array(budget);
  let fetched = 0;
  let discovered = 0;
  let unavailable = 0;
  let links = 0;

  // A lowered priority stays at its old key until the entry comes out of the heap, where
  // the loop below reads the current one and puts it back: every entry's key is then at
  // least its priority, so the first entry whose key is current is the best overall.
  const requeueChanged = (): void => {
    for (const id of strategy.takeChanged()) {
      if (id >= 0 && id < n && state[id] === WAITING) heap.raise(seqOf[id] as number, strategy.priority(id));
    }
  };

  /** linked() as the engine reports it: a link to a site resource names the resource's kind. */
  const link = (event: LinkEvent): void => {
    const kind = kinds[event.dstId] as number;
    if (kind !== 0) event.kind = urlKindOf(kind);
    strategy.linked(event);
  };

  const root = (node: number, rootDepth: number): void => {
    const isNew = state[node] === UNSEEN;
    if (isNew) {
      state[node] = WAITING;
      seqOf[node] = discovered;
      idAt[discovered++] = node;
      depth[node] = rootDepth;
    }
    link({ srcId: null, dstId: node, isNew, url: urls[node] as string, depth: rootDepth, anchor: '', context: '' });
    if (isNew) heap.set(seqOf[node] as number, strategy.priority(node));
  };
  for (const seed of graph.seeds) root(seed, 0);
  graph.resourceRoots.forEach((node, i) => root(node, graph.resourceRootDepths[i] as number));
  requeueChanged();

  let exhausted = false;
  while (fetched < budget) {
    let id = -1;
    while (heap.size > 0) {
      const seq = heap.pop();
      const v = idAt[seq] as number;
      const current = strategy.priority(v);
      if (current < heap.poppedPriority) {
        heap.set(seq, current);
        continue;
      }
      id = v;
      break;
    }
    if (id < 0) {
      exhausted = true;
      break;
    }
    if (stored[id] === 0) {
      state[id] = UNAVAILABLE;
      unavailable++;
      continue;
    }
    state[id] = FETCHED;
    order[fetched++] = id;

    const end = linkEnd[id] as number;
    const childDepth = (depth[id] as number) + 1;
    const outlinks: number[] = [];
    for (let i = linkStart[id] as number; i < end; i++) {
      const dst = linkDst[i] as number;
      const isNew = state[dst] === UNSEEN;
      if (isNew) {
        state[dst] = WAITING;
        seqOf[dst] = discovered;
        idAt[discovered++] = dst;
        depth[dst] = childDepth;
      }
      const text = linkText[i] as number;
      link({
        srcId: id,
        dstId: dst,
        isNew,
        url: urls[dst] as string,
        depth: childDepth,
        anchor: anchors[text] as string,
        context: contexts[text] as string,
      });
      links++;
      if (isNew) heap.set(seqOf[dst] as number, strategy.priority(dst));
      if (lastLinker[dst] !== id && dst !== id) {
        lastLinker[dst] = id;
        outlinks.push(dst);
      }
    }
    const hints = strategy.hinted === undefined ? undefined : graph.hints.get(id);
    if (hints !== undefined) for (const hint of hints) strategy.hinted?.(hint);
    const verdict = options.verdict?.(id) ?? { relevance: relevance[id] as number, hot: hot[id] === 1 };
    strategy.fetched({
      id,
      relevance: verdict.relevance,
      hot: verdict.hot,
      ...(verdict.grade === undefined ? {} : { grade: verdict.grade }),
      ...(verdict.acronyms === undefined ? {} : { acronyms: verdict.acronyms }),
      terms: termsOf(graph, id),
      outlinks,
    });
    requeueChanged();
  }

  return {
    strategy: strategy.name,
    order: fetched === budget ? order : order.slice(0, fetched),
    unavailable,
    discovered,
    linksProcessed: links,
    seconds: (performance.now() - started) / 1000,
    exhausted,
  };
}

function termsOf(graph: LabGraph, id: number): readonly string[] {
  const start = graph.termStart[id] as number;
  const end = graph.termEnd[id] as number;
  if (start === end) return NO_TERMS;
  const terms = new Array<string>(end - start);
  for (let i = start; i < end; i++) terms[i - start] = graph.termPool[graph.termIds[i] as number] as string;
  return terms;
}
