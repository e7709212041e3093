import { enlarge } from '../../memory/enlarge.ts';
import { ChildrenWindow } from './children-window.ts';

/**
 * The part of the link graph the focused strategy needs, with bounded memory:
 * - up to `maxParents` fetched parents per URL (the first ones found), in one flat array;
 * - for the last `window` fetched pages, their outlinks (at most `maxChildren`), as far as
 *   the children window's pool holds them. Older pages are forgotten: their children stop
 *   receiving sibling and grandchild updates.
 */
export class LinkGraph {
  readonly maxParents: number;
  readonly maxChildren: number;
  #parents = new Int32Array(0);
  #parentCount = new Uint8Array(0);
  readonly #children: ChildrenWindow;

  constructor(options: { maxParents: number; maxChildren: number; window: number }) {
    this.maxParents = Math.min(options.maxParents, 255);
    this.maxChildren = options.maxChildren;
    this.#children = new ChildrenWindow({ window: options.window });
  }

  ensure(capacity: number): void {
    if (capacity <= this.#parentCount.length) return;
    this.#parents = enlarge(this.#parents, capacity * this.maxParents);
    this.#parentCount = enlarge(this.#parentCount, capacity);
    this.#children.ensure(capacity);
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

  /** Keeps a fetched page's first `count` outlinks (at most maxChildren), forgetting the oldest pages as needed. */
  remember(page: number, children: Int32Array, count: number): void {
    this.#children.remember(page, children, Math.min(count, this.maxChildren));
  }

  /** The page's kept outlinks: a view to read before the next `remember`. */
  childrenOf(page: number): Int32Array | undefined {
    return this.#children.childrenOf(page);
  }
}
