import type { PageJudge } from '../relevance/judge.ts';
import type { Db } from '../store/database.ts';
import { VerdictStore } from '../store/verdict-store.ts';

/** Pages between two revisions of the stored verdicts. */
export const REVISE_EVERY = 100;

/**
 * Keeps the stored hot verdicts true to the judge's bar as it moves. With the default
 * rule the bar is learnt from the best pages found so far (hot.ts), so a page judged early,
 * against a lower bar, may no longer clear it: every REVISE_EVERY pages and at the end of a
 * run, the pages whose relevance lies between the bar they were last revised against and
 * the bar now are judged again. Labelled pages keep their label; their judged_hot follows.
 * Through the relevance index this touches only the pages that change.
 */
export class VerdictRevision {
  readonly #judge: PageJudge;
  readonly #verdicts: VerdictStore;
  #bar: number | null;
  #pages = 0;

  constructor(db: Db, judge: PageJudge) {
    this.#judge = judge;
    this.#bar = judge.movingBar?.() ?? null;
    this.#verdicts = new VerdictStore(db);
  }

  /** Counts a judged page; revises when due. Returns the change in hot pages. */
  afterPage(): number {
    return ++this.#pages % REVISE_EVERY === 0 ? this.revise() : 0;
  }

  /** Revises now. Returns the change in the number of hot pages. */
  revise(): number {
    const bar = this.#judge.movingBar?.() ?? null;
    const previous = this.#bar;
    this.#bar = bar;
    if (bar === null || previous === null || bar === previous) return 0;
    const low = Math.min(bar, previous);
    const high = Math.max(bar, previous);
    const before = this.#verdicts.countHotBetween(low, high);
    this.#verdicts.reviseBetween(bar, low, high);
    return this.#verdicts.countHotBetween(low, high) - before;
  }
}
