import { contentTerms, termsOfWords } from '../relevance/text.ts';
import { urlTokens } from '../url/tokens.ts';
import { capacityForId, ChangeSet } from './crawl-graph.ts';
import { enlarge } from '../memory/enlarge.ts';
import type { LinkEvent, OrderingContext, OrderingStrategy, PageVerdict } from './strategy.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';

export const ANCHOR_WEIGHT = 2;
export const URL_WEIGHT = 1;
export const HOT_PARENT_BONUS = 1.5;

/**
 * A deliberately naive best-first crawler, kept as the reference `focused` must beat:
 * priority = 2 × (query terms in the anchor text) + (query terms in the URL) + 1.5 when
 * the page the link was first seen on is hot. The priority is fixed when the link is first
 * seen (the parent's verdict arrives with that page's fetched() event); ties go in
 * discovery order. Terms are compared as stems, each counted once.
 */
export function createNaiveStrategy(context: OrderingContext): OrderingStrategy {
  return new NaiveStrategy(context);
}

class NaiveStrategy implements OrderingStrategy {
  readonly name = 'naive';
  readonly #queryTerms: ReadonlySet<string>;
  readonly #changes = new ChangeSet();
  #priority = new Float64Array(0);
  #anchorHits = new Int32Array(0);
  #urlHits = new Int32Array(0);
  /** URLs first seen on a page whose verdict has not arrived yet, by that page. */
  readonly #waitingForVerdict = new Map<number, number[]>();

  constructor(context: OrderingContext) {
    this.#queryTerms = new Set(contentTerms(context.query));
  }

  linked(link: LinkEvent): void {
    if (!link.isNew) return;
    const id = link.dstId;
    this.#fit(id);
    const anchor = this.#hits(contentTerms(link.anchor));
    const url = this.#hits(termsOfWords(urlTokens(link.url)));
    this.#anchorHits[id] = anchor;
    this.#urlHits[id] = url;
    this.#priority[id] = ANCHOR_WEIGHT * anchor + URL_WEIGHT * url;
    if (link.srcId === null) return;
    const waiting = this.#waitingForVerdict.get(link.srcId);
    if (waiting === undefined) this.#waitingForVerdict.set(link.srcId, [id]);
    else waiting.push(id);
  }

  fetched(page: PageVerdict): void {
    const children = this.#waitingForVerdict.get(page.id);
    this.#waitingForVerdict.delete(page.id);
    if (children === undefined || !page.hot) return;
    for (const id of children) {
      this.#priority[id] = (this.#priority[id] as number) + HOT_PARENT_BONUS;
      this.#changes.add(id);
    }
  }

  priority(id: number): number {
    return id < this.#priority.length ? (this.#priority[id] as number) : 0;
  }

  takeChanged(): number[] {
    return this.#changes.take();
  }

  explain(id: number): PriorityExplanation {
    const anchor = id < this.#anchorHits.length ? (this.#anchorHits[id] as number) : 0;
    const url = id < this.#urlHits.length ? (this.#urlHits[id] as number) : 0;
    const priority = this.priority(id);
    const parentBonus = priority - ANCHOR_WEIGHT * anchor - URL_WEIGHT * url;
    return {
      priority,
      signals: [
        { name: 'anchor-terms', value: anchor, contribution: ANCHOR_WEIGHT * anchor, note: `query terms in the first anchor seen × ${ANCHOR_WEIGHT}` },
        { name: 'url-terms', value: url, contribution: URL_WEIGHT * url, note: `query terms in the URL × ${URL_WEIGHT}` },
        { name: 'hot-parent', value: parentBonus > 0 ? 1 : 0, contribution: parentBonus, note: `+${HOT_PARENT_BONUS} when the page it was first seen on is hot` },
      ],
    };
  }

  #hits(terms: readonly string[]): number {
    let hits = 0;
    const seen = new Set<string>();
    for (const term of terms) {
      if (this.#queryTerms.has(term) && !seen.has(term)) {
        seen.add(term);
        hits++;
      }
    }
    return hits;
  }

  #fit(id: number): void {
    if (id < this.#priority.length) return;
    const capacity = capacityForId(id, this.#priority.length);
    this.#priority = enlarge(this.#priority, capacity);
    this.#anchorHits = enlarge(this.#anchorHits, capacity);
    this.#urlHits = enlarge(this.#urlHits, capacity);
  }
}
