import { enlarge } from '../../memory/enlarge.ts';
import { capacityFor } from '../columns.ts';
import { FEATURE_COUNT } from './features.ts';

/**
 * Delayed credit (Rennie and McCallum, ICML 1999; Diligenti et al.'s context graphs, VLDB
 * 2000): when a fetched page's child turns out relevant, the links that led there earn
 * part of the reward. The features each recent page had before it was fetched are kept
 * here, so the page can be learnt again with target DISCOUNT × the child's grade. This
 * is what makes tables of contents and hubs, rarely relevant themselves, worth fetching.
 */

export const DISCOUNT = 0.5;
/** Weight of a delayed example against a page's own (1). */
export const DELAYED_WEIGHT = 0.5;

/**
 * Kept in arrays of window slots (a Map per page held tens of bytes an entry, and its table
 * doubled as pages came and went), found through a column indexed by page id. The slots
 * grow with the pages kept, up to the window: a cluster worker holds hundreds of small
 * crawls, and a window allocated whole was 3 MB of each.
 */
export class PastFeatures {
  readonly #window: number;
  #features = new Float32Array(0);
  #owner = new Int32Array(0);
  /** The best delayed target each kept page was learnt with so far. */
  #credited = new Float64Array(0);
  /** Per page id: the slot it was kept in (valid only while #owner[slot] is that page). */
  #slotOf = new Int32Array(0);
  #next = 0;

  constructor(window: number) {
    this.#window = Math.max(1, window);
  }

  /** Keeps a fetched page's features, forgetting the oldest page beyond the window. */
  keep(page: number, x: ArrayLike<number>): void {
    if (this.#next === this.#owner.length) {
      if (this.#owner.length < this.#window) this.#grow();
      else this.#next = 0;
    }
    const slot = this.#next++;
    if (page >= this.#slotOf.length) this.#slotOf = enlarge(this.#slotOf, capacityFor(this.#slotOf.length, page + 1));
    this.#owner[slot] = page;
    this.#slotOf[page] = slot;
    this.#credited[slot] = 0;
    this.#features.set(x as ArrayLike<number>, slot * FEATURE_COUNT);
  }

  /** Room for more slots, up to the window; called when every slot is taken. */
  #grow(): void {
    const slots = Math.min(this.#window, capacityFor(this.#owner.length, this.#owner.length + 1));
    this.#features = enlarge(this.#features, slots * FEATURE_COUNT);
    this.#owner = enlarge(this.#owner, slots, -1);
    this.#credited = enlarge(this.#credited, slots);
  }

  /** The page's kept features, or undefined when it is older than the window. */
  kept(page: number): Float32Array | undefined {
    const slot = this.#slotFor(page);
    return slot === undefined ? undefined : this.#features.subarray(slot * FEATURE_COUNT, (slot + 1) * FEATURE_COUNT);
  }

  /**
   * The page's kept features when `target` is more than it was credited with so far and
   * more than its own grade (the caller then learns it); undefined otherwise.
   */
  creditable(page: number, target: number, ownGrade: number): Float32Array | undefined {
    const slot = this.#slotFor(page);
    if (slot === undefined || target <= ownGrade || target <= (this.#credited[slot] as number)) return undefined;
    this.#credited[slot] = target;
    return this.#features.subarray(slot * FEATURE_COUNT, (slot + 1) * FEATURE_COUNT);
  }

  #slotFor(page: number): number | undefined {
    if (page >= this.#slotOf.length) return undefined;
    const slot = this.#slotOf[page] as number;
    return this.#owner[slot] === page ? slot : undefined;
  }
}
