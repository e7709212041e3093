/*
 * The merged collection's fetch order (pages.seq). Each shard's pages come in its own seq
 * order, and the shards' streams are merged by fetch time (a page's first fetch), ties going
 * to the lower shard: a plausible order for one crawl of all the partitions. A shard's own
 * order is never changed, even where concurrent fetches completed out of order, so that an
 * exact duplicate still follows the page holding its body, and a resumed or replayed crawl
 * still meets a page after the pages that led to it.
 */

export interface FetchedPage {
  seq: number;
  fetchedAt: number;
}

export interface PageInOrder {
  /** Index of the stream (the shard) in the array given. */
  shard: number;
  seq: number;
  fetchedAt: number;
}

/** Every page of every stream once, merged by fetch time (a k-way merge over a binary heap of the streams' heads). */
export function* fetchOrder(streams: readonly Iterator<FetchedPage>[]): Generator<PageInOrder> {
  const heads: (FetchedPage | undefined)[] = streams.map((stream) => nextOf(stream));
  const heap: number[] = [];
  const before = (a: number, b: number): boolean => {
    const ha = heads[a] as FetchedPage;
    const hb = heads[b] as FetchedPage;
    return ha.fetchedAt < hb.fetchedAt || (ha.fetchedAt === hb.fetchedAt && a < b);
  };
  const siftUp = (i: number): void => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as number, heap[parent] as number)) return;
      [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
      i = parent;
    }
  };
  const siftDown = (i: number): void => {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < heap.length && before(heap[left] as number, heap[best] as number)) best = left;
      if (right < heap.length && before(heap[right] as number, heap[best] as number)) best = right;
      if (best === i) return;
      [heap[i], heap[best]] = [heap[best] as number, heap[i] as number];
      i = best;
    }
  };
  heads.forEach((head, shard) => {
    if (head === undefined) return;
    heap.push(shard);
    siftUp(heap.length - 1);
  });
  while (heap.length > 0) {
    const shard = heap[0] as number;
    const head = heads[shard] as FetchedPage;
    yield { shard, seq: head.seq, fetchedAt: head.fetchedAt };
    const next = nextOf(streams[shard] as Iterator<FetchedPage>);
    heads[shard] = next;
    if (next === undefined) {
      const last = heap.pop() as number;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    siftDown(0);
  }
}

function nextOf(stream: Iterator<FetchedPage>): FetchedPage | undefined {
  const next = stream.next();
  return next.done === true ? undefined : next.value;
}
