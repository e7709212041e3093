import { capacityFor, enlarge } from './focused-columns.ts';

/*
 * Aggarwal et al.'s interest ratio I(C,E) = P(C|E) / P(C), in log space. An event is used
 * only when its count of hot pages deviates from what the base rate predicts by at least
 * t standard deviations of the binomial:
 *   |m − n·p| ≥ t·sqrt(n·p·(1 − p))
 * and only with at least MIN_SUPPORT observations, because the normal approximation behind
 * that test fails for tiny n (with p = 0.1 a single hot observation would pass it).
 * P(C|E) is smoothed with one pseudo-observation at the base rate, (m + p) / (n + 1), so an
 * event never seen hot gets a finite ratio; the log ratio is then clipped to ±clip.
 */

export const MIN_SUPPORT = 5;

/** log I(C,E) for an event seen n times, m of them on hot pages; 0 when not significant. */
export function logInterestRatio(n: number, m: number, p: number, t: number, clip: number): number {
  if (n < MIN_SUPPORT || p <= 0 || p >= 1) return 0;
  const expected = n * p;
  if (Math.abs(m - expected) < t * Math.sqrt(expected * (1 - p))) return 0;
  const ratio = (m + p) / (n + 1) / p;
  const log = Math.log(ratio);
  return log > clip ? clip : log < -clip ? -clip : log;
}

/**
 * Several events' log ratios (words of one parent, tokens of one URL) as one factor: their
 * sum divided by sqrt(k) for k significant events, then clipped. Words of one page are
 * strongly correlated, so evidence grows like sqrt(k) rather than k as naive Bayes would
 * have it; one strong word still counts in full.
 */
export function combineLogRatios(sum: number, significant: number, clip: number): number {
  if (significant === 0) return 0;
  const combined = significant === 1 ? sum : sum / Math.sqrt(significant);
  return combined > clip ? clip : combined < -clip ? -clip : combined;
}

/**
 * n (crawled pages that showed the event) and m (those that were hot) per event id, for
 * events keyed by term id (parent words, URL tokens) or by a small bucket number.
 * The base rate P(C) is that of the table's own population (crawled pages that could
 * show its events, e.g. pages with a parent whose words are known): against the overall
 * rate, a word on every parent would look predictive merely because seeds have no parent.
 */
export class EvidenceCounts {
  #pages = 0;
  #hotPages = 0;
  #n = new Uint32Array(0);
  #m = new Uint32Array(0);
  #stamp = new Uint32Array(0);
  #size = 0;

  /** One more crawled page in the population; call once per page, with its events. */
  countPage(hot: boolean): void {
    this.#pages++;
    if (hot) this.#hotPages++;
  }

  /** P(C) over the population, smoothed: (hot + 1) / (pages + 2). */
  baseRate(): number {
    return (this.#hotPages + 1) / (this.#pages + 2);
  }

  /** One more crawled page showed event `id`. */
  observe(id: number, hot: boolean): void {
    if (id >= this.#n.length) this.#grow(id + 1);
    if (id >= this.#size) this.#size = id + 1;
    this.#n[id]!++;
    if (hot) this.#m[id]!++;
  }

  /** As observe, but once per `page` (a positive serial): a word on two parents is one event. */
  observeOnce(id: number, hot: boolean, page: number): void {
    if (id >= this.#n.length) this.#grow(id + 1);
    if (this.#stamp[id] === page) return;
    this.#stamp[id] = page;
    this.observe(id, hot);
  }

  seen(id: number): number {
    return id < this.#size ? (this.#n[id] as number) : 0;
  }

  hot(id: number): number {
    return id < this.#size ? (this.#m[id] as number) : 0;
  }

  /**
   * The clipped, significance-tested log ratio of every event, frozen for one scoring
   * epoch. `reuse` is recycled when it is large enough.
   */
  snapshot(t: number, clip: number, reuse?: Float32Array): Float32Array {
    const p = this.baseRate();
    const out = reuse !== undefined && reuse.length >= this.#size ? reuse : new Float32Array(capacityFor(0, this.#size));
    for (let id = 0; id < this.#size; id++) out[id] = logInterestRatio(this.#n[id] as number, this.#m[id] as number, p, t, clip);
    return out;
  }

  #grow(needed: number): void {
    const capacity = capacityFor(this.#n.length, needed);
    this.#n = enlarge(this.#n, capacity);
    this.#m = enlarge(this.#m, capacity);
    this.#stamp = enlarge(this.#stamp, capacity);
  }
}
