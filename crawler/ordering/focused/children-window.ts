import { freeNow } from '../../memory/free-buffer.ts';
import { enlarge } from '../../memory/enlarge.ts';
import { capacityFor } from '../columns.ts';

/** Outlink ids the window may hold in all (8 MiB): about a hundred links for each of 20,000 pages. */
const DEFAULT_MAX_POOL_SIZE = 1 << 21;
/** The pool's first size (16 KiB); it doubles as the window's pages need. */
const INITIAL_POOL_SIZE = 1 << 12;
/** Slots a window starts with; they grow by half as pages come, up to the window. */
const INITIAL_SLOTS = 64;

/**
 * The outlinks of the most recently fetched pages, first in first out: at most `window`
 * pages, and their links packed into one circular pool of at most `maxPoolSize` ids. A new
 * page forgets the oldest pages until it has a slot and room for its links. A page's links
 * are one contiguous run of the pool, and the runs follow each other in the order the pages
 * came, so the free space is always the stretch between the newest run's end and the oldest
 * run's start.
 *
 * The pool doubles when it would otherwise forget a page the window still has a slot for, so
 * it ends near what the window's pages link to. A pool allocated whole at its maximum cost
 * memory only as its write position first moved through it: on a web of eight links a page,
 * it crept up by 3 MB over a 100,000-page crawl and would have gone on to 8 MB.
 *
 * The slots grow likewise, up to the window: a cluster worker holds hundreds of small crawls.
 *
 * A Map of one small typed array per page held the same: twenty thousand JavaScript
 * objects and malloc blocks, freed one by one in between the crawl's short-lived buffers.
 */
export class ChildrenWindow {
  #pool: Int32Array;
  readonly #maxPoolSize: number;
  readonly #window: number;
  /** Per window slot: its page (-1 when free), and where its links are in the pool. */
  #page: Int32Array;
  #from: Int32Array;
  #length: Int32Array;
  /** Per page id: the slot it was given (valid only while #page[slot] is that page). */
  #slotOf = new Int32Array(0);
  #oldest = 0;
  #live = 0;
  /** Where the next page's links go. */
  #write = 0;

  constructor(options: { window: number; maxPoolSize?: number; initialPoolSize?: number }) {
    this.#window = Math.max(1, options.window);
    this.#maxPoolSize = Math.max(1, options.maxPoolSize ?? DEFAULT_MAX_POOL_SIZE);
    this.#pool = new Int32Array(Math.min(this.#maxPoolSize, Math.max(1, options.initialPoolSize ?? INITIAL_POOL_SIZE)));
    const slots = Math.min(this.#window, INITIAL_SLOTS);
    this.#page = new Int32Array(slots).fill(-1);
    this.#from = new Int32Array(slots);
    this.#length = new Int32Array(slots);
  }

  /** Outlink ids the pool has room for now. */
  get poolSize(): number {
    return this.#pool.length;
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
    const n = Math.min(count, this.#maxPoolSize);
    if (n === 0) return;
    if (this.#live === this.#page.length) {
      if (this.#page.length < this.#window) this.#addSlots();
      else this.#forgetOldest();
    }
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

  /**
   * Moves the write position to a free run of n ids, doubling the pool while it may grow and
   * otherwise forgetting the oldest pages in its way.
   */
  #makeRoom(n: number): void {
    while (n > this.#pool.length) this.#grow();
    for (;;) {
      const size = this.#pool.length;
      if (this.#live === 0) {
        if (this.#write + n > size) this.#write = 0;
        return;
      }
      const oldestStart = this.#from[this.#oldest] as number;
      if (oldestStart >= this.#write) {
        // Free: from the write position up to the oldest run.
        if (oldestStart - this.#write >= n) return;
        if (size < this.#maxPoolSize) this.#grow();
        else this.#forgetOldest();
      } else if (size - this.#write >= n) {
        // Free: from the write position to the end of the pool (and from its start to the oldest run).
        return;
      } else {
        this.#write = 0;
      }
    }
  }

  /** Doubles the pool (up to its maximum), packing the kept runs at its start, oldest first. */
  #grow(): void {
    const pool = new Int32Array(Math.min(this.#maxPoolSize, this.#pool.length * 2));
    let write = 0;
    for (let k = 0; k < this.#live; k++) {
      const slot = (this.#oldest + k) % this.#page.length;
      const from = this.#from[slot] as number;
      const length = this.#length[slot] as number;
      pool.set(this.#pool.subarray(from, from + length), write);
      this.#from[slot] = write;
      write += length;
    }
    freeNow(this.#pool.buffer);
    this.#pool = pool;
    this.#write = write;
  }

  /** Half as many slots again (up to the window), the live ones moved to the start, oldest first. */
  #addSlots(): void {
    const slots = Math.min(this.#window, capacityFor(this.#page.length, this.#page.length + 1));
    const page = new Int32Array(slots).fill(-1);
    const from = new Int32Array(slots);
    const length = new Int32Array(slots);
    for (let k = 0; k < this.#live; k++) {
      const slot = (this.#oldest + k) % this.#page.length;
      const id = this.#page[slot] as number;
      page[k] = id;
      from[k] = this.#from[slot] as number;
      length[k] = this.#length[slot] as number;
      this.#slotOf[id] = k;
    }
    this.#page = page;
    this.#from = from;
    this.#length = length;
    this.#oldest = 0;
  }

  #forgetOldest(): void {
    this.#page[this.#oldest] = -1;
    this.#oldest = (this.#oldest + 1) % this.#page.length;
    this.#live--;
  }
}
