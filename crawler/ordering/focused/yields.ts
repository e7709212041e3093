/** Prior pages of the crawl's mean grade in a yield, so one page does not decide it. */
export const PRIOR_PAGES = 2;
const EPSILON = 1e-3;

function logit(p: number): number {
  const q = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(q / (1 - q));
}

/**
 * The yield of n fetched pages whose grades sum to gradeSum, against the crawl's mean grade:
 * the log-odds of their smoothed mean grade (PRIOR_PAGES pages of the mean as a prior) minus
 * the log-odds of the mean; 0 when none was fetched.
 */
export function smoothedYield(n: number, gradeSum: number, mean: number): number {
  if (n === 0) return 0;
  return logit((gradeSum + PRIOR_PAGES * mean) / (n + PRIOR_PAGES)) - logitOfMean(mean);
}

/** logit(mean), remembered for the last mean asked: a crawl asks for one mean grade per epoch, a few times per link. */
let lastMean = Number.NaN;
let lastMeanLogit = 0;
function logitOfMean(mean: number): number {
  if (mean !== lastMean) {
    lastMean = mean;
    lastMeanLogit = logit(mean);
  }
  return lastMeanLogit;
}
