import { freeWholeView } from '../memory/free-buffer.ts';

/** Smallest capacity worth compacting or shrinking. */
const MIN_CAPACITY = 8;

/**
 * A host's queue of URL ids, best first: higher priority, then lower id (discovered
 * earlier). Kept in two growable typed arrays, 16 bytes a URL, so a frontier of millions
 * of URLs stays compact and no index in SQLite has to be updated for every new URL.
 * A URL whose priority changes is pushed again rather than found and moved, so the heap
 * holds stale entries; `compact` drops them before the heap would grow.
 */
export class UrlHeap {
  #priority = new Float64Array(MIN_CAPACITY);
  #id = new Float64Array(MIN_CAPACITY);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(id: number, priority: number): void {
    if (this.#size === this.#id.length) this.#resize(this.#id.length * 2);
    let i = this.#size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#better(priority, id, this.#priority[parent] as number, this.#id[parent] as number)) break;
      this.#priority[i] = this.#priority[parent] as number;
      this.#id[i] = this.#id[parent] as number;
      i = parent;
    }
    this.#priority[i] = priority;
    this.#id[i] = id;
  }

  /** True when the next push would have to grow the arrays. */
  get full(): boolean {
    return this.#size === this.#id.length;
  }

  /**
   * Keeps one entry per URL that `currentPriority` still knows (undefined drops it), at its
   * current priority, and rebuilds the heap in linear time. Halves the arrays while they are
   * less than a quarter full, so a long crawl's heaps shrink back as their stale entries go,
   * and doubles them when it freed less than half, so compactions stay rare.
   */
  compact(currentPriority: (id: number) => number | undefined): void {
    const kept = new Set<number>();
    let size = 0;
    for (let i = 0; i < this.#size; i++) {
      const id = this.#id[i] as number;
      if (kept.has(id)) continue;
      const priority = currentPriority(id);
      if (priority === undefined) continue;
      kept.add(id);
      this.#id[size] = id;
      this.#priority[size] = priority;
      size++;
    }
    this.#size = size;
    let capacity = this.#id.length;
    while (capacity > MIN_CAPACITY && size < capacity / 4) capacity /= 2;
    // Still more than half full: grow now, so that the next compaction is at least half a heap of pushes away (amortised O(1)).
    if (size > capacity / 2) capacity *= 2;
    if (capacity !== this.#id.length) this.#resize(capacity);
    for (let i = (size >> 1) - 1; i >= 0; i--) this.#siftDown(i);
  }

  /** The best entry without removing it. */
  peek(): { id: number; priority: number } | undefined {
    return this.#size === 0 ? undefined : { id: this.#id[0] as number, priority: this.#priority[0] as number };
  }

  /** Removes and returns the best entry, or undefined when empty. */
  popEntry(): { id: number; priority: number } | undefined {
    const top = this.peek();
    if (top !== undefined) this.pop();
    return top;
  }

  /** Removes and returns the best id, or undefined when empty. */
  pop(): number | undefined {
    if (this.#size === 0) return undefined;
    const top = this.#id[0] as number;
    const last = --this.#size;
    this.#priority[0] = this.#priority[last] as number;
    this.#id[0] = this.#id[last] as number;
    this.#siftDown(0);
    return top;
  }

  #siftDown(start: number): void {
    const size = this.#size;
    const priority = this.#priority[start] as number;
    const id = this.#id[start] as number;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      let child = left;
      if (right < size && this.#better(this.#priority[right] as number, this.#id[right] as number, this.#priority[left] as number, this.#id[left] as number)) {
        child = right;
      }
      if (!this.#better(this.#priority[child] as number, this.#id[child] as number, priority, id)) break;
      this.#priority[i] = this.#priority[child] as number;
      this.#id[i] = this.#id[child] as number;
      i = child;
    }
    this.#priority[i] = priority;
    this.#id[i] = id;
  }

  /**
   * Calls `visit` for each entry whose priority passes `qualifies`, which must hold for
   * every priority above one it holds for: a subtree whose root fails is skipped, since no
   * entry ranks above its parent. Costs the entries visited, not the heap's size.
   */
  forEachWhere(qualifies: (priority: number) => boolean, visit: (id: number, priority: number) => void): void {
    const pending = [0];
    for (let i = pending.pop(); i !== undefined; i = pending.pop()) {
      if (i >= this.#size || !qualifies(this.#priority[i] as number)) continue;
      visit(this.#id[i] as number, this.#priority[i] as number);
      pending.push(2 * i + 1, 2 * i + 2);
    }
  }

  /** Every id in the queue, in no particular order. */
  *ids(): Generator<number> {
    for (let i = 0; i < this.#size; i++) yield this.#id[i] as number;
  }

  clear(): void {
    this.#size = 0;
    if (this.#id.length > 1024) this.#resize(MIN_CAPACITY);
  }

  #better(pa: number, ia: number, pb: number, ib: number): boolean {
    return pa > pb || (pa === pb && ia < ib);
  }

  /** Moves the entries into arrays of `capacity`, freeing the old ones at once rather than at V8's next full collection. */
  #resize(capacity: number): void {
    const priority = new Float64Array(capacity);
    const id = new Float64Array(capacity);
    priority.set(this.#priority.subarray(0, this.#size));
    id.set(this.#id.subarray(0, this.#size));
    freeWholeView(this.#priority);
    freeWholeView(this.#id);
    this.#priority = priority;
    this.#id = id;
  }
}
