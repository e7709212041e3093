import { NearDuplicateIndex, simhashFromInt, type Simhash } from '../relevance/simhash.ts';
import type { PageStore } from '../store/page-store.ts';

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

  constructor(pages: PageStore) {
    this.#pages = pages;
    for (const row of pages.simhashes()) this.#near.add(row.seq, simhashFromInt(row.simhash));
  }

  find(bodyHash: string | null, hash: Simhash | null): Duplicate | null {
    const exact = bodyHash === null ? undefined : this.#pages.withBody(bodyHash);
    if (exact !== undefined) return { seq: exact, kind: 'exact' };
    const near = hash === null ? undefined : this.#near.find(hash);
    return near === undefined ? null : { seq: near, kind: 'near' };
  }

  /** A stored page joins the index when it is an original. */
  stored(seq: number, hash: Simhash | null, duplicate: Duplicate | null): void {
    if (hash !== null && duplicate === null) this.#near.add(seq, hash);
  }
}

