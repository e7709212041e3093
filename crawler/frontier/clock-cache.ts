/**
 * A fixed-size CLOCK cache from URL fingerprint to URL id (Broder, Najork & Wiener 2003:
 * CLOCK hits about as often as LRU for the seen-URL test, at a fraction of the bookkeeping).
 * Each slot has a reference bit; the hand clears bits until it finds an unreferenced slot to evict.
 *
 * Everything lives in typed arrays allocated up front: the fingerprint's two 32-bit halves, the
 * value and the bit per slot, and an open-addressing index (linear probing, at most half full).
 * A Map keyed by BigInt took about 6 MB when full and grew while it filled, after every restart.
 */
export class ClockCache {
  readonly capacity: number;
  readonly #hi: Int32Array;
  readonly #lo: Int32Array;
  readonly #values: Float64Array;
  readonly #referenced: Uint8Array;
  /** Per bucket, the slot holding its key plus one; 0 for an empty bucket. */
  readonly #index: Int32Array;
  readonly #mask: number;
  #size = 0;
  #hand = 0;
  lookups = 0;
  hits = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`cache capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.#hi = new Int32Array(capacity);
    this.#lo = new Int32Array(capacity);
    this.#values = new Float64Array(capacity);
    this.#referenced = new Uint8Array(capacity);
    let buckets = 2;
    while (buckets < capacity * 2) buckets *= 2;
    this.#index = new Int32Array(buckets);
    this.#mask = buckets - 1;
  }

  /** Looks a fingerprint up and counts the lookup for the hit rate. */
  get(key: bigint): number | undefined {
    this.lookups++;
    const slot = (this.#index[this.#bucketOf(high(key), low(key))] as number) - 1;
    if (slot < 0) return undefined;
    this.hits++;
    this.#referenced[slot] = 1;
    return this.#values[slot];
  }

  set(key: bigint, value: number): void {
    const hi = high(key);
    const lo = low(key);
    let bucket = this.#bucketOf(hi, lo);
    const existing = (this.#index[bucket] as number) - 1;
    if (existing >= 0) {
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
      this.#unindex(this.#bucketOf(this.#hi[slot] as number, this.#lo[slot] as number));
      // Taking the evicted key out may have moved the bucket this key belongs in.
      bucket = this.#bucketOf(hi, lo);
    }
    this.#hi[slot] = hi;
    this.#lo[slot] = lo;
    this.#values[slot] = value;
    this.#referenced[slot] = 0;
    this.#index[bucket] = slot + 1;
  }

  get size(): number {
    return this.#size;
  }

  get hitRate(): number {
    return this.lookups === 0 ? 0 : this.hits / this.lookups;
  }

  /** The bucket holding the key, or the empty bucket where it would go. */
  #bucketOf(hi: number, lo: number): number {
    const index = this.#index;
    const mask = this.#mask;
    let bucket = home(hi, lo) & mask;
    for (;;) {
      const entry = index[bucket] as number;
      if (entry === 0 || (this.#lo[entry - 1] === lo && this.#hi[entry - 1] === hi)) return bucket;
      bucket = (bucket + 1) & mask;
    }
  }

  /** Empties a bucket, shifting back the entries after it that probed past it (no tombstones). */
  #unindex(bucket: number): void {
    const index = this.#index;
    const mask = this.#mask;
    let hole = bucket;
    for (let next = (bucket + 1) & mask; ; next = (next + 1) & mask) {
      const entry = index[next] as number;
      if (entry === 0) break;
      const entryHome = home(this.#hi[entry - 1] as number, this.#lo[entry - 1] as number) & mask;
      // The entry may fill the hole when its home is not between the hole and where it sits.
      if (((next - entryHome) & mask) >= ((next - hole) & mask)) {
        index[hole] = entry;
        hole = next;
      }
    }
    index[hole] = 0;
  }
}

function high(key: bigint): number {
  return Number(BigInt.asIntN(32, key >> 32n));
}

function low(key: bigint): number {
  return Number(BigInt.asIntN(32, key));
}

/** Fingerprints are hashes already; mixing the halves still spreads keys that differ in either. */
function home(hi: number, lo: number): number {
  return Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0;
}
