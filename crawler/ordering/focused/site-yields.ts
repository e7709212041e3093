import { enlarge } from '../../memory/enlarge.ts';
import { capacityFor } from '../columns.ts';

/** Prior pages of the crawl's mean grade in a site's yield, so a site's first pages do not decide it. */
const PRIOR_PAGES = 2;

/**
 * What the crawl has seen of each site (an origin's host): fetched pages and the sum of their
 * grades. Seeded on several sites, the site where the topic lives yields above the crawl's
 * mean and the others below; with one site the yield is 0. The model's weight for it is
 * learnt across sites, while each site's yield is its own.
 *
 * A site holds most of the frontier, so its yield is frozen per epoch of the model (and read
 * by every URL through the epoch's re-score lap) rather than re-scoring the whole site
 * whenever one of its pages is fetched: a queued priority stays what its epoch gives. The
 * previous epoch's yields are kept beside the current ones for the URLs the lap has not
 * reached yet.
 */
export class SiteYields {
  readonly #indexOf = new Map<string, number>();
  /** Per URL: its site's index + 1 (0: no site known). */
  #siteOf = new Int32Array(0);
  #fetched = new Float64Array(16);
  #gradeSum = new Float64Array(16);
  /** The yields of even epochs, and of odd ones. */
  #frozen = [new Float32Array(16), new Float32Array(16)];

  ensure(urlCapacity: number): void {
    if (urlCapacity > this.#siteOf.length) this.#siteOf = enlarge(this.#siteOf, urlCapacity);
  }

  /** Files a URL under its site (once, when it is first seen). */
  add(url: number, href: string): void {
    const host = URL.parse(href)?.host;
    if (host === undefined) return;
    let index = this.#indexOf.get(host);
    if (index === undefined) {
      index = this.#indexOf.size;
      this.#indexOf.set(host, index);
      if (index >= this.#fetched.length) {
        const capacity = capacityFor(this.#fetched.length, index + 1);
        this.#fetched = enlarge(this.#fetched, capacity);
        this.#gradeSum = enlarge(this.#gradeSum, capacity);
        this.#frozen = this.#frozen.map((yields) => enlarge(yields, capacity));
      }
    }
    this.#siteOf[url] = index + 1;
  }

  /** A fetched page's grade counts towards its site's yield. */
  record(url: number, grade: number): void {
    const index = this.#indexAt(url);
    if (index < 0) return;
    this.#fetched[index] = (this.#fetched[index] as number) + 1;
    this.#gradeSum[index] = (this.#gradeSum[index] as number) + grade;
  }

  /** A fetched page's grade changed (a label) by `delta`. */
  regrade(url: number, delta: number): void {
    const index = this.#indexAt(url);
    if (index >= 0) this.#gradeSum[index] = (this.#gradeSum[index] as number) + delta;
  }

  /**
   * A new epoch: each site's yield is its smoothed mean grade minus the mean grade of every
   * site's pages, until the one after. Written as (g·N − n·G) / (N·(n + prior)), which is
   * (g + prior·m) / (n + prior) − m with m = G / N, so that a crawl of one site gets exactly 0.
   */
  freeze(epoch: number): void {
    const yields = this.#frozen[epoch % 2] as Float32Array;
    let allPages = 0;
    let allGrades = 0;
    for (let index = 0; index < this.#indexOf.size; index++) {
      allPages += this.#fetched[index] as number;
      allGrades += this.#gradeSum[index] as number;
    }
    for (let index = 0; index < this.#indexOf.size; index++) {
      const n = this.#fetched[index] as number;
      const g = this.#gradeSum[index] as number;
      yields[index] = n === 0 ? 0 : (g * allPages - n * allGrades) / (allPages * (n + PRIOR_PAGES));
    }
  }

  /** The URL's site's yield as of an epoch (the current one or the one before); 0 for a site nothing was fetched from. */
  yieldOf(url: number, epoch: number): number {
    const index = this.#indexAt(url);
    return index < 0 ? 0 : ((this.#frozen[epoch % 2] as Float32Array)[index] as number);
  }

  #indexAt(url: number): number {
    return url < this.#siteOf.length ? (this.#siteOf[url] as number) - 1 : -1;
  }
}
