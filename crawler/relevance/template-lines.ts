import { termCounts } from './text.ts';

/*
 * A site's template: the lines (text blocks) its pages repeat, such as navigation
 * sidebars, headers and footers. A Sphinx manual lists every module in a sidebar on
 * every page, so "Interpolation (scipy.interpolate)" would otherwise count as a mention
 * of interpolation on 4,000 pages. A line is template once it has been seen on at least
 * MIN_PAGES pages and on TEMPLATE_SHARE of the site's pages judged so far (template
 * detection by frequent blocks, after Bar-Yossef and Rajagopalan, WWW 2002). Lines are
 * compared by a 32-bit hash; the table is bounded and forgets lines seen once first.
 */

export const MIN_PAGES = 5;
export const TEMPLATE_SHARE = 0.05;
/** Line hashes held, across sites; past it the lines seen on the fewest pages are forgotten. */
export const DEFAULT_MAX_LINES = 200_000;
const MAX_CACHED_TERMS = 20_000;

interface SiteLines {
  pages: number;
  /** Pages each line hash was seen on. */
  seen: Map<number, number>;
}

function lineHash(line: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < line.length; i++) h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The hashes of a page's non-empty lines, in order: made in the parse worker, off the main thread. */
export function lineHashes(text: string): Uint32Array {
  const lines = text.split('\n').filter((line) => line !== '');
  return Uint32Array.from(lines, lineHash);
}

export class TemplateLines {
  readonly #sites = new Map<string, SiteLines>();
  /** Term counts of template lines: they recur, so each is counted once. */
  readonly #termsOf = new Map<number, Map<string, number>>();
  readonly #maxLines: number;
  #lines = 0;

  constructor(maxLines = DEFAULT_MAX_LINES) {
    this.#maxLines = maxLines;
  }

  /** Line hashes held. */
  get size(): number {
    return this.#lines;
  }

  /**
   * The term counts of the page's lines that are template on its site as seen so far (to
   * be discounted from the page's own), then records the page's lines. `hashes` are the
   * page's lineHashes(text) when the caller has them already.
   */
  takePage(site: string, text: string, hashes: Uint32Array = lineHashes(text)): Map<string, number> {
    let known = this.#sites.get(site);
    if (known === undefined) {
      known = { pages: 0, seen: new Map() };
      this.#sites.set(site, known);
    }
    const template = this.#templateOf(known, text, hashes);
    this.#record(known, hashes);
    return template;
  }

  /** What takePage would discount from the page, without recording it. */
  templateOf(site: string, text: string, hashes: Uint32Array = lineHashes(text)): Map<string, number> {
    const known = this.#sites.get(site);
    return known === undefined ? new Map() : this.#templateOf(known, text, hashes);
  }

  #templateOf(known: SiteLines, text: string, hashes: Uint32Array): Map<string, number> {
    const template = new Map<string, number>();
    const bar = Math.max(MIN_PAGES, TEMPLATE_SHARE * known.pages);
    let lines: string[] | undefined;
    for (let k = 0; k < hashes.length; k++) {
      const hash = hashes[k] as number;
      if ((known.seen.get(hash) ?? 0) >= bar) {
        let terms = this.#termsOf.get(hash);
        if (terms === undefined) {
          // The line's words are needed once; the text is split only then.
          lines ??= text.split('\n').filter((line) => line !== '');
          terms = this.#terms(hash, lines[k] ?? '');
        }
        for (const [term, count] of terms) template.set(term, (template.get(term) ?? 0) + count);
      }
    }
    return template;
  }

  #record(known: SiteLines, hashes: Uint32Array): void {
    // Each distinct line once: sorted, a repeat follows its first.
    const sorted = hashes.slice().sort();
    for (let k = 0; k < sorted.length; k++) {
      const hash = sorted[k] as number;
      if (k > 0 && hash === sorted[k - 1]) continue;
      const seen = known.seen.get(hash);
      if (seen === undefined) this.#lines++;
      known.seen.set(hash, (seen ?? 0) + 1);
    }
    known.pages++;
    if (this.#lines > this.#maxLines) this.#forgetRarest();
  }

  #terms(hash: number, line: string): Map<string, number> {
    let terms = this.#termsOf.get(hash);
    if (terms === undefined) {
      terms = termCounts(line);
      if (this.#termsOf.size >= MAX_CACHED_TERMS) this.#termsOf.clear();
      this.#termsOf.set(hash, terms);
    }
    return terms;
  }

  /**
   * Drops the lines seen on the fewest pages until a quarter of the room is free. Lines
   * seen once are a page's own text and go first; template lines recur and stay.
   */
  #forgetRarest(): void {
    const target = Math.floor(this.#maxLines * 0.75);
    for (let cut = 1; this.#lines > target; cut++) {
      for (const known of this.#sites.values()) {
        for (const [hash, seen] of known.seen) {
          if (seen <= cut) {
            known.seen.delete(hash);
            this.#lines--;
          }
        }
      }
    }
  }
}
