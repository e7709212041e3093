/*
 * What the lab reports. Plain data with no imports, so that the UI's API (service/api.ts)
 * can use these types without pulling in Node.
 */

/** Cho et al.'s Crawl & Stop with Threshold after K pages, and the harvest rate. */
export interface BudgetResult {
  /** The budget as a fraction of the stored pages T. */
  budget: number;
  /** K = round(budget × T). */
  pages: number;
  /** Pages actually fetched (fewer than K when the frontier ran dry). */
  fetched: number;
  hotFetched: number;
  /** PST: hot pages fetched / all hot pages; null when the graph has no hot page. */
  pst: number | null;
  /** Hot pages fetched / pages fetched. */
  harvest: number;
  /** What a random crawler is expected to reach: K / T (Cho et al.'s diagonal). */
  randomPst: number;
}

/** PST and harvest rate after each sampled number of fetched pages. */
export interface PstCurve {
  pages: number[];
  pst: (number | null)[];
  harvest: number[];
}

export interface LabStrategyReport {
  strategy: string;
  budgets: BudgetResult[];
  curve: PstCurve;
  fetched: number;
  /** URLs the ordering reached that the stored crawl never fetched: passed over without spending budget. */
  unavailable: number;
  discovered: number;
  exhausted: boolean;
  linksProcessed: number;
  seconds: number;
}

export interface LabReport {
  collection: { urls: number; pages: number; hotPages: number; links: number; seeds: number };
  /** How pages were judged hot (what PST is scored against). */
  hotRule: string;
  /** What the replayed strategies learnt from: the hot pages themselves ('truth') or the collection's own judge ('live'). */
  judge: 'truth' | 'live';
  query: string;
  randomSeed: number;
  results: LabStrategyReport[];
}
