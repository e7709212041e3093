/** Growable typed columns: per-URL state lives in flat arrays indexed by a dense URL index. */

type Column = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array;

/** A copy of column with room for `capacity` entries; new entries hold `fill`. */
export function enlarge<T extends Column>(column: T, capacity: number, fill = 0): T {
  const next = new (column.constructor as new (length: number) => T)(capacity);
  next.set(column);
  if (fill !== 0) next.fill(fill, column.length);
  return next;
}

/** The next capacity for `needed` entries: doubling keeps appends amortised O(1). */
export function capacityFor(current: number, needed: number): number {
  let capacity = Math.max(current, 16);
  while (capacity < needed) capacity *= 2;
  return capacity;
}

/**
 * Short id lists (one per URL) packed in one array: an offset and a length per URL, so a
 * 100,000-URL frontier costs no per-URL objects.
 */
export class IdListPool {
  readonly maxLength: number;
  #data = new Int32Array(1024);
  #used = 0;
  #start = new Uint32Array(0);
  #length = new Uint8Array(0);

  constructor(maxLength: number) {
    this.maxLength = Math.min(maxLength, 255);
  }

  ensure(capacity: number): void {
    if (capacity <= this.#start.length) return;
    this.#start = enlarge(this.#start, capacity);
    this.#length = enlarge(this.#length, capacity);
  }

  /** Stores the list of `owner` (once: a URL's tokens never change). */
  set(owner: number, ids: readonly number[]): void {
    const n = Math.min(ids.length, this.maxLength);
    if (this.#used + n > this.#data.length) this.#data = enlarge(this.#data, capacityFor(this.#data.length, this.#used + n));
    for (let k = 0; k < n; k++) this.#data[this.#used + k] = ids[k] as number;
    this.#start[owner] = this.#used;
    this.#length[owner] = n;
    this.#used += n;
  }

  start(owner: number): number {
    return this.#start[owner] as number;
  }

  length(owner: number): number {
    return this.#length[owner] as number;
  }

  /** The backing array: read entries start(owner) .. start(owner) + length(owner). */
  get data(): Int32Array {
    return this.#data;
  }
}
