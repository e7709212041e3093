import { ChangeSet, capacityForId } from './crawl-graph.ts';
import { enlarge } from '../memory/enlarge.ts';
import type { LinkEvent, OrderingStrategy } from './strategy.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';

/**
 * Cho et al.'s IB'(P): the number of distinct fetched pages seen linking to P so far.
 * Seeds (no source) and self-links do not count.
 */
export class BacklinkStrategy implements OrderingStrategy {
  readonly name = 'backlink';
  #count = new Int32Array(0);
  /** The last page counted for each target: a page's links arrive together, so this dedupes them. */
  #lastSource = new Int32Array(0);
  readonly #changes = new ChangeSet();

  linked(link: LinkEvent): void {
    const dst = link.dstId;
    if (dst >= this.#count.length || dst < 0) this.#grow(dst);
    const src = link.srcId;
    if (src === null || src === dst || this.#lastSource[dst] === src) return;
    this.#lastSource[dst] = src;
    this.#count[dst] = (this.#count[dst] as number) + 1;
    // A new URL's priority is read right after this call; only known ones need re-queueing.
    if (!link.isNew) this.#changes.add(dst);
  }

  fetched(): void {}

  priority(id: number): number {
    return id >= 0 && id < this.#count.length ? (this.#count[id] as number) : 0;
  }

  takeChanged(): number[] {
    return this.#changes.take();
  }

  explain(id: number): PriorityExplanation {
    const count = this.priority(id);
    return { priority: count, signals: [{ name: 'backlinks', value: count, contribution: count, note: 'distinct fetched pages seen linking here' }] };
  }

  #grow(id: number): void {
    const capacity = capacityForId(id, this.#count.length);
    this.#count = enlarge(this.#count, capacity);
    this.#lastSource = enlarge(this.#lastSource, capacity, -1);
  }
}

export function createBacklinkStrategy(): OrderingStrategy {
  return new BacklinkStrategy();
}
