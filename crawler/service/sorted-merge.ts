/**
 * Items `skip` to `skip + take` of several sorted streams taken as one sorted stream: a k-way
 * merge over a binary heap of the streams' heads, so that each shard is asked only for its
 * own first `skip + take` and nothing past them is read. Ties go to the lower stream.
 */
export function mergeSorted<T>(streams: readonly (readonly T[])[], before: (a: T, b: T) => boolean, skip: number, take: number): T[] {
  const next = streams.map(() => 0);
  const head = (stream: number): T => (streams[stream] as readonly T[])[next[stream] as number] as T;
  const less = (a: number, b: number): boolean => {
    const x = head(a);
    const y = head(b);
    return before(x, y) || (!before(y, x) && a < b);
  };
  const heap: number[] = [];
  const siftDown = (i: number): void => {
    for (;;) {
      const left = 2 * i + 1;
      let best = i;
      if (left < heap.length && less(heap[left] as number, heap[best] as number)) best = left;
      if (left + 1 < heap.length && less(heap[left + 1] as number, heap[best] as number)) best = left + 1;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best] as number, heap[i] as number];
      i = best;
    }
  };
  streams.forEach((stream, i) => {
    if (stream.length > 0) heap.push(i);
  });
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
  const out: T[] = [];
  for (let taken = 0; heap.length > 0 && taken < skip + take; taken++) {
    const stream = heap[0] as number;
    if (taken >= skip) out.push(head(stream));
    next[stream] = (next[stream] as number) + 1;
    if ((next[stream] as number) >= (streams[stream] as readonly T[]).length) {
      const last = heap.pop() as number;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    siftDown(0);
  }
  return out;
}
