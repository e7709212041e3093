/**
 * Focused-ordering benchmark (`npm run bench:focus`): does Forager fetch the on-topic pages
 * first, on real manuals it has never seen, with its default settings?
 *
 * Nine Debian documentation packages are served over loopback (bench/focus/sites.ts); 35
 * topics (bench/focus/topics.ts) each pair a driving query with a Cho-style hot predicate
 * that Forager is never told in default mode. Every site is crawled in full once and the
 * crawl stored (bench/focus/full-crawls.ts); then, per topic:
 *
 *   1. judge agreement: the default judge's hot verdicts over the whole site, against the
 *      predicate (precision and recall);
 *   2. lab replays of the stored crawl under bfs, naive and focused, in default mode (the
 *      crawl's own judge) and in --hot mode (the predicate as the judge);
 *   3. real crawls of the served site with `forager crawl` under the same strategies in
 *      default mode, each run --real-runs times (real crawls reorder with timing): the
 *      headline figures, their mean and spread, beside the ideal order and the clairvoyant
 *      replay.
 *
 * Cross-site topics (bench/focus/cross-site.ts) seed six of the sites together with a
 * per-host delay, so hosts compete for turns: real focused crawls against lab replays over
 * the sites together, and each site's share of the fetches against its share of the hot
 * pages (bench/focus/cross-bench.ts). `clairvoyant` replays (knowing the hot pages, but
 * discovering links) show the ceiling.
 *
 * PST at b = hot pages among the first round(b × T) fetches / all hot pages, where T is the
 * number of HTML pages of the site and every stored response counts as a fetch. Then the
 * cost of focus: a full crawl of each site with focused against bfs (pages/s, and the
 * share of time spent judging and ordering) on every bench site, and the strategy's memory
 * per known URL.
 *
 *   npm run bench:focus [-- --sites python,git] [--topics py-xml,…] [--half tuning|check|all]
 *                       [--strategies bfs,naive,focused] [--no-real] [--real-runs 2] [--no-cost] [--runs 1] [--json]
 *                       [--no-single] [--no-cross] [--ablation] [--smoke]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runJsonChild } from './support/child-run.ts';
import { reportSmoke } from './support/smoke.ts';
import { startSites, type ServedSite } from './support/nginx-sites.ts';
import { ablateTopic, ablationTable, type AblationRow } from './focus/ablation.ts';
import { crossChecks, crossTables, measureCrossTopic, type CrossResult } from './focus/cross-bench.ts';
import { CROSS_SITES, CROSS_TOPICS } from './focus/cross-site.ts';
import { f2, mean } from './focus/figures.ts';
import { fullCrawl } from './focus/full-crawls.ts';
import { pathOf, realCrawl } from './focus/real-crawls.ts';
import { judgeAgreement, loadSiteReplay, pst, replay, truthOf, type Agreement, type JudgeMode, type SiteReplay } from './focus/replay.ts';
import { BENCH_SITES, missingPackages, type BenchSite } from './focus/sites.ts';
import { TOPICS, type Topic, type TopicHalf } from './focus/topics.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const BUDGETS = [0.05, 0.1, 0.2] as const;
const AT_10 = 1;

const { values } = parseArgs({
  options: {
    sites: { type: 'string' },
    topics: { type: 'string' },
    half: { type: 'string' },
    strategies: { type: 'string' },
    'no-real': { type: 'boolean' },
    'no-cost': { type: 'boolean' },
    runs: { type: 'string' },
    'real-runs': { type: 'string' },
    json: { type: 'boolean' },
    'no-single': { type: 'boolean' },
    'no-cross': { type: 'boolean' },
    smoke: { type: 'boolean' },
    ablation: { type: 'boolean' },
  },
});
/**
 * Smoke mode checks that the benchmark runs end to end, on two small sites: one single-site
 * topic, and the cross-site machinery over git-doc and sqlite3-doc seeded together.
 */
const SMOKE = values.smoke === true;
if (SMOKE) Object.assign(values, { sites: 'git', topics: 'git-submodules,x-wal', 'no-cost': true });
const crossSiteKeys: readonly string[] = SMOKE ? ['git', 'sqlite'] : CROSS_SITES;
/** Smoke runs store the first pages of each full crawl only, under names of their own. */
const fullCrawlPages = SMOKE ? 150 : 100_000;
const crawlName = (name: string): string => (SMOKE ? `smoke-${name}` : name);
const strategies = (values.strategies ?? 'bfs,naive,focused').split(',');
/** The lab replays every strategy and the clairvoyant ceiling. */
const labStrategies = [...new Set([...strategies, 'clairvoyant'])];
const realRuns = SMOKE ? 1 : Math.max(1, Number(values['real-runs'] ?? 2));
const half = (values.half ?? 'all') as TopicHalf | 'all';
const topicWanted = (t: { key: string; half: TopicHalf }): boolean => (values.topics === undefined || values.topics.split(',').includes(t.key)) && (half === 'all' || t.half === half);
const topics = values['no-single'] ? [] : TOPICS.filter((t) => (values.sites === undefined || values.sites.split(',').includes(t.site)) && topicWanted(t));
const crossTopics = values['no-cross'] ? [] : CROSS_TOPICS.filter(topicWanted);
const sites = BENCH_SITES.filter(
  (s) => topics.some((t) => t.site === s.key) || (crossTopics.length > 0 && crossSiteKeys.includes(s.key)),
);
const log = (line = ''): void => void (values.json ? process.stderr : process.stdout).write(`${line}\n`);

const missing = missingPackages(sites);
if (missing.length > 0) {
  process.stderr.write(`bench:focus needs Debian packages: apt-get install -y nginx-light ${missing.join(' ')}\n`);
  process.exit(2);
}

interface TopicResult {
  topic: Topic;
  hot: number;
  htmlPages: number;
  /** The best PST any order could reach at each budget: min(1, fetches / hot pages). */
  ceiling: number[];
  judge: Agreement;
  /** [mode][strategy] → PST per budget. */
  lab: Record<JudgeMode, Record<string, number[]>>;
  /** Real crawls: [strategy] → the mean PST over the runs per budget, and the spread (max − min) of PST@10%. */
  real: Record<string, number[]>;
  realSpread: Record<string, number>;
  realOrderingShare: Record<string, number>;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
}


async function measureTopic(site: SiteReplay, served: ServedSite, topic: Topic, tmp: string): Promise<TopicResult> {
  const truth = truthOf(site, topic.predicate);
  const hot = truth.reduce((a, b) => a + b, 0);
  const fetches = BUDGETS.map((b) => Math.max(1, Math.round(b * site.htmlPages)));
  const maxFetches = fetches[fetches.length - 1] as number;
  const result: TopicResult = {
    topic,
    hot,
    htmlPages: site.htmlPages,
    ceiling: fetches.map((k) => Math.min(1, k / Math.max(1, hot))),
    judge: judgeAgreement(site, topic, truth),
    lab: { default: {}, hot: {} },
    real: {},
    realSpread: {},
    realOrderingShare: {},
  };
  for (const mode of ['default', 'hot'] as const) {
    for (const strategy of labStrategies) {
      // The clairvoyant replay knows the hot pages: it has no judge, so one replay serves both modes.
      if (strategy === 'clairvoyant' && mode === 'hot') {
        result.lab.hot.clairvoyant = result.lab.default.clairvoyant as number[];
        continue;
      }
      const order = replay(site, topic, strategy, mode, maxFetches, truth);
      result.lab[mode][strategy] = fetches.map((k) => pst(order, truth, k));
    }
  }
  if (!values['no-real']) {
    const hotPaths = new Set<string>();
    truth.forEach((t, v) => {
      if (t === 1) hotPaths.add(pathOf(site.graph.urls[v] as string));
    });
    for (const strategy of strategies) {
      const runs: number[][] = [];
      const shares: number[] = [];
      for (let run = 0; run < realRuns; run++) {
        const crawl = await realCrawl({ dir: tmp, seeds: [served.seed], topic, strategy, mode: 'default', maxPages: maxFetches });
        const order = crawl.urls.map(pathOf);
        runs.push(fetches.map((k) => order.slice(0, k).filter((p) => hotPaths.has(p)).length / Math.max(1, hot)));
        shares.push(crawl.orderingMs / Math.max(1, crawl.elapsedMs));
      }
      result.real[strategy] = fetches.map((_, b) => mean(runs.map((r) => r[b] as number)));
      const at10 = runs.map((r) => r[AT_10] as number);
      result.realSpread[strategy] = Math.max(...at10) - Math.min(...at10);
      result.realOrderingShare[strategy] = mean(shares);
    }
  }
  return result;
}

function topicTable(results: readonly TopicResult[], source: (r: TopicResult) => Record<string, number[]> | undefined, title: string, columns: readonly string[] = labStrategies): void {
  log(`\n${title}: PST at ${BUDGETS.map((b) => `${b * 100}%`).join(' / ')} of each site`);
  log(`${'topic'.padEnd(18)} ${'hot/pages'.padStart(10)}  ${'ceiling'.padEnd(16)} ${columns.map((s) => s.padEnd(16)).join(' ')}`);
  for (const r of results) {
    const row = source(r);
    if (row === undefined) continue;
    log(`${r.topic.key.padEnd(18)} ${`${r.hot}/${r.htmlPages}`.padStart(10)}  ${r.ceiling.map(f2).join(' ').padEnd(16)} ${columns.map((s) => (row[s] ?? []).map(f2).join(' ').padEnd(16)).join(' ')}`);
  }
  const perSite = new Map<string, TopicResult[]>();
  for (const r of results) perSite.set(r.topic.site, [...(perSite.get(r.topic.site) ?? []), r]);
  for (const [key, rs] of perSite) {
    log(`  ${`mean ${key}`.padEnd(26)}  ${''.padEnd(16)} ${columns.map((s) => BUDGETS.map((_, b) => f2(mean(rs.map((r) => source(r)?.[s]?.[b] ?? Number.NaN)))).join(' ').padEnd(16)).join(' ')}`);
  }
  log(`  ${'MEAN'.padEnd(26)}  ${BUDGETS.map((_, b) => f2(mean(results.map((r) => r.ceiling[b] as number)))).join(' ').padEnd(16)} ${columns.map((s) => BUDGETS.map((_, b) => f2(mean(results.map((r) => source(r)?.[s]?.[b] ?? Number.NaN)))).join(' ').padEnd(16)).join(' ')}`);
}

/** How far apart the real runs of each strategy landed at 10%, per topic and at most. */
function spreadTable(results: readonly TopicResult[]): void {
  log(`\nSpread of the real runs at 10% (max − min over ${realRuns} runs)`);
  log(`${'topic'.padEnd(18)} ${strategies.map((s) => s.padStart(9)).join(' ')}`);
  for (const r of results) log(`${r.topic.key.padEnd(18)} ${strategies.map((s) => f2(r.realSpread[s] ?? Number.NaN).padStart(9)).join(' ')}`);
  log(`${'MEAN'.padEnd(18)} ${strategies.map((s) => f2(mean(results.map((r) => r.realSpread[s] ?? Number.NaN))).padStart(9)).join(' ')}`);
}

function judgeTable(results: readonly TopicResult[]): void {
  log('\nJudge agreement over each whole site (default judge, verdicts as stored at the end of the crawl) against the predicate');
  log(`${'topic'.padEnd(18)} ${'hot'.padStart(5)} ${'judged'.padStart(7)} precision recall`);
  for (const r of results) log(`${r.topic.key.padEnd(18)} ${String(r.hot).padStart(5)} ${String(r.judge.judgedHot).padStart(7)} ${f2(r.judge.precision).padStart(9)} ${f2(r.judge.recall).padStart(6)}`);
  log(`${'MEAN'.padEnd(32)} ${f2(mean(results.map((r) => r.judge.precision))).padStart(9)} ${f2(mean(results.map((r) => r.judge.recall))).padStart(6)}`);
}

interface SiteCost {
  site: string;
  focusedPagesPerSecond: number;
  bfsPagesPerSecond: number;
  ratio: number;
  orderingShare: number;
}

interface CostFigures {
  sites: SiteCost[];
  bytesPerKnownUrl: number;
}

/** Full crawls of one site with focused (default mode, the site's first topic) and bfs, alternating, `runs` each: medians. */
async function measureSiteCost(served: ServedSite, tmp: string, runs: number): Promise<SiteCost> {
  const rates: Record<string, number[]> = { focused: [], bfs: [] };
  const shares: number[] = [];
  const topic = TOPICS.find((t) => t.site === served.name) as Topic;
  for (let run = 0; run < runs; run++) {
    for (const strategy of run % 2 === 0 ? ['focused', 'bfs'] : ['bfs', 'focused']) {
      const crawl = await realCrawl({ dir: tmp, seeds: [served.seed], topic, strategy, mode: 'default', maxPages: 100_000 });
      rates[strategy]?.push(crawl.pagesPerSecond);
      if (strategy === 'focused') shares.push(crawl.orderingMs / crawl.elapsedMs);
      log(`  ${served.name} run ${run + 1}: ${strategy} ${crawl.urls.length} pages, ${crawl.pagesPerSecond.toFixed(1)} pages/s, judging and ordering ${((crawl.orderingMs / crawl.elapsedMs) * 100).toFixed(1)}% of crawl time`);
    }
  }
  const focused = median(rates.focused as number[]);
  const bfs = median(rates.bfs as number[]);
  return { site: served.name, focusedPagesPerSecond: focused, bfsPagesPerSecond: bfs, ratio: focused / bfs, orderingShare: median(shares) };
}

async function measureCost(served: readonly ServedSite[], tmp: string, runs: number): Promise<CostFigures> {
  const sites: SiteCost[] = [];
  for (const site of served) sites.push(await measureSiteCost(site, tmp, runs));
  const memory = await runJsonChild(process.execPath, ['--expose-gc', join(REPO_ROOT, 'bench/focus/strategy-memory.ts'), '--pages', '200000'], {
    cwd: REPO_ROOT,
    timeoutMs: 600_000,
    label: 'strategy memory',
  });
  return { sites, bytesPerKnownUrl: Number(memory.json.bytesPerUrl) };
}

function checks(results: readonly TopicResult[], cost: CostFigures | undefined): [string, boolean][] {
  const check = results.filter((r) => r.topic.half === 'check');
  const scored = check.length > 0 ? check : results;
  const which = check.length > 0 ? 'check half' : 'topics run';
  const source = (r: TopicResult): Record<string, number[]> => (Object.keys(r.real).length > 0 ? r.real : r.lab.default);
  const at10 = (s: string, rs: readonly TopicResult[]): number => mean(rs.map((r) => source(r)[s]?.[AT_10] ?? Number.NaN));
  const out: [string, boolean][] = [];
  if (strategies.includes('focused')) {
    const focused = at10('focused', scored);
    out.push([`focused mean PST@10% >= 0.75 on the ${which} (${f2(focused)})`, focused >= 0.75]);
    if (strategies.includes('bfs')) {
      const ratio = focused / at10('bfs', scored);
      out.push([`focused >= 4 x bfs at 10% on the ${which} (${ratio.toFixed(2)}x)`, ratio >= 4]);
    }
    if (strategies.includes('naive')) {
      const siteKeys = [...new Set(scored.map((r) => r.topic.site))];
      const behind = siteKeys.filter((k) => at10('focused', scored.filter((r) => r.topic.site === k)) <= at10('naive', scored.filter((r) => r.topic.site === k)));
      out.push([`focused above naive on every site's mean at 10% on the ${which}${behind.length > 0 ? ` (not on ${behind.join(', ')})` : ''}`, behind.length === 0]);
    }
  }
  const p = mean(scored.map((r) => r.judge.precision));
  const rc = mean(scored.map((r) => r.judge.recall));
  out.push([`judge precision and recall >= 0.75 on the mean of the ${which} (${f2(p)} / ${f2(rc)})`, p >= 0.75 && rc >= 0.75]);
  if (cost !== undefined) {
    const heavy = cost.sites.filter((c) => c.orderingShare >= 0.2).map((c) => c.site);
    out.push([`judging and ordering < 20% of crawl time at full speed on every site${heavy.length > 0 ? ` (not on ${heavy.join(', ')})` : ''}`, heavy.length === 0]);
    const slow = cost.sites.filter((c) => c.ratio < 0.85).map((c) => `${c.site} ${c.ratio.toFixed(2)}x`);
    out.push([`focused full crawl within 15% of bfs pages/s on every site${slow.length > 0 ? ` (not on ${slow.join(', ')})` : ''}`, slow.length === 0]);
    out.push([`focused strategy memory < 200 bytes per known URL (${cost.bytesPerKnownUrl.toFixed(0)})`, cost.bytesPerKnownUrl < 200]);
  }
  return out;
}

/**
 * Smoke mode: every figure a number in [0, 1], from every strategy (the naive and bfs replays
 * are focused's peers), real crawls included, then the SMOKE line; else a loud failure.
 */
function smokeCheck(results: readonly TopicResult[], cross: readonly CrossResult[]): void {
  const figures: [string, number[] | undefined][] = [
    ...results.flatMap((r) => strategies.flatMap((s): [string, number[] | undefined][] => [[`${r.topic.key} lab ${s}`, r.lab.default[s]], [`${r.topic.key} real ${s}`, r.real[s]]])),
    ...cross.flatMap((r) => [...strategies, 'clairvoyant'].map((s): [string, number[] | undefined] => [`${r.topic.key} lab ${s}`, r.lab[s]])),
    ...cross.map((r): [string, number[] | undefined] => [`${r.topic.key} real focused`, r.real.focused]),
    ...cross.map((r): [string, number[] | undefined] => [`${r.topic.key} fetch shares`, Object.values(r.fetchShare.focused ?? {})]),
  ];
  const bad = figures.filter(([, v]) => v === undefined || v.length === 0 || v.some((x) => !Number.isFinite(x) || x < 0 || x > 1)).map(([name]) => name);
  if (results.length === 0 || cross.length === 0) bad.push('a topic set that did not run');
  if (bad.length > 0) {
    process.stderr.write(`bench:focus smoke FAILED: no valid figures for ${bad.join(', ')}\n`);
    process.exitCode = 1;
    return;
  }
  reportSmoke({
    benchmark: 'bench:focus',
    peer: 'naive and bfs replays',
    figures: Object.fromEntries(figures.flatMap(([name, values]) => (values ?? []).map((v, i): [string, number] => [`${name} [${i}]`, v]))),
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'forager-focus-'));
const served = await startSites(sites.map((s: BenchSite) => ({ name: s.key, root: s.root(), entry: s.entry })));
try {
  const servedOf = (key: string): ServedSite => served.sites.find((s) => s.name === key) as ServedSite;
  const results: TopicResult[] = [];
  const ablations: AblationRow[] = [];
  for (const site of sites) {
    const siteTopics = topics.filter((t) => t.site === site.key);
    if (siteTopics.length === 0) continue;
    const stored = await fullCrawl(crawlName(site.key), site.packages, [servedOf(site.key)], fullCrawlPages);
    log(`${site.key}: ${stored.fresh ? `crawled in full in ${stored.seconds.toFixed(1)} s` : 'stored full crawl reused'}`);
    const replaySite = loadSiteReplay(site.key, stored.db);
    for (const topic of siteTopics) {
      const r = await measureTopic(replaySite, servedOf(site.key), topic, tmp);
      results.push(r);
      if (values.ablation) ablations.push(ablateTopic(replaySite, topic, truthOf(replaySite, topic.predicate), Math.max(1, Math.round(0.1 * replaySite.htmlPages))));
      log(`  ${topic.key} (${topic.half}): "${topic.query}", ${topic.predicate}: ${r.hot} hot of ${r.htmlPages}; focused ${(r.real.focused ?? r.lab.default.focused ?? []).map(f2).join(' ')}`);
    }
  }
  for (const which of ['tuning', 'check'] as const) {
    const rs = results.filter((r) => r.topic.half === which);
    if (rs.length === 0) continue;
    log(`\n=== ${which.toUpperCase()} HALF (${rs.length} topics) ===`);
    if (!values['no-real']) {
      topicTable(
        rs,
        (r) => ({ ...r.real, 'clairvoyant (lab)': r.lab.default.clairvoyant ?? [] }),
        `Real crawls, default mode (headline), mean of ${realRuns} run${realRuns === 1 ? '' : 's'}, with the ideal order (ceiling) and the clairvoyant replay`,
        [...strategies, 'clairvoyant (lab)'],
      );
      spreadTable(rs);
    }
    topicTable(rs, (r) => r.lab.default, 'Lab replays, default mode');
    topicTable(rs, (r) => r.lab.hot, 'Lab replays, --hot mode (the predicate is the judge)');
    judgeTable(rs);
    if (values.ablation) ablationTable(ablations.filter((a) => a.topic.half === which), log);
  }
  const crossResults: CrossResult[] = [];
  if (crossTopics.length > 0) {
    const crossServed = crossSiteKeys.map(servedOf);
    const stored = await fullCrawl(
      crawlName(`cross-${crossSiteKeys.join('-')}`),
      BENCH_SITES.filter((s) => crossSiteKeys.includes(s.key)).flatMap((s) => s.packages),
      crossServed,
      2 * fullCrawlPages,
    );
    log(`\ncross-site (${crossSiteKeys.join(', ')}): ${stored.fresh ? `crawled in full in ${stored.seconds.toFixed(1)} s` : 'stored full crawl reused'}`);
    const replaySite = loadSiteReplay('cross', stored.db);
    for (const topic of crossTopics) {
      const r = await measureCrossTopic(topic, {
        replaySite,
        siteOfOrigin: stored.siteOfOrigin,
        served: crossServed,
        labStrategies: [...strategies, 'clairvoyant'],
        realStrategies: values['no-real'] ? [] : strategies.filter((s) => s === 'focused'),
        realRuns,
        dir: tmp,
      });
      crossResults.push(r);
      log(`  ${topic.key} (${topic.half}): "${topic.query}", ${topic.predicate}: ${r.hot} hot of ${r.htmlPages}; focused ${(r.real.focused ?? r.lab.focused ?? []).map(f2).join(' ')}`);
    }
    crossTables(crossResults, [...strategies, 'clairvoyant'], log);
  }
  let cost: CostFigures | undefined;
  if (!values['no-cost']) {
    const costSites = sites.filter((s) => topics.some((t) => t.site === s.key)).map((s) => servedOf(s.key));
    log(`\nCost: full crawls of every site, focused (default mode) and bfs, alternating, ${Number(values.runs ?? 1)} each`);
    cost = await measureCost(costSites, tmp, Number(values.runs ?? 1));
    log(`${'site'.padEnd(10)} ${'focused p/s'.padStart(12)} ${'bfs p/s'.padStart(9)} ${'ratio'.padStart(6)} ${'judge+order'.padStart(12)}`);
    for (const c of cost.sites) log(`${c.site.padEnd(10)} ${c.focusedPagesPerSecond.toFixed(1).padStart(12)} ${c.bfsPagesPerSecond.toFixed(1).padStart(9)} ${c.ratio.toFixed(2).padStart(6)} ${`${(c.orderingShare * 100).toFixed(1)}%`.padStart(12)}`);
    log(`  strategy memory ${cost.bytesPerKnownUrl.toFixed(0)} bytes per known URL`);
  }
  const outcome = [...(results.length > 0 ? checks(results, cost) : []), ...crossChecks(crossResults)];
  if (SMOKE) smokeCheck(results, crossResults);
  log('\nTargets');
  for (const [text, ok] of outcome) log(`  ${ok ? 'PASS' : 'MISS'}  ${text}`);
  if (values.json) process.stdout.write(`${JSON.stringify({ budgets: BUDGETS, strategies, results, crossResults, cost, checks: Object.fromEntries(outcome) })}\n`);
} finally {
  await served.stop();
  rmSync(tmp, { recursive: true, force: true });
}
