/**
 * How many queued URLs rank above a priority, across every host, in O(log n): a Fenwick
 * tree over 65,536 buckets of priority. The host scheduler asks it whether a ready host's
 * best URL is among the crawl's best before spending a turn on it.
 *
 * A bucket is the top 16 bits of the priority's float32 form, made order-preserving
 * (sign, exponent and 7 bits of mantissa): equal priorities always share a bucket, and
 * priorities within 1% of each other may, so near-ties count as ties. That is the only
 * approximation, and it errs towards letting a host go.
 */
const BUCKETS = 1 << 16;

const float = new Float32Array(1);
const bits = new Uint32Array(float.buffer);

/** The bucket of a priority: monotone, so a higher priority never has a lower bucket. */
export function priorityBucket(priority: number): number {
  // NaN ranks lowest; -0 is 0, so it must share 0's bucket.
  float[0] = Number.isNaN(priority) ? Number.NEGATIVE_INFINITY : priority === 0 ? 0 : priority;
  const raw = bits[0] as number;
  // Positive floats sort as their bits with the sign set; negative ones as their bits inverted.
  const ordered = raw & 0x8000_0000 ? ~raw >>> 0 : (raw | 0x8000_0000) >>> 0;
  return ordered >>> 16;
}

export class PriorityRanks {
  /** Fenwick tree, 1-based: entry i covers the buckets (i - lowbit(i), i]. */
  readonly #tree = new Int32Array(BUCKETS + 1);
  #count = 0;

  /** Counts one more (delta 1) or one fewer (delta -1) URL in a bucket. */
  add(bucket: number, delta: 1 | -1): void {
    this.#count += delta;
    for (let i = bucket + 1; i <= BUCKETS; i += i & -i) this.#tree[i] = (this.#tree[i] as number) + delta;
  }

  /** URLs counted in a bucket strictly above this one. */
  above(bucket: number): number {
    let atOrBelow = 0;
    for (let i = bucket + 1; i > 0; i -= i & -i) atOrBelow += this.#tree[i] as number;
    return this.#count - atOrBelow;
  }

  get size(): number {
    return this.#count;
  }
}
