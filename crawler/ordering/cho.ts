import { contentTerms, termsOfWords } from '../relevance/text.ts';
import { urlTokens } from '../url/tokens.ts';
import { ChangeSet } from './crawl-graph.ts';
import { enlarge } from '../memory/enlarge.ts';
import { CrawlPageRank, type PageRankOptions } from './pagerank.ts';
import type { LinkEvent, OrderingContext, OrderingStrategy, PageVerdict } from './strategy.ts';
import type { PriorityExplanation, SignalExplanation } from '../protocol/explanation.ts';

/** Added to hot-queue URLs: more than any published PageRank (rank × known URLs ≤ known URLs < 2^31). */
export const HOT_QUEUE_BONUS = 2 ** 31;
/** Cho et al.'s "within 3 links of a hot page": distance 0 (the hot page), 1 and 2. */
const MAX_HOT_DISTANCE = 2;
const FAR = 255;
const ANCHOR_MATCH = 1;
const URL_MATCH = 2;
/** Anchors repeat across pages (navigation), so their match is remembered; the memo is cleared when full. */
const ANCHOR_MEMO_LIMIT = 50_000;

/**
 * Cho et al.'s similarity crawler (their Fig. 5) as one priority. A URL belongs in the
 * hot queue when its anchor text or its URL carries a query term (compared as stems), or
 * when it lies within distance 2 of a fetched hot page; the rest wait in the URL queue.
 * Within each queue PageRank on the crawled graph decides. Priority = HOT_QUEUE_BONUS for
 * the hot queue + published PageRank (see CrawlPageRank).
 *
 * Unlike the paper, which files a URL once when first seen, a URL moves to the hot queue
 * as soon as the evidence arrives (a later anchor, a hot parent found later), and
 * distances propagate through pages already fetched.
 */
export class ChoStrategy implements OrderingStrategy {
  readonly name = 'cho';
  readonly #changes = new ChangeSet();
  readonly #pagerank: CrawlPageRank;
  readonly #queryTerms: ReadonlySet<string>;
  #matches = new Uint8Array(0);
  #distance = new Uint8Array(0);
  readonly #anchorMemo = new Map<string, boolean>();

  constructor(context: OrderingContext, options: Partial<PageRankOptions> = {}) {
    this.#pagerank = new CrawlPageRank(this.#changes, options);
    this.#queryTerms = new Set(contentTerms(context.query));
  }

  linked(link: LinkEvent): void {
    const id = link.dstId;
    if (this.#pagerank.addUrl(id)) {
      this.#fit();
      if (this.#hasQueryTerm(termsOfWords(urlTokens(link.url)))) this.#matches[id] = (this.#matches[id] as number) | URL_MATCH;
    }
    if (((this.#matches[id] as number) & ANCHOR_MATCH) !== 0 || link.anchor === '' || !this.#anchorMatches(link.anchor)) return;
    const wasHot = this.#isHot(id);
    this.#matches[id] = (this.#matches[id] as number) | ANCHOR_MATCH;
    if (!wasHot && !link.isNew) this.#changes.add(id);
  }

  fetched(page: PageVerdict): void {
    this.#pagerank.addPage(page.id, page.outlinks);
    this.#fit();
    if (page.hot) this.#relax(page.id, 0);
    else if (this.#distance[page.id] !== FAR) this.#spread(page.id, this.#distance[page.id] as number);
  }

  priority(id: number): number {
    return (this.#isHot(id) ? HOT_QUEUE_BONUS : 0) + this.#pagerank.priority(id);
  }

  takeChanged(): number[] {
    return this.#changes.take();
  }

  explain(id: number): PriorityExplanation {
    const known = id >= 0 && id < this.#matches.length;
    const matches = known ? (this.#matches[id] as number) : 0;
    const distance = known ? (this.#distance[id] as number) : FAR;
    const hot = this.#isHot(id);
    const reasons: string[] = [];
    if ((matches & ANCHOR_MATCH) !== 0) reasons.push('anchor text carries a query term');
    if ((matches & URL_MATCH) !== 0) reasons.push('URL carries a query term');
    if (distance <= MAX_HOT_DISTANCE) reasons.push(distance === 0 ? 'is a hot page' : `${distance} link${distance === 1 ? '' : 's'} from a hot page`);
    const signals: SignalExplanation[] = [
      { name: 'hot-queue', value: hot ? 1 : 0, contribution: hot ? HOT_QUEUE_BONUS : 0, note: hot ? reasons.join('; ') : 'URL queue: no query term in anchor or URL, no hot page within 2 links' },
      { name: 'anchor-match', value: (matches & ANCHOR_MATCH) !== 0 ? 1 : 0, contribution: 0 },
      { name: 'url-match', value: (matches & URL_MATCH) !== 0 ? 1 : 0, contribution: 0 },
      { name: 'hot-distance', value: distance === FAR ? -1 : distance, contribution: 0, note: distance === FAR ? 'no hot page within 2 links' : 'links from the nearest fetched hot page' },
      this.#pagerank.signal(id),
    ];
    return { priority: this.priority(id), signals };
  }

  #isHot(id: number): boolean {
    if (id < 0 || id >= this.#matches.length) return false;
    return this.#matches[id] !== 0 || (this.#distance[id] as number) <= MAX_HOT_DISTANCE;
  }

  /** Lowers a URL's distance from a hot page and carries it on to the children of fetched pages. */
  #relax(id: number, distance: number): void {
    if ((this.#distance[id] as number) <= distance) return;
    const wasHot = this.#isHot(id);
    this.#distance[id] = distance;
    if (!wasHot && !this.#pagerank.graph.isFetched(id)) this.#changes.add(id);
    this.#spread(id, distance);
  }

  #spread(id: number, distance: number): void {
    if (distance >= MAX_HOT_DISTANCE) return;
    const graph = this.#pagerank.graph;
    const end = graph.endEdge(id);
    for (let e = graph.firstEdge(id); e >= 0 && e < end; e++) this.#relax(graph.edge(e), distance + 1);
  }

  #anchorMatches(anchor: string): boolean {
    let hit = this.#anchorMemo.get(anchor);
    if (hit === undefined) {
      hit = this.#hasQueryTerm(contentTerms(anchor));
      if (this.#anchorMemo.size >= ANCHOR_MEMO_LIMIT) this.#anchorMemo.clear();
      this.#anchorMemo.set(anchor, hit);
    }
    return hit;
  }

  #hasQueryTerm(terms: readonly string[]): boolean {
    for (const term of terms) if (this.#queryTerms.has(term)) return true;
    return false;
  }

  /** Keeps the per-URL arrays as large as the graph's. */
  #fit(): void {
    const capacity = this.#pagerank.graph.capacity;
    if (capacity <= this.#matches.length) return;
    this.#matches = enlarge(this.#matches, capacity);
    this.#distance = enlarge(this.#distance, capacity, FAR);
  }
}

export function createChoStrategy(context: OrderingContext): OrderingStrategy {
  return new ChoStrategy(context);
}
