/**
 * The revisit policy against its alternatives, on a simulated collection whose pages change
 * as Poisson processes at rates spread over two orders of magnitude (a day to two months
 * between changes), a tenth of the pages on topic. Each day a refresh may revisit a fixed
 * share of the pages; a revisit finds a change when at least one happened since the page's
 * last check. Measured over the second half of the run (after the estimates have had time
 * to learn): the value-weighted changes found per revisit (how much of the budget went to
 * pages that had changed, what the policy aims at), and the value-weighted freshness (pages
 * whose stored copy is current, as Cho and Garcia-Molina measure refresh policies).
 *
 * - forager: revisit-policy.ts as the engine runs it (estimates from the revisits alone);
 * - oldest first: the page checked longest ago (HTTrack's update, a round robin);
 * - random;
 * - oracle: orders by the true chance of a change, knowing each page's rate (the ceiling for a
 *   policy that orders by change chance).
 */
import { pooledChangeRate, revisitPriority, revisitValue, type RevisitFacts } from '../../crawler/ordering/revisit-policy.ts';
import { seededRandom } from '../support/seeded-random.ts';

const DAY = 86_400_000;

export type PolicyName = 'forager' | 'oldest first' | 'random' | 'oracle';
export const POLICIES: readonly PolicyName[] = ['forager', 'oldest first', 'random', 'oracle'];

export interface PolicyFigures {
  policy: PolicyName;
  /** Value-weighted changes found per revisit: how much of the budget went to pages that had changed. */
  changedYield: number;
  /** Value-weighted mean share of pages whose stored copy is current, sampled daily. */
  freshness: number;
}

interface SimPage {
  rate: number;
  value: number;
  facts: RevisitFacts;
  /** Times of changes not yet seen by a revisit. */
  lastChange: number;
}

/** The weight a page's change or freshness carries: the policy's own value scale (an off-topic page still counts a fifth). */
const weightOf = revisitValue;

function collection(pages: number, random: () => number): SimPage[] {
  return Array.from({ length: pages }, () => {
    const daysBetweenChanges = Math.exp(Math.log(1) + random() * (Math.log(60) - Math.log(1)));
    const draw = random();
    const value = draw < 0.1 ? 1 : draw < 0.3 ? 0.5 : 0;
    return { rate: 1 / (daysBetweenChanges * DAY), value, facts: { firstFetchedAt: 0, checkedAt: 0, revisits: 0, changes: 0, value }, lastChange: Number.NEGATIVE_INFINITY };
  });
}

/** Runs one policy over `days` days with `share` of the pages revisited each day. */
function simulate(policy: PolicyName, options: { pages: number; days: number; share: number; seed: number }): PolicyFigures {
  const random = seededRandom(options.seed);
  const pages = collection(options.pages, random);
  const changes = seededRandom(options.seed + 1);
  const order = seededRandom(options.seed + 2);
  const budget = Math.round(options.pages * options.share);
  const measureFrom = Math.floor(options.days / 2);
  let revisits = 0;
  let found = 0;
  let freshSum = 0;
  let freshSamples = 0;
  const totalWeight = pages.reduce((sum, page) => sum + weightOf(page.value), 0);
  for (let day = 1; day <= options.days; day++) {
    const now = day * DAY;
    // The day's changes: a page changed since yesterday with chance 1 − e^(−λ·day).
    for (const page of pages) {
      if (changes() < 1 - Math.exp(-page.rate * DAY)) {
        page.lastChange = now - changes() * DAY;
      }
    }
    const pooled = pooledChangeRate(pages.map((page) => page.facts));
    const score = (page: SimPage): number => {
      switch (policy) {
        case 'forager':
          return revisitPriority(page.facts, pooled, now);
        case 'oldest first':
          return -page.facts.checkedAt + order() * 1e-3;
        case 'random':
          return order();
        case 'oracle':
          return weightOf(page.value) * (1 - Math.exp(-page.rate * (now - page.facts.checkedAt)));
      }
    };
    const chosen = pages.map((page) => ({ page, score: score(page) })).sort((a, b) => b.score - a.score).slice(0, budget);
    for (const { page } of chosen) {
      const changed = page.lastChange > page.facts.checkedAt;
      if (day > measureFrom) {
        revisits++;
        if (changed) found += weightOf(page.value);
      }
      page.facts = { ...page.facts, checkedAt: now, revisits: page.facts.revisits + 1, changes: page.facts.changes + (changed ? 1 : 0) };
    }
    if (day > measureFrom) {
      freshSum += pages.reduce((sum, page) => sum + (page.lastChange <= page.facts.checkedAt ? weightOf(page.value) : 0), 0) / totalWeight;
      freshSamples++;
    }
  }
  return { policy, changedYield: revisits === 0 ? 0 : found / revisits, freshness: freshSum / freshSamples };
}

/** Every policy on the same simulated collection and the same changes. */
export function simulatePolicies(options: { pages: number; days: number; share: number; seed: number }): PolicyFigures[] {
  return POLICIES.map((policy) => simulate(policy, options));
}
