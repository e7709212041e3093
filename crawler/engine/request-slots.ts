/**
 * How many host requests may run at once. `concurrency` bounds the requests being served; a
 * request still waiting on its server after SLOW_REQUEST_MS steps aside, so that a few
 * tarpits (headers that never come, bodies that stall until the time-out) cannot hold every
 * slot while the rest of the web waits. A waiting request costs a socket and a few kilobytes,
 * not CPU or memory, but sockets are not free either: at most SLOW_REQUESTS_PER_SLOT times
 * `concurrency` requests may wait beside the served ones. Politeness is untouched: a host
 * still has one request at a time, slow or not.
 */
export const SLOW_REQUEST_MS = 2_000;
export const SLOW_REQUESTS_PER_SLOT = 4;

export class RequestSlots {
  readonly #concurrency: number;
  readonly #slowAfterMs: number;
  readonly #onStepAside: () => void;
  #slow = 0;

  /** `onStepAside` runs when a request steps aside, so that the caller can start another. */
  constructor(concurrency: number, onStepAside: () => void, slowAfterMs = SLOW_REQUEST_MS) {
    this.#concurrency = concurrency;
    this.#onStepAside = onStepAside;
    this.#slowAfterMs = slowAfterMs;
  }

  /** Requests that have stepped aside and are still waiting. */
  get slow(): number {
    return this.#slow;
  }

  /** Whether another request may start while `running` run (slow ones included). */
  hasRoom(running: number): boolean {
    return running - this.#slow < this.#concurrency && running < this.#concurrency * (1 + SLOW_REQUESTS_PER_SLOT);
  }

  /**
   * Waits for `request`; past the slow threshold it stops counting as served until it
   * settles, and `onSlow` (if given) hears that this request stepped aside.
   */
  async waitFor<T>(request: Promise<T>, onSlow?: () => void): Promise<T> {
    let steppedAside = false;
    const timer = setTimeout(() => {
      steppedAside = true;
      this.#slow++;
      onSlow?.();
      this.#onStepAside();
    }, this.#slowAfterMs);
    try {
      return await request;
    } finally {
      clearTimeout(timer);
      if (steppedAside) this.#slow--;
    }
  }
}
