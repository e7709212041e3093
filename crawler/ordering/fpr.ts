import { ChangeSet, capacityForId } from './crawl-graph.ts';
import { enlarge } from '../memory/enlarge.ts';
import type { LinkEvent, OrderingStrategy, PageVerdict } from './strategy.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';

/** The same damping as the pagerank strategy, so the two approximate the same PageRank. */
export const FPR_DAMPING = 0.9;

const SEEDED = 1;
const FETCHED = 2;

/**
 * Fractional PageRank (Alam, Ha, Cho, Lee). A seed starts with (1 − d)·t; a fetched
 * page i hands d·fpr(i)/outdegree(i) to each child not yet fetched, and what would go to
 * fetched children is dropped. Priority = fpr. The paper's trust t = 1/|seeds| scales
 * every value alike, so t = 1 per seed gives the same order without knowing |seeds|
 * in advance (values then sum to at most |seeds| instead of 1).
 */
export class FprStrategy implements OrderingStrategy {
  readonly name = 'fpr';
  readonly #damping: number;
  #fpr = new Float64Array(0);
  #flags = new Uint8Array(0);
  readonly #changes = new ChangeSet();

  constructor(damping = FPR_DAMPING) {
    this.#damping = damping;
  }

  linked(link: LinkEvent): void {
    const dst = link.dstId;
    if (dst >= this.#fpr.length || dst < 0) this.#grow(dst);
    if (link.srcId !== null) return;
    const flags = this.#flags[dst] as number;
    if ((flags & (SEEDED | FETCHED)) !== 0) return;
    this.#flags[dst] = flags | SEEDED;
    this.#fpr[dst] = (this.#fpr[dst] as number) + (1 - this.#damping);
    if (!link.isNew) this.#changes.add(dst);
  }

  fetched(page: PageVerdict): void {
    const id = page.id;
    if (id >= this.#fpr.length || id < 0) this.#grow(id);
    const flags = this.#flags[id] as number;
    if ((flags & FETCHED) !== 0) return;
    this.#flags[id] = flags | FETCHED;
    const out = page.outlinks;
    const share = (this.#damping * (this.#fpr[id] as number)) / out.length;
    if (!(share > 0)) return;
    for (const child of out) {
      if (child >= this.#fpr.length || child < 0) this.#grow(child);
      if (((this.#flags[child] as number) & FETCHED) !== 0) continue;
      this.#fpr[child] = (this.#fpr[child] as number) + share;
      this.#changes.add(child);
    }
  }

  priority(id: number): number {
    return id >= 0 && id < this.#fpr.length ? (this.#fpr[id] as number) : 0;
  }

  takeChanged(): number[] {
    return this.#changes.take();
  }

  explain(id: number): PriorityExplanation {
    const value = this.priority(id);
    const flags = id >= 0 && id < this.#flags.length ? (this.#flags[id] as number) : 0;
    const signals = [{ name: 'fractional-pagerank', value, contribution: value, note: 'PageRank mass handed down from fetched parents' }];
    if ((flags & SEEDED) !== 0) signals.push({ name: 'seed', value: 1, contribution: 1 - this.#damping, note: 'a seed starts with (1 - d)' });
    return { priority: value, signals };
  }

  #grow(id: number): void {
    const capacity = capacityForId(id, this.#fpr.length);
    this.#fpr = enlarge(this.#fpr, capacity);
    this.#flags = enlarge(this.#flags, capacity);
  }
}

export function createFprStrategy(): OrderingStrategy {
  return new FprStrategy();
}
