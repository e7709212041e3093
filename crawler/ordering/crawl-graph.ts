import { ForagerError } from '../errors.ts';
import { enlarge } from '../memory/enlarge.ts';

/*
 * Per-URL state for ordering strategies, indexed directly by URL id. Ids are SQLite row
 * ids (engine) or dense node numbers (lab), so they are small and nearly contiguous and a
 * typed array indexed by id beats a Map by a wide margin. Arrays grow by doubling.
 */

/** Ids above this cannot be array indices here; no collection gets near it. */
const MAX_ID = 2 ** 31 - 2;
const INITIAL_CAPACITY = 1024;

/** The capacity (a power of two, at least `current`) that can hold `id`; columns.ts has capacityFor(current, needed) for columns that grow by half. */
export function capacityForId(id: number, current: number): number {
  if (!Number.isInteger(id) || id < 0 || id > MAX_ID) {
    throw new ForagerError('ORDERING_ID', `URL id ${id} cannot be ordered: ids must be integers from 0 to ${MAX_ID}`, { id });
  }
  let capacity = Math.max(current, INITIAL_CAPACITY);
  while (capacity <= id) capacity *= 2;
  return capacity;
}

/** Ids whose priority changed since the last take(), each listed once. */
export class ChangeSet {
  #ids = new Int32Array(256);
  #count = 0;
  #marked = new Uint8Array(INITIAL_CAPACITY);

  add(id: number): void {
    if (id >= this.#marked.length) this.#marked = enlarge(this.#marked, capacityForId(id, this.#marked.length));
    if (this.#marked[id] === 1) return;
    this.#marked[id] = 1;
    if (this.#count === this.#ids.length) this.#ids = enlarge(this.#ids, this.#ids.length * 2);
    this.#ids[this.#count++] = id;
  }

  take(): number[] {
    const out = new Array<number>(this.#count);
    for (let i = 0; i < this.#count; i++) {
      const id = this.#ids[i] as number;
      out[i] = id;
      this.#marked[id] = 0;
    }
    this.#count = 0;
    return out;
  }
}

const UNKNOWN = 0;
const KNOWN = 1;
const FETCHED = 2;

/**
 * The crawled graph as a strategy sees it: every URL it was told about (nodes) and the
 * links of the pages fetched so far (edges), stored append-only in compressed sparse
 * rows, so a whole-graph computation (PageRank) walks flat typed arrays.
 */
export class CrawlGraph {
  #state = new Uint8Array(INITIAL_CAPACITY);
  /** Page number + 1 of a fetched URL, 0 otherwise. */
  #pageOf = new Int32Array(INITIAL_CAPACITY);
  #nodes = new Int32Array(INITIAL_CAPACITY);
  #nodeCount = 0;
  #pageIds = new Int32Array(256);
  /** Edges of page k are edges[pageStart[k] .. pageStart[k + 1]). */
  #pageStart = new Int32Array(257);
  #pageCount = 0;
  #edges = new Int32Array(4096);
  #edgeCount = 0;

  /** Ids below this have storage; strategies size their own per-id arrays to match. */
  get capacity(): number {
    return this.#state.length;
  }

  get nodeCount(): number {
    return this.#nodeCount;
  }

  get pageCount(): number {
    return this.#pageCount;
  }

  get edgeCount(): number {
    return this.#edgeCount;
  }

  /** Adds a URL; true when it was not known before. */
  addNode(id: number): boolean {
    if (id >= this.#state.length || id < 0) this.#grow(id);
    if (this.#state[id] !== UNKNOWN) return false;
    this.#state[id] = KNOWN;
    if (this.#nodeCount === this.#nodes.length) this.#nodes = enlarge(this.#nodes, this.#nodes.length * 2);
    this.#nodes[this.#nodeCount++] = id;
    return true;
  }

  isFetched(id: number): boolean {
    return id >= 0 && id < this.#state.length && this.#state[id] === FETCHED;
  }

  /** Records a fetched page and its links; unknown targets become nodes. A page is recorded once. */
  addPage(id: number, outlinks: readonly number[]): void {
    this.addNode(id);
    if (this.#state[id] === FETCHED) return;
    this.#state[id] = FETCHED;
    for (const dst of outlinks) this.addNode(dst);
    if (this.#pageCount + 1 >= this.#pageStart.length) {
      this.#pageIds = enlarge(this.#pageIds, this.#pageIds.length * 2);
      this.#pageStart = enlarge(this.#pageStart, this.#pageStart.length * 2);
    }
    const need = this.#edgeCount + outlinks.length;
    if (need > this.#edges.length) {
      let length = this.#edges.length * 2;
      while (length < need) length *= 2;
      this.#edges = enlarge(this.#edges, length);
    }
    for (const dst of outlinks) this.#edges[this.#edgeCount++] = dst;
    this.#pageIds[this.#pageCount] = id;
    this.#pageOf[id] = ++this.#pageCount;
    this.#pageStart[this.#pageCount] = this.#edgeCount;
  }

  /** Known ids in discovery order (a view: valid until the next addNode). */
  nodes(): Int32Array {
    return this.#nodes.subarray(0, this.#nodeCount);
  }

  /** Fetched ids in fetch order (a view). */
  pages(): Int32Array {
    return this.#pageIds.subarray(0, this.#pageCount);
  }

  /** Edge offsets: page k's edges are edges()[pageStarts()[k] .. pageStarts()[k + 1]) (a view). */
  pageStarts(): Int32Array {
    return this.#pageStart.subarray(0, this.#pageCount + 1);
  }

  /** All edges (a view). */
  edges(): Int32Array {
    return this.#edges.subarray(0, this.#edgeCount);
  }

  /** First edge index of a fetched page's links, or -1 when the page was not fetched. */
  firstEdge(id: number): number {
    const k = id >= 0 && id < this.#pageOf.length ? (this.#pageOf[id] as number) : 0;
    return k === 0 ? -1 : (this.#pageStart[k - 1] as number);
  }

  /** One past the last edge index of a fetched page's links (-1 when not fetched). */
  endEdge(id: number): number {
    const k = id >= 0 && id < this.#pageOf.length ? (this.#pageOf[id] as number) : 0;
    return k === 0 ? -1 : (this.#pageStart[k] as number);
  }

  edge(index: number): number {
    return this.#edges[index] as number;
  }

  #grow(id: number): void {
    const capacity = capacityForId(id, this.#state.length);
    this.#state = enlarge(this.#state, capacity);
    this.#pageOf = enlarge(this.#pageOf, capacity);
  }
}
