/**
 * The lab's frontier: one global max-heap over discovered URLs, keyed by (priority,
 * discovery number): higher priority first, then the URL discovered first, as the
 * ordering core requires. Each URL has at most one entry and the heap knows where it is,
 * so a priority change moves that entry instead of pushing another: the engine's per-host
 * heaps push duplicates and skip the stale ones later, which comes to the same order but,
 * with tens of millions of changes, would fill the heap with dead entries.
 */
export class LabHeap {
  readonly #priority: Float64Array;
  readonly #seq: Int32Array;
  /** Heap slot of each discovery number, −1 when it has no entry. */
  readonly #slot: Int32Array;
  #size = 0;
  /** Priority of the entry the last pop() returned. */
  poppedPriority = 0;

  /** `capacity` bounds the discovery numbers (the graph's node count). */
  constructor(capacity: number) {
    this.#priority = new Float64Array(capacity);
    this.#seq = new Int32Array(capacity);
    this.#slot = new Int32Array(capacity).fill(-1);
  }

  get size(): number {
    return this.#size;
  }

  /** Adds an entry, or moves the existing one to its new priority. */
  set(seq: number, priority: number): void {
    const slot = this.#slot[seq] as number;
    if (slot === -1) {
      this.#siftUp(this.#size++, priority, seq);
      return;
    }
    const old = this.#priority[slot] as number;
    if (priority > old) this.#siftUp(slot, priority, seq);
    else if (priority < old) this.#siftDown(slot, priority, seq);
  }

  /**
   * Moves an existing entry up when `priority` is above its key, and leaves it alone
   * otherwise: a key that is too high only makes the entry come out early, where the
   * caller, reading the current priority against poppedPriority, puts it back. Most
   * re-scores lower a priority, and a lowered entry sifts down the whole heap.
   */
  raise(seq: number, priority: number): void {
    const slot = this.#slot[seq] as number;
    if (slot !== -1 && priority > (this.#priority[slot] as number)) this.#siftUp(slot, priority, seq);
  }

  /** Removes the best entry and returns its discovery number (its priority goes to poppedPriority); −1 when empty. */
  pop(): number {
    if (this.#size === 0) return -1;
    const top = this.#seq[0] as number;
    this.poppedPriority = this.#priority[0] as number;
    this.#slot[top] = -1;
    const last = --this.#size;
    if (last > 0) this.#siftDown(0, this.#priority[last] as number, this.#seq[last] as number);
    return top;
  }

  #siftUp(i: number, priority: number, seq: number): void {
    const prio = this.#priority;
    const seqs = this.#seq;
    const slots = this.#slot;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pp = prio[parent] as number;
      const ps = seqs[parent] as number;
      if (!(priority > pp || (priority === pp && seq < ps))) break;
      prio[i] = pp;
      seqs[i] = ps;
      slots[ps] = i;
      i = parent;
    }
    prio[i] = priority;
    seqs[i] = seq;
    slots[seq] = i;
  }

  #siftDown(i: number, priority: number, seq: number): void {
    const prio = this.#priority;
    const seqs = this.#seq;
    const slots = this.#slot;
    const size = this.#size;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      let cp = prio[child] as number;
      let cs = seqs[child] as number;
      const right = child + 1;
      if (right < size) {
        const rp = prio[right] as number;
        const rs = seqs[right] as number;
        if (rp > cp || (rp === cp && rs < cs)) {
          child = right;
          cp = rp;
          cs = rs;
        }
      }
      if (!(cp > priority || (cp === priority && cs < seq))) break;
      prio[i] = cp;
      seqs[i] = cs;
      slots[cs] = i;
      i = child;
    }
    prio[i] = priority;
    seqs[i] = seq;
    slots[seq] = i;
  }
}
