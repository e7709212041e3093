import { enlarge } from '../columns.ts';

/** Distance at which a hot page stops mattering (Cho et al.: hot page 0, child 1, grandchild 2). */
export const FAR = 3;

/** What hot-distance propagation needs from the crawl. */
export interface DistanceGraph {
  childrenOf(page: number): Int32Array | undefined;
  isFetched(url: number): boolean;
  /** A URL still waiting whose distance just dropped. */
  moved(url: number): void;
}

/**
 * Link distance from the nearest known hot page, capped at FAR, kept incrementally: a
 * distance only ever drops, and a drop only travels down through fetched pages (only they
 * have known children), at most FAR − 1 links, so each update is bounded by the outlinks
 * of a page and of its fetched children.
 */
export class HotDistance {
  #distance = new Uint8Array(0);

  ensure(capacity: number): void {
    if (capacity > this.#distance.length) this.#distance = enlarge(this.#distance, capacity, FAR);
  }

  of(url: number): number {
    return this.#distance[url] as number;
  }

  /** Offers `url` a path of length d from a hot page; returns true if its distance dropped. */
  offer(url: number, d: number, graph: DistanceGraph): boolean {
    if (d >= (this.#distance[url] as number)) return false;
    this.#distance[url] = d;
    if (!graph.isFetched(url)) {
      graph.moved(url);
      return true;
    }
    if (d + 1 < FAR) {
      const children = graph.childrenOf(url);
      if (children !== undefined) for (let k = 0; k < children.length; k++) this.offer(children[k] as number, d + 1, graph);
    }
    return true;
  }
}
