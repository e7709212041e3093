import { enlarge } from '../../memory/enlarge.ts';
import { capacityFor, KeyIndex } from '../columns.ts';

/** What scoring reads of the word weights: a token never learnt weighs 0. */
export interface SparseWeightReader {
  weight(token: number): number;
  /** Tokens it has a weight for. */
  readonly size: number;
}

/**
 * The link model's weights of hashed URL words, with each word's AdaGrad accumulator (1 plus
 * its squared gradients so far), in columns indexed by the order in which the words were
 * first learnt (a KeyIndex from token to index). A crawl learns a few thousand words at most
 * of the 65,536 a token can be, and arrays of all of them (768 KB with the epoch's frozen
 * copy) made every ordering of a cluster worker's hundreds of shards touch that much memory
 * at random, slowing the whole worker; a copy for an epoch was 256 KB.
 */
export class SparseWeights implements SparseWeightReader {
  /** Shared with the copies: a token keeps its index, and one learnt after a copy is beyond the copy's columns. */
  readonly #index = new KeyIndex();
  #weights = new Float32Array(0);
  #squared = new Float32Array(0);

  get size(): number {
    return this.#index.size;
  }

  weight(token: number): number {
    const i = this.#index.indexOf(token);
    return i === undefined ? 0 : (this.#weights[i] as number);
  }

  /** The token's index, made (weight 0, accumulator 1) when it is new. */
  claim(token: number): number {
    const known = this.#index.size;
    const i = this.#index.intern(token);
    if (i < known) return i;
    if (i >= this.#weights.length) {
      const capacity = capacityFor(this.#weights.length, i + 1);
      this.#weights = enlarge(this.#weights, capacity);
      this.#squared = enlarge(this.#squared, capacity);
    }
    this.#squared[i] = 1;
    return i;
  }

  weightAt(i: number): number {
    return this.#weights[i] as number;
  }

  setWeightAt(i: number, weight: number): void {
    this.#weights[i] = weight;
  }

  /** Adds a squared gradient to the accumulator at `i`; returns the accumulator as stored. */
  addSquaredAt(i: number, squaredGradient: number): number {
    this.#squared[i] = (this.#squared[i] as number) + squaredGradient;
    return this.#squared[i] as number;
  }

  /** The weights as they stand, which later learning does not change (an epoch's frozen weights). */
  copy(): SparseWeightReader {
    const index = this.#index;
    const weights = this.#weights.slice(0, index.size);
    return {
      size: weights.length,
      weight: (token) => {
        const i = index.indexOf(token);
        return i === undefined || i >= weights.length ? 0 : (weights[i] as number);
      },
    };
  }
}
