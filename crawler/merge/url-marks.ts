import { enlarge } from '../memory/enlarge.ts';

/**
 * What the merge knows of each merged URL id, in typed columns (5 bytes a URL). Which shard's
 * row it holds: a `partition:` stub (rank 1) gives way to any row of the URL's owner (rank 2),
 * which gives way to a row with a page (rank 3); equal ranks keep the first shard's. Beside
 * the rank: whether some shard held the URL as a stub (to count the stubs the merge
 * resolved), whether the merged collection holds its page yet (so that no page is stored
 * twice), and a hash of its text, to notice two URLs sharing a fingerprint without reading
 * the row back.
 */
export const UrlRank = { none: 0, stub: 1, owner: 2, fetched: 3 } as const;
export type UrlRankValue = (typeof UrlRank)[keyof typeof UrlRank];

const RANK_BITS = 0b11;
const HAD_STUB = 0b100;
const HAS_PAGE = 0b1000;

/** FNV-1a over the URL's text: two texts with one fingerprint and one such hash are, for the merge, one URL. */
export function urlTextHash(url: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < url.length; i++) h = Math.imul(h ^ url.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export class UrlMarks {
  #marks = new Uint8Array(1 << 12);
  #textHashes = new Uint32Array(1 << 12);

  rank(id: number): UrlRankValue {
    return (this.#at(id) & RANK_BITS) as UrlRankValue;
  }

  setRank(id: number, rank: UrlRankValue): void {
    this.#room(id);
    this.#marks[id] = ((this.#marks[id] as number) & ~RANK_BITS) | rank;
  }

  markStub(id: number): void {
    this.#room(id);
    this.#marks[id] = (this.#marks[id] as number) | HAD_STUB;
  }

  /** Records that the merged collection now holds this URL's page. */
  markPage(id: number): void {
    this.#room(id);
    this.#marks[id] = (this.#marks[id] as number) | HAS_PAGE;
  }

  hasPage(id: number): boolean {
    return (this.#at(id) & HAS_PAGE) !== 0;
  }

  textHash(id: number): number {
    return id < this.#textHashes.length ? (this.#textHashes[id] as number) : 0;
  }

  setTextHash(id: number, hash: number): void {
    this.#room(id);
    this.#textHashes[id] = hash;
  }

  /** URLs some shard knew only as another partition's stub, whose owner's row the merge found. */
  resolvedStubs(): number {
    let n = 0;
    for (const mark of this.#marks) if ((mark & HAD_STUB) !== 0 && (mark & RANK_BITS) > UrlRank.stub) n++;
    return n;
  }

  #at(id: number): number {
    return id < this.#marks.length ? (this.#marks[id] as number) : 0;
  }

  #room(id: number): void {
    if (id < this.#marks.length) return;
    let capacity = this.#marks.length;
    while (capacity <= id) capacity = Math.ceil(capacity * 1.5);
    this.#marks = enlarge(this.#marks, capacity);
    this.#textHashes = enlarge(this.#textHashes, capacity);
  }
}
