/** Growable typed columns: per-URL state lives in flat arrays indexed by a dense URL index. */
/**
 * The next capacity for `needed` entries. Growing by half keeps appends amortised O(1)
 * and leaves at most a third of a column unused (doubling can leave half).
 */
export function capacityFor(current: number, needed: number): number {
  let capacity = Math.max(current, 16);
  while (capacity < needed) capacity = Math.ceil(capacity * 1.5);
  return capacity;
}

/**
 * A map from 30-bit keys to dense indexes, in two typed arrays with open addressing
 * (linear probing, at most two thirds full): a few bytes an entry, where a Map of numbers
 * takes tens.
 */
export class KeyIndex {
  #keys = new Int32Array(1024).fill(-1);
  #values = new Int32Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The key's index, giving it the next one (size) when new. */
  intern(key: number): number {
    const slot = this.#find(key);
    if (this.#keys[slot] === key) return this.#values[slot] as number;
    this.#keys[slot] = key;
    this.#values[slot] = this.#size;
    if (++this.#size * 3 > this.#keys.length * 2) this.#rehash();
    return this.#size - 1;
  }

  /** The key's index, or undefined when it was never interned. */
  indexOf(key: number): number | undefined {
    const slot = this.#find(key);
    return this.#keys[slot] === key ? (this.#values[slot] as number) : undefined;
  }

  #find(key: number): number {
    const mask = this.#keys.length - 1;
    let slot = Math.imul(key, 0x9e3779b1) >>> 0 & mask;
    while (this.#keys[slot] !== -1 && this.#keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  #rehash(): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#keys = new Int32Array(keys.length * 2).fill(-1);
    this.#values = new Int32Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === -1) continue;
      const slot = this.#find(keys[i] as number);
      this.#keys[slot] = keys[i] as number;
      this.#values[slot] = values[i] as number;
    }
  }
}
