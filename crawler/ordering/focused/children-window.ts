import { enlarge } from '../columns.ts';

/** Outlink ids the window may hold in all (8 MiB): about a hundred links for each of 20,000 pages. */
const DEFAULT_POOL_SIZE = 1 << 21;

/**
 * The outlinks of the most recently fetched pages, first in first out, in memory allocated
 * once: at most `window` pages, and their links packed into one circular pool of
 * `poolSize` ids. A new page forgets the oldest pages until it has a slot and room for
 * its links. A page's links are one contiguous run of the pool, and the runs follow each
 * other in the order the pages came, so the free space is always the stretch between the
 * newest run's end and the oldest run's start.
 *
 * A Map of one small typed array per page held the same: twenty thousand JavaScript
 * objects and malloc blocks, freed one by one in between the crawl's short-lived buffers.
 */
export class ChildrenWindow {
  readonly #pool: Int32Array;
  /** Per window slot: its page (-1 when free), and where its links are in the pool. */
  readonly #page: Int32Array;
  readonly #from: Int32Array;
  readonly #length: Int32Array;
  /** Per page id: the slot it was given (valid only while #page[slot] is that page). */
  #slotOf = new Int32Array(0);
  #oldest = 0;
  #live = 0;
  /** Where the next page's links go. */
  #write = 0;

  constructor(options: { window: number; poolSize?: number }) {
    const window = Math.max(1, options.window);
    this.#pool = new Int32Array(Math.max(1, options.poolSize ?? DEFAULT_POOL_SIZE));
    this.#page = new Int32Array(window).fill(-1);
    this.#from = new Int32Array(window);
    this.#length = new Int32Array(window);
  }

  /** Makes room for page ids below `capacity`. */
  ensure(capacity: number): void {
    if (capacity > this.#slotOf.length) this.#slotOf = enlarge(this.#slotOf, capacity);
  }

  /**
   * Keeps `children[0 .. count)` as the page's outlinks (at most the whole pool), forgetting
   * the oldest pages as needed. A page without links takes no slot: there is nothing to
   * recall about it, and an empty run would sit where the pool's free space starts.
   */
  remember(page: number, children: Int32Array, count: number): void {
    const n = Math.min(count, this.#pool.length);
    if (n === 0) return;
    if (this.#live === this.#page.length) this.#forgetOldest();
    this.#makeRoom(n);
    const slot = (this.#oldest + this.#live) % this.#page.length;
    this.#page[slot] = page;
    this.#from[slot] = this.#write;
    this.#length[slot] = n;
    this.#pool.set(children.subarray(0, n), this.#write);
    this.#write += n;
    this.#live++;
    this.#slotOf[page] = slot;
  }

  /**
   * The page's kept outlinks, or undefined when it had none, was never kept or has been forgotten. The
   * array is a view of the pool: read it before the next `remember`.
   */
  childrenOf(page: number): Int32Array | undefined {
    if (page >= this.#slotOf.length) return undefined;
    const slot = this.#slotOf[page] as number;
    if (this.#page[slot] !== page) return undefined;
    const from = this.#from[slot] as number;
    return this.#pool.subarray(from, from + (this.#length[slot] as number));
  }

  /** Moves the write position to a free run of n ids, forgetting the oldest pages in its way. */
  #makeRoom(n: number): void {
    const size = this.#pool.length;
    for (;;) {
      if (this.#live === 0) {
        if (this.#write + n > size) this.#write = 0;
        return;
      }
      const oldestStart = this.#from[this.#oldest] as number;
      if (oldestStart >= this.#write) {
        // Free: from the write position up to the oldest run.
        if (oldestStart - this.#write >= n) return;
        this.#forgetOldest();
      } else if (size - this.#write >= n) {
        // Free: from the write position to the end of the pool (and from its start to the oldest run).
        return;
      } else {
        this.#write = 0;
      }
    }
  }

  #forgetOldest(): void {
    this.#page[this.#oldest] = -1;
    this.#oldest = (this.#oldest + 1) % this.#page.length;
    this.#live--;
  }
}
