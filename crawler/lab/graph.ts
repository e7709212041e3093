import { ForagerError } from '../errors.ts';
import { enlarge } from '../memory/enlarge.ts';
import type { UrlHint, UrlKind } from '../parse/url-kind.ts';
import { urlKindCode } from '../store/url-kind.ts';

/**
 * A stored crawl in compact form, for replaying it under other orderings. Nodes are the
 * URLs (0 .. nodeCount − 1), stored pages or not; a stored page's links and terms are
 * ranges of flat typed arrays (compressed sparse rows), so a graph of millions of pages
 * and tens of millions of links costs a few bytes per link and no object per link.
 */
export interface LabGraph {
  readonly nodeCount: number;
  readonly urls: readonly string[];
  /** The id each node had in its source (a collection's url id); null when nodes are the source ids. */
  readonly sourceIds: Float64Array | null;
  readonly seeds: Int32Array;
  /** 1 for a URL whose page was stored: only those can be fetched in a replay. */
  readonly stored: Uint8Array;
  readonly hot: Uint8Array;
  readonly relevance: Float32Array;
  readonly pageCount: number;
  readonly hotCount: number;
  /** Node v's links are linkDst[linkStart[v] .. linkEnd[v]); empty for URLs without a page. */
  readonly linkStart: Int32Array;
  readonly linkEnd: Int32Array;
  readonly linkDst: Int32Array;
  /** Per link, an index into anchors and contexts (pairs are pooled: navigation repeats). */
  readonly linkText: Int32Array | Uint16Array;
  readonly anchors: readonly string[];
  readonly contexts: readonly string[];
  /** Node v's terms are termPool[termIds[termStart[v] .. termEnd[v])]. */
  readonly termStart: Int32Array;
  readonly termEnd: Int32Array;
  readonly termIds: Int32Array;
  readonly termPool: readonly string[];
  /** What each node is, coded as urls.kind stores it (url-kind.ts): 0 for an ordinary page. */
  readonly kinds: Uint8Array;
  /**
   * Site resources no page listed (robots.txt Sitemap lines, a seed host's /sitemap.xml),
   * in discovery order: a replay reports them right after the seeds, at their depth.
   */
  readonly resourceRoots: Int32Array;
  /** The depth each resource root was stored at. */
  readonly resourceRootDepths: Int32Array;
  /** What each stored site resource said about the URLs it lists (hint ids are nodes), in its order. */
  readonly hints: ReadonlyMap<number, readonly UrlHint[]>;
}

export interface LabLinkInput {
  id: number;
  url: string;
  anchor: string;
  context: string;
}

export interface LabPageInput {
  url: string;
  hot: boolean;
  relevance: number;
  terms: readonly string[];
  outlinks: readonly LabLinkInput[];
}

/** The readable form: pages keyed by any integer id; URLs that were never stored appear only as link targets. */
export interface LabGraphInput {
  seeds: readonly number[];
  pages: ReadonlyMap<number, LabPageInput>;
  /** URLs of ids that are neither stored pages nor link targets (a seed that was never fetched). */
  urls?: ReadonlyMap<number, string>;
}

function graphError(message: string, context: Record<string, unknown>): ForagerError {
  return new ForagerError('LAB_GRAPH', message, context);
}

/** Builds a LabGraph node by node; source ids may be any integers. */
export class LabGraphBuilder {
  readonly #dense = new Map<number, number>();
  readonly #sourceIds: number[] = [];
  readonly #urls: string[] = [];
  readonly #stored: number[] = [];
  readonly #hot: number[] = [];
  readonly #relevance: number[] = [];
  readonly #linkStart: number[] = [];
  readonly #linkEnd: number[] = [];
  readonly #termStart: number[] = [];
  readonly #termEnd: number[] = [];
  readonly #seeds: number[] = [];
  readonly #kinds: number[] = [];
  readonly #resourceRoots: number[] = [];
  readonly #resourceRootDepths: number[] = [];
  readonly #hints = new Map<number, UrlHint[]>();
  #linkDst = new Int32Array(1024);
  #linkText = new Int32Array(1024);
  #linkCount = 0;
  readonly #textIndex = new Map<string, number>();
  readonly #anchors: string[] = [];
  readonly #contexts: string[] = [];
  #termIds = new Int32Array(1024);
  #termCount = 0;
  readonly #termIndex = new Map<string, number>();
  readonly #termPool: string[] = [];
  /** The node whose links are being added, or −1. */
  #linking = -1;

  /** The dense id of a source id, adding the node if new; a non-empty url fills in a missing one. */
  node(sourceId: number, url = ''): number {
    let v = this.#dense.get(sourceId);
    if (v === undefined) {
      v = this.#sourceIds.length;
      this.#dense.set(sourceId, v);
      this.#sourceIds.push(sourceId);
      this.#urls.push(url);
      this.#stored.push(0);
      this.#hot.push(0);
      this.#relevance.push(0);
      this.#linkStart.push(0);
      this.#linkEnd.push(0);
      this.#termStart.push(0);
      this.#termEnd.push(0);
      this.#kinds.push(0);
    } else if (url !== '' && this.#urls[v] === '') {
      this.#urls[v] = url;
    }
    return v;
  }

  seed(sourceId: number, url = ''): void {
    this.#seeds.push(this.node(sourceId, url));
  }

  /** Records what a URL is, when it is a site resource rather than a page. */
  kind(sourceId: number, kind: UrlKind): void {
    this.#kinds[this.node(sourceId)] = urlKindCode(kind);
  }

  /** A site resource that no page listed, discovered at `depth`. */
  resourceRoot(sourceId: number, depth: number): void {
    this.#resourceRoots.push(this.node(sourceId));
    this.#resourceRootDepths.push(depth);
  }

  /** What a stored site resource said, in its order; the hints' ids are source ids. */
  setHints(node: number, hints: readonly UrlHint[]): void {
    if (this.#hints.has(node)) throw graphError('hints were set twice for a node', { node });
    this.#hints.set(node, hints.map((hint) => ({ ...hint, id: this.node(hint.id) })));
  }

  /** Marks a node as a stored page with its judgement. */
  page(sourceId: number, judgement: { url?: string; hot: boolean; relevance: number }): number {
    const v = this.node(sourceId, judgement.url);
    if (this.#stored[v] === 1) throw graphError(`page ${sourceId} was added twice`, { sourceId });
    this.#stored[v] = 1;
    this.#hot[v] = judgement.hot ? 1 : 0;
    this.#relevance[v] = judgement.relevance;
    return v;
  }

  setTerms(node: number, terms: readonly string[]): void {
    if (this.#termEnd[node] !== this.#termStart[node]) throw graphError('terms were set twice for a node', { node });
    const need = this.#termCount + terms.length;
    if (need > this.#termIds.length) this.#termIds = enlarge(this.#termIds, Math.max(need, this.#termIds.length * 2));
    this.#termStart[node] = this.#termCount;
    for (const term of terms) {
      let t = this.#termIndex.get(term);
      if (t === undefined) {
        t = this.#termPool.length;
        this.#termIndex.set(term, t);
        this.#termPool.push(term);
      }
      this.#termIds[this.#termCount++] = t;
    }
    this.#termEnd[node] = this.#termCount;
  }

  /** Starts a node's link list; its links must follow before another node's. */
  beginLinks(node: number): void {
    if (this.#linkEnd[node] !== this.#linkStart[node] || this.#linking === node) throw graphError('links were begun twice for a node', { node });
    this.#linking = node;
    this.#linkStart[node] = this.#linkCount;
    this.#linkEnd[node] = this.#linkCount;
  }

  addLink(dstSourceId: number, url: string, anchor: string, context: string): void {
    const src = this.#linking;
    if (src < 0) throw graphError('addLink before beginLinks', { dstSourceId });
    const dst = this.node(dstSourceId, url);
    if (this.#linkCount === this.#linkDst.length) {
      this.#linkDst = enlarge(this.#linkDst, this.#linkCount * 2);
      this.#linkText = enlarge(this.#linkText, this.#linkCount * 2);
    }
    const key = `${anchor}\u0000${context}`;
    let text = this.#textIndex.get(key);
    if (text === undefined) {
      text = this.#anchors.length;
      this.#textIndex.set(key, text);
      this.#anchors.push(anchor);
      this.#contexts.push(context);
    }
    this.#linkDst[this.#linkCount] = dst;
    this.#linkText[this.#linkCount] = text;
    this.#linkEnd[src] = ++this.#linkCount;
  }

  build(): LabGraph {
    const stored = Uint8Array.from(this.#stored);
    const hot = Uint8Array.from(this.#hot);
    let pageCount = 0;
    let hotCount = 0;
    for (let v = 0; v < stored.length; v++) {
      pageCount += stored[v] as number;
      if (stored[v] === 1) hotCount += hot[v] as number;
    }
    return {
      nodeCount: this.#sourceIds.length,
      urls: this.#urls,
      sourceIds: Float64Array.from(this.#sourceIds),
      seeds: Int32Array.from(this.#seeds),
      stored,
      hot,
      relevance: Float32Array.from(this.#relevance),
      pageCount,
      hotCount,
      linkStart: Int32Array.from(this.#linkStart),
      linkEnd: Int32Array.from(this.#linkEnd),
      linkDst: this.#linkDst.slice(0, this.#linkCount),
      linkText: this.#linkText.slice(0, this.#linkCount),
      anchors: this.#anchors,
      contexts: this.#contexts,
      termStart: Int32Array.from(this.#termStart),
      termEnd: Int32Array.from(this.#termEnd),
      termIds: this.#termIds.slice(0, this.#termCount),
      termPool: this.#termPool,
      kinds: Uint8Array.from(this.#kinds),
      resourceRoots: Int32Array.from(this.#resourceRoots),
      resourceRootDepths: Int32Array.from(this.#resourceRootDepths),
      hints: this.#hints,
    };
  }
}

/** Builds a LabGraph from the readable form (tests, small tools): pages only, no site resources. */
export function buildLabGraph(input: LabGraphInput): LabGraph {
  const builder = new LabGraphBuilder();
  for (const [id, url] of input.urls ?? []) builder.node(id, url);
  for (const [id, page] of input.pages) builder.page(id, page);
  for (const id of input.seeds) builder.seed(id);
  for (const [id, page] of input.pages) {
    const v = builder.node(id);
    builder.setTerms(v, page.terms);
    builder.beginLinks(v);
    for (const link of page.outlinks) builder.addLink(link.id, link.url, link.anchor, link.context);
  }
  return builder.build();
}
