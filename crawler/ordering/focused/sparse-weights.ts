import { freeWholeView } from '../../memory/free-buffer.ts';

/** Slots a table starts with; it doubles whenever it would be more than half full. */
const FIRST_CAPACITY = 64;

/**
 * The link model's weights of hashed URL words, with each word's AdaGrad accumulator (1 plus
 * its squared gradients so far): an open-addressing table (linear probing) of the tokens
 * learnt so far. A token never learnt weighs 0. A crawl learns a few thousand words at most
 * of the 65,536 a token can be, and arrays of all of them (768 KB with the epoch's frozen
 * copy) made every ordering of a cluster worker's hundreds of shards touch that much memory
 * at random, slowing the whole worker; a copy for an epoch was 256 KB.
 */
export class SparseWeights {
  /** Per slot, its token plus one (0: empty). */
  #keys: Int32Array;
  #weights: Float32Array;
  #squared: Float32Array;
  #size = 0;

  constructor(capacity = FIRST_CAPACITY) {
    this.#keys = new Int32Array(capacity);
    this.#weights = new Float32Array(capacity);
    this.#squared = new Float32Array(capacity);
  }

  /** Tokens learnt. */
  get size(): number {
    return this.#size;
  }

  /** The token's weight; 0 for a token never learnt. */
  weight(token: number): number {
    const slot = this.#find(token);
    return this.#keys[slot] === token + 1 ? (this.#weights[slot] as number) : 0;
  }

  /** The token's slot, made (weight 0, accumulator 1) when it is new. Valid until the next claim. */
  claim(token: number): number {
    let slot = this.#find(token);
    if (this.#keys[slot] === token + 1) return slot;
    if ((this.#size + 1) * 2 > this.#keys.length) {
      this.#grow();
      slot = this.#find(token);
    }
    this.#keys[slot] = token + 1;
    this.#weights[slot] = 0;
    this.#squared[slot] = 1;
    this.#size++;
    return slot;
  }

  weightAt(slot: number): number {
    return this.#weights[slot] as number;
  }

  setWeightAt(slot: number, weight: number): void {
    this.#weights[slot] = weight;
  }

  /** Adds a squared gradient to the slot's accumulator; returns the accumulator as stored. */
  addSquaredAt(slot: number, squaredGradient: number): number {
    this.#squared[slot] = (this.#squared[slot] as number) + squaredGradient;
    return this.#squared[slot] as number;
  }

  /** A copy that later learning does not change (an epoch's frozen weights). */
  copy(): SparseWeights {
    const copy = new SparseWeights(0);
    copy.#keys = this.#keys.slice();
    copy.#weights = this.#weights.slice();
    copy.#squared = this.#squared.slice();
    copy.#size = this.#size;
    return copy;
  }

  /** The slot holding the token, or the empty slot where it would go. */
  #find(token: number): number {
    const mask = this.#keys.length - 1;
    let slot = (Math.imul(token + 1, 0x9e3779b1) >>> 0) & mask;
    for (let key = this.#keys[slot] as number; key !== 0 && key !== token + 1; key = this.#keys[slot] as number) slot = (slot + 1) & mask;
    return slot;
  }

  #grow(): void {
    const keys = this.#keys;
    const weights = this.#weights;
    const squared = this.#squared;
    const capacity = Math.max(FIRST_CAPACITY, keys.length * 2);
    this.#keys = new Int32Array(capacity);
    this.#weights = new Float32Array(capacity);
    this.#squared = new Float32Array(capacity);
    for (let old = 0; old < keys.length; old++) {
      const key = keys[old] as number;
      if (key === 0) continue;
      const slot = this.#find(key - 1);
      this.#keys[slot] = key;
      this.#weights[slot] = weights[old] as number;
      this.#squared[slot] = squared[old] as number;
    }
    for (const view of [keys, weights, squared]) freeWholeView(view);
  }
}
