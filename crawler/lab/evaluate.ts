import { UsageError } from '../errors.ts';
import type { LabGraph } from './graph.ts';
import type { BudgetResult, PstCurve } from '../protocol/lab-report.ts';
import type { VirtualCrawlResult } from './virtual-crawl.ts';

export function checkBudgets(budgets: readonly number[]): void {
  if (budgets.length === 0) throw new UsageError('at least one budget is needed', { budgets });
  for (const b of budgets) {
    if (!(b > 0 && b <= 1)) throw new UsageError(`a budget is a fraction of the stored pages, in (0, 1]: got ${b}`, { budget: b });
  }
}

/** hotBefore[k] = hot pages among the first k fetched (length fetched + 1). */
function hotPrefix(graph: LabGraph, crawl: VirtualCrawlResult): Int32Array {
  const order = crawl.order;
  const prefix = new Int32Array(order.length + 1);
  for (let k = 0; k < order.length; k++) prefix[k + 1] = (prefix[k] as number) + (graph.hot[order[k] as number] as number);
  return prefix;
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

export function evaluateBudgets(graph: LabGraph, crawl: VirtualCrawlResult, budgets: readonly number[]): BudgetResult[] {
  checkBudgets(budgets);
  const prefix = hotPrefix(graph, crawl);
  return budgets.map((budget) => {
    const pages = Math.round(budget * graph.pageCount);
    const fetched = Math.min(pages, crawl.order.length);
    const hotFetched = prefix[fetched] as number;
    return {
      budget,
      pages,
      fetched,
      hotFetched,
      pst: graph.hotCount === 0 ? null : hotFetched / graph.hotCount,
      harvest: ratio(hotFetched, fetched),
      randomPst: ratio(pages, graph.pageCount),
    };
  });
}

/** The curve at up to `maxPoints` evenly spaced page counts, ending with the last fetch. */
export function pstCurve(graph: LabGraph, crawl: VirtualCrawlResult, maxPoints = 200): PstCurve {
  const prefix = hotPrefix(graph, crawl);
  const total = crawl.order.length;
  const points = Math.min(total, Math.max(1, Math.floor(maxPoints)));
  const curve: PstCurve = { pages: [], pst: [], harvest: [] };
  for (let i = 1; i <= points; i++) {
    const k = Math.round((i * total) / points);
    const hotFetched = prefix[k] as number;
    curve.pages.push(k);
    curve.pst.push(graph.hotCount === 0 ? null : hotFetched / graph.hotCount);
    curve.harvest.push(ratio(hotFetched, k));
  }
  return curve;
}
