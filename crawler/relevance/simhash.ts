/*
 * Charikar's simhash of a page's text, as Manku, Jain and Das Sarma (WWW 2007) use it to find
 * near-duplicate web pages: each term votes on each of 64 bits with its count as weight; a
 * bit of the fingerprint is 1 where the votes for 1 win. Pages whose fingerprints differ in at
 * most NEAR_DUPLICATE_BITS bits are near-duplicates.
 */
import { enlarge } from '../memory/enlarge.ts';
import { freeWholeView } from '../memory/free-buffer.ts';

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
    vote(votes, 0, mix(a), count);
    vote(votes, 32, mix(a ^ 0x9e3779b9), count);
  }
  let hi = 0;
  let lo = 0;
  for (let bit = 0; bit < 32; bit++) {
    if (votes[bit]! > 0) hi |= 1 << bit;
    if (votes[32 + bit]! > 0) lo |= 1 << bit;
  }
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

/** Adds `count` to the votes of the 32 bits from `offset` where `half` has a 1, and takes it from the others. */
function vote(votes: Float64Array, offset: number, half: number, count: number): void {
  for (let bit = 0; bit < 32; bit++) votes[offset + bit]! += ((half >>> bit) & 1) * 2 * count - count;
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

const BLOCKS = 4;
/** A block's values index its chains by their top bits: 10 of them at first, 16 at most. */
const FIRST_KEY_BITS = 10;
const MAX_KEY_BITS = 16;

/**
 * Fingerprints of stored pages, found by near-duplicate in a few lookups: within 3 bits, two
 * fingerprints agree exactly on at least one of their four 16-bit blocks (pigeonhole), so
 * each block indexes the pages and only pages sharing a block are compared (Manku et al.).
 * A crawl holds one entry per stored page for its whole run, so the index is typed arrays:
 * per block key the newest entry with it, each entry chained to the previous one with the
 * same key. 100,000 fingerprints take 4.5 MB so; maps of arrays and objects took 41.7 MB.
 *
 * A key is the block value's top bits, as many as keep the chains about one entry long (up
 * to all 16): the table grows and is rebuilt as entries come, so that a small crawl, and a
 * cluster worker's hundreds of small shards, do not each pay a megabyte up front.
 */
export class NearDuplicateIndex {
  #keyBits = FIRST_KEY_BITS;
  /** Per block and key, the newest entry with it, plus one (0: none). */
  #heads = new Int32Array(BLOCKS << FIRST_KEY_BITS);
  #seqs = new Int32Array(1024);
  /** The fingerprints' halves, as int32 bits. */
  #hi = new Int32Array(1024);
  #lo = new Int32Array(1024);
  /** Per entry and block, the entry before it with the same block key, plus one (0: none). */
  #next = new Int32Array(1024 * BLOCKS);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(seq: number, hash: Simhash): void {
    if (this.#size === this.#seqs.length) this.#grow();
    const entry = this.#size++;
    this.#seqs[entry] = seq;
    this.#hi[entry] = hash.hi;
    this.#lo[entry] = hash.lo;
    this.#link(entry, hash.hi, hash.lo);
    if (this.#size > 1 << this.#keyBits && this.#keyBits < MAX_KEY_BITS) this.#rekey();
  }

  /** The earliest stored page within NEAR_DUPLICATE_BITS of `hash`, if any. */
  find(hash: Simhash): number | undefined {
    let best: number | undefined;
    for (let block = 0; block < BLOCKS; block++) {
      for (let link = this.#heads[this.#headOf(block, hash.hi, hash.lo)] as number; link !== 0; link = this.#next[(link - 1) * BLOCKS + block] as number) {
        const entry = link - 1;
        const seq = this.#seqs[entry] as number;
        if (best !== undefined && seq >= best) continue;
        const bits = popcount((this.#hi[entry]! ^ hash.hi) >>> 0) + popcount((this.#lo[entry]! ^ hash.lo) >>> 0);
        if (bits <= NEAR_DUPLICATE_BITS) best = seq;
      }
    }
    return best;
  }

  #headOf(block: number, hi: number, lo: number): number {
    return (block << this.#keyBits) + (blockValue(hi, lo, block) >>> (16 - this.#keyBits));
  }

  #link(entry: number, hi: number, lo: number): void {
    for (let block = 0; block < BLOCKS; block++) {
      const head = this.#headOf(block, hi, lo);
      this.#next[entry * BLOCKS + block] = this.#heads[head] as number;
      this.#heads[head] = entry + 1;
    }
  }

  /** Four times the keys a block (two more bits, up to 16), every chain rebuilt in entry order so each stays newest first. */
  #rekey(): void {
    this.#keyBits = Math.min(MAX_KEY_BITS, this.#keyBits + 2);
    freeWholeView(this.#heads);
    this.#heads = new Int32Array(BLOCKS << this.#keyBits);
    for (let entry = 0; entry < this.#size; entry++) this.#link(entry, this.#hi[entry] as number, this.#lo[entry] as number);
  }

  #grow(): void {
    const capacity = this.#seqs.length * 2;
    this.#seqs = enlarge(this.#seqs, capacity);
    this.#hi = enlarge(this.#hi, capacity);
    this.#lo = enlarge(this.#lo, capacity);
    this.#next = enlarge(this.#next, capacity * BLOCKS);
  }
}

/** The hash's 16-bit block number `block` (0 and 1 from hi, 2 and 3 from lo). */
function blockValue(hi: number, lo: number, block: number): number {
  const half = block < 2 ? hi : lo;
  return block % 2 === 0 ? half >>> 16 : half & 0xffff;
}
