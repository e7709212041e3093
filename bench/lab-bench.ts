/**
 * Lab benchmark: replays a synthetic 1,000,000-page graph (sites of 500 pages, 20–60
 * links a page, hot pages clustered in topical sites that link to each other; see
 * crawler/lab/synthetic.ts) through virtualCrawl, and reports link events processed per
 * second (by the wall clock, and per CPU second beside it: on a loaded machine the wall clock
 * says more about the other work) and peak RSS, medians over the runs. Targets: ≥ 500,000
 * links/s, and for focused ≥ 1,000,000 links/s on 1,000,000 pages. Each run is a child
 * process, so its peak RSS is its own; the graph is built before the clock starts.
 *
 *   npx node bench/lab-bench.ts [--pages 1000000] [--runs 3] [--strategies bfs,fpr] [--budget 1] [--json]
 *   npx node bench/lab-bench.ts --smoke   (20,000 pages, one run each; see support/smoke.ts)
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { evaluateBudgets } from '../crawler/lab/evaluate.ts';
import { SYNTHETIC_QUERY, syntheticLabGraph } from '../crawler/lab/synthetic.ts';
import { virtualCrawl } from '../crawler/lab/virtual-crawl.ts';
import { createStrategy, requireStrategy } from '../crawler/ordering/registry.ts';
import { runJsonChild } from './support/child-run.ts';
import { reportSmoke } from './support/smoke.ts';

const { values } = parseArgs({
  options: {
    pages: { type: 'string' },
    runs: { type: 'string' },
    strategies: { type: 'string' },
    budget: { type: 'string' },
    json: { type: 'boolean' },
    child: { type: 'string' },
    smoke: { type: 'boolean' },
  },
});
const SMOKE = values.smoke === true;
const PAGES = Number(values.pages ?? (SMOKE ? 20_000 : 1_000_000));
const RUNS = Number(values.runs ?? (SMOKE ? 1 : 3));
const BUDGET = Number(values.budget ?? 1);
const STRATEGIES = (values.strategies ?? 'bfs,fpr').split(',');
const MB = 1024 * 1024;

interface RunResult {
  strategy: string;
  pages: number;
  links: number;
  fetched: number;
  linksProcessed: number;
  seconds: number;
  linksPerSecond: number;
  /** The replay's CPU time (user + system): on a machine other work loads, it moves less than the wall clock. */
  cpuSeconds: number;
  linksPerCpuSecond: number;
  generateSeconds: number;
  graphRssMB: number;
  peakRssMB: number;
  pst: Record<string, number | null>;
}

function runChild(strategy: string): RunResult {
  const generateStarted = performance.now();
  const graph = syntheticLabGraph({ pages: PAGES });
  const generateSeconds = (performance.now() - generateStarted) / 1000;
  const graphRssMB = process.memoryUsage().rss / MB;
  const cpuBefore = process.cpuUsage();
  const crawl = virtualCrawl(graph, createStrategy(strategy, { query: SYNTHETIC_QUERY, randomSeed: 1 }), Math.round(BUDGET * graph.pageCount));
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const pst: Record<string, number | null> = {};
  for (const b of evaluateBudgets(graph, crawl, [0.05, 0.1, 0.2, 0.4].filter((x) => x <= BUDGET))) pst[String(b.budget)] = b.pst;
  return {
    strategy,
    pages: graph.pageCount,
    links: graph.linkDst.length,
    fetched: crawl.order.length,
    linksProcessed: crawl.linksProcessed,
    seconds: crawl.seconds,
    linksPerSecond: crawl.linksProcessed / crawl.seconds,
    cpuSeconds,
    linksPerCpuSecond: crawl.linksProcessed / cpuSeconds,
    generateSeconds,
    graphRssMB,
    // maxRSS is in kilobytes.
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    pst,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function main(): Promise<void> {
  if (values.child !== undefined) {
    process.stdout.write(`${JSON.stringify(runChild(values.child))}\n`);
    return;
  }
  for (const name of STRATEGIES) requireStrategy(name);
  const self = fileURLToPath(import.meta.url);
  const summary = [];
  for (const strategy of STRATEGIES) {
    const runs: RunResult[] = [];
    for (let r = 0; r < RUNS; r++) {
      const args = [self, '--child', strategy, '--pages', String(PAGES), '--budget', String(BUDGET)];
      const { json } = await runJsonChild(process.execPath, args, { cwd: process.cwd(), timeoutMs: 30 * 60_000, label: `${strategy} run ${r + 1}` });
      const run = json as unknown as RunResult;
      runs.push(run);
      process.stderr.write(
        `${strategy} run ${r + 1}: ${Math.round(run.linksPerSecond).toLocaleString('en')} links/s, ${run.seconds.toFixed(1)} s ` +
          `(${Math.round(run.linksPerCpuSecond).toLocaleString('en')} links per CPU second), ` +
          `peak RSS ${run.peakRssMB.toFixed(0)} MB (graph alone ${run.graphRssMB.toFixed(0)} MB)\n`,
      );
    }
    const first = runs[0] as RunResult;
    summary.push({
      strategy,
      pages: first.pages,
      links: first.links,
      fetched: first.fetched,
      linksProcessed: first.linksProcessed,
      medianSeconds: median(runs.map((r) => r.seconds)),
      medianLinksPerSecond: Math.round(median(runs.map((r) => r.linksPerSecond))),
      medianLinksPerCpuSecond: Math.round(median(runs.map((r) => r.linksPerCpuSecond))),
      medianPeakRssMB: Math.round(median(runs.map((r) => r.peakRssMB))),
      medianGraphRssMB: Math.round(median(runs.map((r) => r.graphRssMB))),
      medianGenerateSeconds: median(runs.map((r) => r.generateSeconds)),
      pst: first.pst,
      runs: runs.length,
    });
  }
  const table = summary
    .map(
      (s) =>
        `${s.strategy.padEnd(9)} ${s.medianLinksPerSecond.toLocaleString('en').padStart(11)} links/s  ${s.medianSeconds.toFixed(1).padStart(6)} s  ` +
          `${s.medianLinksPerCpuSecond.toLocaleString('en').padStart(11)} links/CPU s  ` +
        `peak RSS ${String(s.medianPeakRssMB).padStart(5)} MB  PST ${Object.entries(s.pst).map(([b, p]) => `${b}:${p?.toFixed(3)}`).join(' ')}`,
    )
    .join('\n');
  const header = `lab: ${PAGES.toLocaleString('en')} pages, budget ${BUDGET}, medians of ${RUNS} runs (targets ≥ 500,000 links/s; focused ≥ 1,000,000)`;
  if (values.json) {
    process.stderr.write(`${header}\n${table}\n`);
    process.stdout.write(`${JSON.stringify({ pages: PAGES, budget: BUDGET, runs: RUNS, results: summary }, null, 2)}\n`);
  } else {
    process.stdout.write(`${header}\n${table}\n`);
  }
  if (SMOKE) {
    // The lab has no peer: it is Forager's own replay. PST at 10% must be a number for every strategy.
    const figures: Record<string, unknown> = {};
    for (const s of summary) {
      figures[`${s.strategy}LinksPerSecond`] = s.medianLinksPerSecond;
      figures[`${s.strategy}PeakRssMB`] = s.medianPeakRssMB;
      figures[`${s.strategy}Pst10`] = s.pst['0.1'];
    }
    reportSmoke({ benchmark: 'bench:lab', peer: null, figures });
  }
}

await main();
