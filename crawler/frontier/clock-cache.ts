/**
 * A fixed-size CLOCK cache from URL fingerprint to URL id (Broder, Najork & Wiener 2003:
 * CLOCK hits about as often as LRU for the seen-URL test, at a fraction of the bookkeeping).
 * Each slot has a reference bit; the hand clears bits until it finds an unreferenced slot to evict.
 */
export class ClockCache {
  readonly capacity: number;
  readonly #index = new Map<bigint, number>();
  readonly #keys: BigInt64Array;
  readonly #values: Float64Array;
  readonly #referenced: Uint8Array;
  #size = 0;
  #hand = 0;
  lookups = 0;
  hits = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`cache capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.#keys = new BigInt64Array(capacity);
    this.#values = new Float64Array(capacity);
    this.#referenced = new Uint8Array(capacity);
  }

  /** Looks a fingerprint up and counts the lookup for the hit rate. */
  get(key: bigint): number | undefined {
    this.lookups++;
    const slot = this.#index.get(key);
    if (slot === undefined) return undefined;
    this.hits++;
    this.#referenced[slot] = 1;
    return this.#values[slot];
  }

  set(key: bigint, value: number): void {
    const existing = this.#index.get(key);
    if (existing !== undefined) {
      this.#values[existing] = value;
      this.#referenced[existing] = 1;
      return;
    }
    let slot: number;
    if (this.#size < this.capacity) {
      slot = this.#size++;
    } else {
      while (this.#referenced[this.#hand] === 1) {
        this.#referenced[this.#hand] = 0;
        this.#hand = (this.#hand + 1) % this.capacity;
      }
      slot = this.#hand;
      this.#hand = (this.#hand + 1) % this.capacity;
      this.#index.delete(this.#keys[slot] as bigint);
    }
    this.#keys[slot] = key;
    this.#values[slot] = value;
    this.#referenced[slot] = 0;
    this.#index.set(key, slot);
  }

  get size(): number {
    return this.#size;
  }

  get hitRate(): number {
    return this.lookups === 0 ? 0 : this.hits / this.lookups;
  }
}
