/**
 * Whether a proxy still serves the crawl. Any answer through it (whatever its status) shows
 * it alive; failures of its own in a row, at least DOWN_FAILURES of them over at least
 * DOWN_MS, show it down: one proxy restart or a burst of parallel refusals is not enough, a
 * proxy that refuses everything is found within seconds.
 */
import { FetchError } from '../errors.ts';
import type { ProxyEndpoint } from './proxy-config.ts';

const DOWN_FAILURES = 5;
const DOWN_MS = 2_000;

export class ProxyHealth {
  readonly #proxy: ProxyEndpoint;
  readonly #onDown: (error: FetchError) => void;
  readonly #now: () => number;
  #streak = 0;
  #streakSince = 0;
  #down = false;

  constructor(proxy: ProxyEndpoint, onDown: (error: FetchError) => void, now: () => number = Date.now) {
    this.#proxy = proxy;
    this.#onDown = onDown;
    this.#now = now;
  }

  answered(): void {
    this.#streak = 0;
  }

  failed(failure: FetchError): void {
    const now = this.#now();
    if (this.#streak === 0) this.#streakSince = now;
    this.#streak++;
    if (this.#down || this.#streak < DOWN_FAILURES || now - this.#streakSince < DOWN_MS) return;
    this.#down = true;
    const seconds = ((now - this.#streakSince) / 1000).toFixed(1);
    this.#onDown(
      new FetchError('proxy:unreachable', `the proxy ${this.#proxy.label} failed ${this.#streak} requests in a row over ${seconds} s (the last: ${failure.message})`, {
        proxy: this.#proxy.label,
        failures: this.#streak,
        lastReason: failure.reason,
      }),
    );
  }
}
