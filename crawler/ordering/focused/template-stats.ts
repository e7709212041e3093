import { enlarge } from '../../memory/enlarge.ts';
import { capacityFor, KeyIndex } from '../columns.ts';
import { urlTemplates, FOLDER } from './url-templates.ts';
import { smoothedYield } from './yields.ts';

/** Template slots per URL: the folder template, then its first copy template. */
export const SLOTS = 2;
/**
 * Yields are rounded to steps of this size. A URL's yield then changes only when its
 * template's rounded yield does, and that is when its URLs are re-scored, so a queued
 * priority never goes stale unnoticed, and a large template is not re-scored per page.
 */
export const YIELD_STEP = 0.05;

/**
 * What the crawl has seen of each URL template: fetched pages and the sum of their grades,
 * and, per template, the URLs that have it, chained through flat arrays (node = url·SLOTS
 * + slot) so a template's unfetched URLs can be re-scored when its yield moves. A URL the
 * caller says is done with (fetched) leaves the chains as they are walked: a site's folder
 * would otherwise walk all its fetched pages each time its yield moved.
 */
export class TemplateStats {
  readonly #keyOf = new KeyIndex();
  #fetched = new Uint16Array(256);
  #gradeSum = new Float32Array(256);
  /** The yield at which the template's URLs were last re-scored. */
  #announced = new Float32Array(256);
  /**
   * Per template: its rounded yield as of the mean grade beside it (0: none yet; a crawl's
   * mean grade counts a prior page of 0.5, so it is never 0), read by every URL of the
   * template each time one is scored until a page of it is fetched.
   */
  #yieldOf = new Float64Array(256);
  #yieldMean = new Float64Array(256);
  /** Per template: its latest node + 1 (0: none). */
  #head = new Int32Array(256);
  /**
   * Per node: the template's key id + 1, and the next node with the same key + 1 (0: none),
   * so that an unused entry is a zero nobody wrote and costs no memory (see `enlarge`).
   */
  #slotKey = new Int32Array(0);
  #next = new Int32Array(0);

  ensure(urlCapacity: number): void {
    if (urlCapacity * SLOTS <= this.#slotKey.length) return;
    this.#slotKey = enlarge(this.#slotKey, urlCapacity * SLOTS);
    this.#next = enlarge(this.#next, urlCapacity * SLOTS);
  }

  /** Files a URL under its templates (once, when it is first seen). */
  add(url: number, href: string): void {
    const templates = urlTemplates(href);
    let copies = 0;
    for (const template of templates) {
      const slot = template.kind === FOLDER ? 0 : 1 + copies++;
      if (slot >= SLOTS) break;
      const key = this.#intern(template.key);
      const node = url * SLOTS + slot;
      this.#slotKey[node] = key + 1;
      this.#next[node] = this.#head[key] as number;
      this.#head[key] = node + 1;
    }
  }

  /** A fetched page's grade counts towards its templates' yields. */
  record(url: number, grade: number): void {
    this.#add(url, 1, grade);
  }

  /** A fetched page's grade changed (a label) by `delta`. */
  regrade(url: number, delta: number): void {
    this.#add(url, 0, delta);
  }

  #add(url: number, pages: number, grade: number): void {
    for (let slot = 0; slot < SLOTS; slot++) {
      const key = this.#keyAt(url * SLOTS + slot);
      if (key < 0) continue;
      this.#fetched[key]! += pages;
      this.#gradeSum[key]! += grade;
      this.#yieldMean[key] = 0;
    }
  }

  /**
   * The yield of the URL's folder template (slot 0) or its best copy template (slots 1+):
   * the smoothed mean grade of fetched pages with it, minus the crawl's mean grade; 0
   * when none was fetched.
   */
  folderYield(url: number, meanGrade: number): number {
    return this.#yield(this.#keyAt(url * SLOTS), meanGrade);
  }

  copyYield(url: number, meanGrade: number): number {
    let best = 0;
    for (let slot = 1; slot < SLOTS; slot++) {
      const y = this.#yield(this.#keyAt(url * SLOTS + slot), meanGrade);
      if (Math.abs(y) > Math.abs(best)) best = y;
    }
    return best;
  }

  /**
   * Calls visit(url) for every URL of each of `page`'s templates whose rounded yield changed
   * since they were last visited. A URL for which visit returns false is dropped from the
   * template's chain: it is never visited again.
   */
  forEachMoved(page: number, meanGrade: number, visit: (url: number) => boolean): void {
    for (let slot = 0; slot < SLOTS; slot++) {
      const key = this.#keyAt(page * SLOTS + slot);
      if (key < 0) continue;
      const y = this.#yield(key, meanGrade);
      if (y === this.#announced[key]) continue;
      this.#announced[key] = y;
      this.#walk(key, visit);
    }
  }

  /** Visits the template's chain, unlinking the URLs visit gives up. */
  #walk(key: number, visit: (url: number) => boolean): void {
    const next = this.#next;
    let previous = -1;
    for (let node = (this.#head[key] as number) - 1; node >= 0; ) {
      const following = (next[node] as number) - 1;
      if (visit(Math.floor(node / SLOTS))) {
        previous = node;
      } else if (previous < 0) {
        this.#head[key] = following + 1;
      } else {
        next[previous] = following + 1;
      }
      node = following;
    }
  }

  /** The key id at `node`, or -1 when the URL has no template in that slot. */
  #keyAt(node: number): number {
    return (this.#slotKey[node] as number) - 1;
  }

  #yield(key: number, meanGrade: number): number {
    if (key < 0) return 0;
    if (meanGrade !== 0 && this.#yieldMean[key] === meanGrade) return this.#yieldOf[key] as number;
    const y = smoothedYield(this.#fetched[key] as number, this.#gradeSum[key] as number, meanGrade);
    const rounded = Math.fround(Math.round(y / YIELD_STEP) * YIELD_STEP);
    this.#yieldOf[key] = rounded;
    this.#yieldMean[key] = meanGrade;
    return rounded;
  }

  #intern(hash: number): number {
    const key = this.#keyOf.intern(hash);
    if (key >= this.#head.length) {
      const capacity = capacityFor(this.#head.length, key + 1);
      this.#fetched = enlarge(this.#fetched, capacity);
      this.#gradeSum = enlarge(this.#gradeSum, capacity);
      this.#announced = enlarge(this.#announced, capacity);
      this.#yieldOf = enlarge(this.#yieldOf, capacity);
      this.#yieldMean = enlarge(this.#yieldMean, capacity);
      this.#head = enlarge(this.#head, capacity);
    }
    return key;
  }
}
