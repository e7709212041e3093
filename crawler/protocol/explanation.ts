/*
 * Why a URL has its priority: what an ordering strategy's explain() returns, and what
 * `forager explain` and the dashboard's frontier panel show.
 */

/** One signal behind a priority, for `forager explain`. */
export interface SignalExplanation {
  name: string;
  /** The signal's raw value (a similarity, a distance, a ratio…). */
  value: number;
  /** What it added to the priority (in the strategy's own units, e.g. log space). */
  contribution: number;
  /** Short words on what the value means. */
  note?: string;
}

export interface PriorityExplanation {
  priority: number;
  signals: SignalExplanation[];
}
