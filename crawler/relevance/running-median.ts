import { Heap } from '../frontier/heap.ts';

/** The exact median of a stream of numbers: a max-heap of the lower half, a min-heap of the upper. */
export class RunningMedian {
  readonly #lower = new Heap<number>((a, b) => a > b);
  readonly #upper = new Heap<number>((a, b) => a < b);

  get count(): number {
    return this.#lower.size + this.#upper.size;
  }

  add(value: number): void {
    const lowerTop = this.#lower.peek();
    if (lowerTop === undefined || value <= lowerTop) this.#lower.push(value);
    else this.#upper.push(value);
    if (this.#lower.size > this.#upper.size + 1) this.#upper.push(this.#lower.pop()!);
    else if (this.#upper.size > this.#lower.size) this.#lower.push(this.#upper.pop()!);
  }

  /** NaN before the first value. */
  get median(): number {
    const low = this.#lower.peek();
    if (low === undefined) return NaN;
    if (this.#lower.size > this.#upper.size) return low;
    return (low + this.#upper.peek()!) / 2;
  }
}
