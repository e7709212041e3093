import { enlarge } from '../columns.ts';

/**
 * The part of the link graph the focused strategy needs, with bounded memory:
 * - up to `maxParents` fetched parents per URL (the first ones found), in one flat array;
 * - for the last `window` fetched pages, their outlinks (at most `maxChildren`). Older
 *   pages are forgotten: their children stop receiving sibling and grandchild updates.
 */
export class LinkGraph {
  readonly maxParents: number;
  readonly maxChildren: number;
  #parents = new Int32Array(0);
  #parentCount = new Uint8Array(0);
  readonly #children = new Map<number, Int32Array>();
  readonly #ring: Int32Array;
  #ringNext = 0;

  constructor(options: { maxParents: number; maxChildren: number; window: number }) {
    this.maxParents = Math.min(options.maxParents, 255);
    this.maxChildren = options.maxChildren;
    this.#ring = new Int32Array(Math.max(1, options.window)).fill(-1);
  }

  ensure(capacity: number): void {
    if (capacity <= this.#parentCount.length) return;
    this.#parents = enlarge(this.#parents, capacity * this.maxParents);
    this.#parentCount = enlarge(this.#parentCount, capacity);
  }

  /** Records `parent` as a parent of `child`; false when the child's parent list is full. */
  addParent(child: number, parent: number): boolean {
    const k = this.#parentCount[child] as number;
    if (k >= this.maxParents) return false;
    this.#parents[child * this.maxParents + k] = parent;
    this.#parentCount[child] = k + 1;
    return true;
  }

  parentCount(child: number): number {
    return this.#parentCount[child] as number;
  }

  /** The k-th stored parent of child (k < parentCount(child)). */
  parent(child: number, k: number): number {
    return this.#parents[child * this.maxParents + k] as number;
  }

  /** Keeps a fetched page's outlinks, forgetting the oldest page beyond the window. */
  remember(page: number, children: Int32Array): void {
    const evicted = this.#ring[this.#ringNext] as number;
    if (evicted >= 0) this.#children.delete(evicted);
    this.#ring[this.#ringNext] = page;
    this.#ringNext = (this.#ringNext + 1) % this.#ring.length;
    this.#children.set(page, children);
  }

  childrenOf(page: number): Int32Array | undefined {
    return this.#children.get(page);
  }
}
