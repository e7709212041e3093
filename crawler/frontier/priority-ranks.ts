/**
 * How many queued URLs rank above a priority, across every host, in O(log n): Fenwick
 * trees over 65,536 buckets of priority. The host scheduler asks it whether a ready host's
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

/** The highest buckets of `counts` (bucket → count), best first, until they hold `limit`: a compact summary of what ranks at the top. */
export function topBuckets(counts: ReadonlyMap<number, number>, limit: number): [bucket: number, count: number][] {
  const out: [number, number][] = [];
  let total = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => b - a)) {
    if (total >= limit) break;
    const count = counts.get(bucket) as number;
    out.push([bucket, count]);
    total += count;
  }
  return out;
}

/** Where a frontier's queued priorities are also counted: a cluster worker's tally of all its shards' (cluster/worker-requests.ts). */
export interface RankTally {
  add(bucket: number, delta: 1 | -1): void;
}

/** A bucket is a coarse bucket (its top 8 bits) and a fine one within it (its low 8 bits). */
const FINE_BITS = 8;
const FINE = 1 << FINE_BITS;
const COARSE = BUCKETS >>> FINE_BITS;

/**
 * Two levels of Fenwick trees (1-based: entry i covers the buckets (i - lowbit(i), i]): one
 * over the coarse buckets, and one over the fine buckets of each coarse bucket in use, made
 * when its first URL comes. Queued priorities crowd into a few exponents, so a frontier holds
 * a few kilobytes where one tree over all 65,536 buckets held 256 KB and touched a dozen
 * cache lines across it per change: a cluster worker runs hundreds of frontiers, and those
 * trees alone made every page of it slower.
 */
export class PriorityRanks implements RankTally {
  readonly #coarse = new Int32Array(COARSE + 1);
  readonly #fine: (Int32Array | undefined)[] = new Array<Int32Array | undefined>(COARSE).fill(undefined);
  #count = 0;

  /** Counts one more (delta 1) or one fewer (delta -1) URL in a bucket. */
  add(bucket: number, delta: 1 | -1): void {
    this.#count += delta;
    const coarse = bucket >>> FINE_BITS;
    addAt(this.#coarse, coarse, delta);
    let fine = this.#fine[coarse];
    if (fine === undefined) this.#fine[coarse] = fine = new Int32Array(FINE + 1);
    addAt(fine, bucket & (FINE - 1), delta);
  }

  /** URLs counted in a bucket strictly above this one. */
  above(bucket: number): number {
    const coarse = bucket >>> FINE_BITS;
    const fine = this.#fine[coarse];
    const atOrBelow = countUpTo(this.#coarse, coarse - 1) + (fine === undefined ? 0 : countUpTo(fine, bucket & (FINE - 1)));
    return this.#count - atOrBelow;
  }

  get size(): number {
    return this.#count;
  }
}


function addAt(tree: Int32Array, index: number, delta: number): void {
  for (let i = index + 1; i < tree.length; i += i & -i) tree[i] = (tree[i] as number) + delta;
}

/** The count in positions 0 ..= index (0 for index -1). */
function countUpTo(tree: Int32Array, index: number): number {
  let sum = 0;
  for (let i = index + 1; i > 0; i -= i & -i) sum += tree[i] as number;
  return sum;
}
