import { enlarge } from '../../memory/enlarge.ts';

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
  /** Per URL: FAR − distance, so that a URL no hot page reaches is a zero nobody wrote (see `enlarge`). */
  #nearness = new Uint8Array(0);

  ensure(capacity: number): void {
    if (capacity > this.#nearness.length) this.#nearness = enlarge(this.#nearness, capacity);
  }

  of(url: number): number {
    return FAR - (this.#nearness[url] as number);
  }

  /** Offers `url` a path of length d from a hot page; returns true if its distance dropped. */
  offer(url: number, d: number, graph: DistanceGraph): boolean {
    if (d >= this.of(url)) return false;
    this.#nearness[url] = FAR - d;
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
