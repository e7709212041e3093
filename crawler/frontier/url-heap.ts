/**
 * A host's queue of URL ids, best first: higher priority, then lower id (discovered
 * earlier). Kept in two growable typed arrays, 16 bytes a URL, so a frontier of millions
 * of URLs stays compact and no index in SQLite has to be updated for every new URL.
 */
export class UrlHeap {
  #priority = new Float64Array(8);
  #id = new Float64Array(8);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(id: number, priority: number): void {
    if (this.#size === this.#id.length) this.#grow();
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
    const priority = this.#priority[last] as number;
    const id = this.#id[last] as number;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= last) break;
      const right = left + 1;
      let child = left;
      if (right < last && this.#better(this.#priority[right] as number, this.#id[right] as number, this.#priority[left] as number, this.#id[left] as number)) {
        child = right;
      }
      if (!this.#better(this.#priority[child] as number, this.#id[child] as number, priority, id)) break;
      this.#priority[i] = this.#priority[child] as number;
      this.#id[i] = this.#id[child] as number;
      i = child;
    }
    this.#priority[i] = priority;
    this.#id[i] = id;
    return top;
  }

  /** Every id in the queue, in no particular order. */
  *ids(): Generator<number> {
    for (let i = 0; i < this.#size; i++) yield this.#id[i] as number;
  }

  clear(): void {
    this.#size = 0;
    if (this.#id.length > 1024) {
      this.#priority = new Float64Array(8);
      this.#id = new Float64Array(8);
    }
  }

  #better(pa: number, ia: number, pb: number, ib: number): boolean {
    return pa > pb || (pa === pb && ia < ib);
  }

  #grow(): void {
    const priority = new Float64Array(this.#id.length * 2);
    const id = new Float64Array(this.#id.length * 2);
    priority.set(this.#priority);
    id.set(this.#id);
    this.#priority = priority;
    this.#id = id;
  }
}
