import { NearDuplicateIndex, simhashFromInt, type Simhash } from '../relevance/simhash.ts';
import type { PageStore } from '../store/page-store.ts';

/** Stored simhashes read per statement. */
const LOAD_CHUNK = 2000;

export interface Duplicate {
  seq: number;
  kind: 'exact' | 'near';
}

/**
 * Finds what a new page duplicates: a stored page with the same body (stored once, so the
 * new row keeps no body of its own), else one whose text's simhash is within 3 bits (a
 * near-duplicate: marked, its body and links kept). Only original pages are indexed, so a
 * chain of copies points at the first.
 */
export class DuplicateFinder {
  readonly #pages: PageStore;
  readonly #near = new NearDuplicateIndex();
  /** The last stored page read into the index, and whether every stored page is. */
  #loadedTo = 0;
  #complete = false;

  constructor(pages: PageStore) {
    this.#pages = pages;
  }

  /**
   * Reads the stored originals' simhashes into the index, a chunk a step (a run's start runs
   * them between turns of the event loop); what is left is read at once on first use.
   */
  *loadSteps(): Generator<void, void, undefined> {
    while (!this.#complete) {
      const chunk = this.#pages.simhashesAfter(this.#loadedTo, LOAD_CHUNK);
      for (const row of chunk) this.#near.add(row.seq, simhashFromInt(row.simhash));
      this.#loadedTo = chunk[chunk.length - 1]?.seq ?? this.#loadedTo;
      this.#complete = chunk.length === 0;
      yield;
    }
  }

  #load(): void {
    for (const _ of this.loadSteps());
  }

  find(bodyHash: string | null, hash: Simhash | null): Duplicate | null {
    const exact = bodyHash === null ? undefined : this.#pages.withBody(bodyHash);
    if (exact !== undefined) return { seq: exact, kind: 'exact' };
    if (hash !== null) this.#load();
    const near = hash === null ? undefined : this.#near.find(hash);
    return near === undefined ? null : { seq: near, kind: 'near' };
  }

  /** A stored page joins the index when it is an original. */
  stored(seq: number, hash: Simhash | null, duplicate: Duplicate | null): void {
    if (hash === null || duplicate !== null) return;
    this.#load();
    // A page stored before the index was first read is in it already.
    if (seq > this.#loadedTo) this.#near.add(seq, hash);
  }
}

