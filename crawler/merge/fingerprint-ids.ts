/**
 * The merged collection's URL id of each 64-bit fingerprint, in typed arrays: open
 * addressing with linear probing over the fingerprint's two 32-bit halves. A merge of
 * millions of URLs keeps one entry per URL; a Map keyed by BigInt would cost several times
 * the 12 bytes a slot takes here, and a garbage collector's work per entry.
 */
export class FingerprintIds {
  #hi: Int32Array;
  #lo: Uint32Array;
  /** 0 marks an empty slot: ids start at 1. */
  #ids: Int32Array;
  #mask: number;
  #size = 0;

  constructor(capacity = 1 << 12) {
    let slots = 16;
    while (slots < capacity) slots *= 2;
    this.#hi = new Int32Array(slots);
    this.#lo = new Uint32Array(slots);
    this.#ids = new Int32Array(slots);
    this.#mask = slots - 1;
  }

  get size(): number {
    return this.#size;
  }

  /** The id of this fingerprint, or 0 when it has none yet. */
  get(hi: number, lo: number): number {
    for (let slot = this.#slotOf(hi, lo); ; slot = (slot + 1) & this.#mask) {
      const id = this.#ids[slot] as number;
      if (id === 0) return 0;
      if (this.#lo[slot] === lo >>> 0 && this.#hi[slot] === (hi | 0)) return id;
    }
  }

  /** The id of this fingerprint; when it has none, `id` becomes its id. */
  idFor(hi: number, lo: number, id: number): number {
    if (id <= 0) throw new RangeError(`ids start at 1, got ${id}`);
    for (let slot = this.#slotOf(hi, lo); ; slot = (slot + 1) & this.#mask) {
      const found = this.#ids[slot] as number;
      if (found === 0) {
        this.#hi[slot] = hi;
        this.#lo[slot] = lo;
        this.#ids[slot] = id;
        this.#size++;
        // At most 3/4 full: linear probing stays short, and a slot is 12 bytes.
        if (this.#size * 4 > (this.#mask + 1) * 3) this.#grow();
        return id;
      }
      if (this.#lo[slot] === lo >>> 0 && this.#hi[slot] === (hi | 0)) return found;
    }
  }

  #slotOf(hi: number, lo: number): number {
    // Fingerprints are well mixed already; the finaliser (MurmurHash3's) spreads any pattern left across the low bits the mask keeps.
    let h = lo ^ Math.imul(hi, 0x9e3779b1);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h ^= h >>> 13;
    return (h >>> 0) & this.#mask;
  }

  #grow(): void {
    const hi = this.#hi;
    const lo = this.#lo;
    const ids = this.#ids;
    const slots = (this.#mask + 1) * 2;
    this.#hi = new Int32Array(slots);
    this.#lo = new Uint32Array(slots);
    this.#ids = new Int32Array(slots);
    this.#mask = slots - 1;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      if (id === 0) continue;
      let slot = this.#slotOf(hi[i] as number, lo[i] as number);
      while (this.#ids[slot] !== 0) slot = (slot + 1) & this.#mask;
      this.#hi[slot] = hi[i] as number;
      this.#lo[slot] = lo[i] as number;
      this.#ids[slot] = id;
    }
  }
}
