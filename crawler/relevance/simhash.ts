/*
 * Charikar's simhash of a page's text, as Manku, Jain and Das Sarma (WWW 2007) use it to find
 * near-duplicate web pages: each term votes on each of 64 bits with its count as weight; a
 * bit of the fingerprint is 1 where the votes for 1 win. Pages whose fingerprints differ in at
 * most NEAR_DUPLICATE_BITS bits are near-duplicates.
 */

export const NEAR_DUPLICATE_BITS = 3;
/** A page with fewer distinct terms has too little text for its fingerprint to say anything. */
export const MIN_SIMHASH_TERMS = 10;

/** A 64-bit fingerprint as two unsigned 32-bit halves (numbers are cheaper than bigints here). */
export interface Simhash {
  hi: number;
  lo: number;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** MurmurHash3's finaliser: spreads the bits of a 32-bit hash. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The simhash of a page's term counts, or null when it has fewer than MIN_SIMHASH_TERMS distinct terms. */
export function simhash(terms: ReadonlyMap<string, number>): Simhash | null {
  if (terms.size < MIN_SIMHASH_TERMS) return null;
  const votes = new Float64Array(64);
  for (const [term, count] of terms) {
    const a = fnv1a(term);
    const halves = [mix(a), mix(a ^ 0x9e3779b9)];
    halves.forEach((half, h) => {
      for (let bit = 0; bit < 32; bit++) votes[h * 32 + bit]! += (half >>> bit) & 1 ? count : -count;
    });
  }
  let hi = 0;
  let lo = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (votes[bit]! > 0) hi |= 1 << bit;
    if (votes[32 + bit]! > 0) lo |= 1 << bit;
  }
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

export function hammingDistance(a: Simhash, b: Simhash): number {
  return popcount((a.hi ^ b.hi) >>> 0) + popcount((a.lo ^ b.lo) >>> 0);
}

/** The fingerprint as SQLite stores it: one signed 64-bit integer. */
export function simhashToInt(s: Simhash): bigint {
  return BigInt.asIntN(64, (BigInt(s.hi) << 32n) | BigInt(s.lo));
}

export function simhashFromInt(value: bigint): Simhash {
  const unsigned = BigInt.asUintN(64, value);
  return { hi: Number(unsigned >> 32n), lo: Number(unsigned & 0xffffffffn) };
}

/**
 * Fingerprints of stored pages, found by near-duplicate in a few lookups: within 3 bits, two
 * fingerprints agree exactly on at least one of their four 16-bit blocks (pigeonhole), so
 * each block indexes the pages and only pages sharing a block are compared (Manku et al.).
 */
export class NearDuplicateIndex {
  readonly #blocks = [new Map<number, number[]>(), new Map<number, number[]>(), new Map<number, number[]>(), new Map<number, number[]>()];
  readonly #hashes = new Map<number, Simhash>();

  get size(): number {
    return this.#hashes.size;
  }

  add(seq: number, hash: Simhash): void {
    this.#hashes.set(seq, hash);
    blocksOf(hash).forEach((block, i) => {
      const map = this.#blocks[i]!;
      const list = map.get(block);
      if (list === undefined) map.set(block, [seq]);
      else list.push(seq);
    });
  }

  /** The earliest stored page within NEAR_DUPLICATE_BITS of `hash`, if any. */
  find(hash: Simhash): number | undefined {
    let best: number | undefined;
    blocksOf(hash).forEach((block, i) => {
      for (const seq of this.#blocks[i]!.get(block) ?? []) {
        if (best !== undefined && seq >= best) continue;
        if (hammingDistance(this.#hashes.get(seq)!, hash) <= NEAR_DUPLICATE_BITS) best = seq;
      }
    });
    return best;
  }
}

function blocksOf(h: Simhash): [number, number, number, number] {
  return [h.hi >>> 16, h.hi & 0xffff, h.lo >>> 16, h.lo & 0xffff];
}
