import { enlarge } from '../memory/enlarge.ts';

/**
 * Which host's queue holds each queued URL, by URL id (ids are dense, so a growable
 * Int32Array costs 4 bytes a URL). Lets the frontier re-queue a URL whose priority changed,
 * and tell a live heap entry from one left behind by an earlier priority.
 */
export class QueuedHosts {
  #hostOf = new Int32Array(1024);

  set(urlId: number, hostId: number): void {
    if (urlId >= this.#hostOf.length) this.#hostOf = enlarge(this.#hostOf, Math.max(urlId + 1, this.#hostOf.length * 2));
    this.#hostOf[urlId] = hostId;
  }

  /** The host id of a queued URL, or 0 when the URL is not queued. */
  get(urlId: number): number {
    return urlId < this.#hostOf.length ? (this.#hostOf[urlId] as number) : 0;
  }

  delete(urlId: number): void {
    if (urlId < this.#hostOf.length) this.#hostOf[urlId] = 0;
  }

  /** Calls `visit` for every queued URL, in id order. */
  forEachQueued(visit: (urlId: number, hostId: number) => void): void {
    const hostOf = this.#hostOf;
    for (let id = 0; id < hostOf.length; id++) {
      const hostId = hostOf[id] as number;
      if (hostId !== 0) visit(id, hostId);
    }
  }
}
