/**
 * Throughput benchmark: Forager's crawler against a bare fetch-and-parse loop (the least a
 * crawler must do per page: peers/bare-loop.ts) and Crawlee's CheerioCrawler, on whole
 * documentation sites served by a private nginx over loopback. Each participant runs as its
 * own child process with the same page budget (Forager and Crawlee with the same
 * concurrency); the order of the participants rotates from run to run to spread machine
 * noise, and the report shows medians. `--strategy bfs,focused` times Forager once per
 * ordering in each run.
 *
 * Then, unless --no-profile, where Forager's CPU goes: one more crawl per site and strategy,
 * apart from the timed runs so that the profiler never touches their pages/s, under
 * `node --cpu-prof` (each thread writes a profile; the parse workers are given the flag), read
 * into CPU ms per 1,000 pages by stage and thread (support/stage-profile.ts).
 *
 *   npm run bench -- [--sites python,git,postgres,apache] [--strategy bfs[,focused]] [--runs 3]
 *                    [--peer-max-seconds 300] [--no-profile | --profile-dir DIR] [--json]
 *   npm run bench -- --smoke   (git-doc, one run of each, a budget of 40 pages; see support/smoke.ts)
 *
 * With --rules (`npm run bench:rules`) it measures what include and exclude rules cost
 * instead: Forager alone, runs without rules alternating with runs with 20 include and 20
 * exclude patterns that admit every page the plain run fetches (support/bench-rules.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ForagerError, UsageError } from '../crawler/errors.ts';
import { runJsonChild, shebangNodeFlags } from './support/child-run.ts';
import { NGINX_BINARY, startSites, type ServedSite } from './support/nginx-sites.ts';
import { reportSmoke } from './support/smoke.ts';
import { runBenchMain } from './support/run-main.ts';
import { benchRuleArgs, benchRules, RULE_COUNTS } from './support/bench-rules.ts';
import { openCollection } from '../crawler/store/database.ts';
import { UrlRules } from '../crawler/url/url-rules.ts';
import { formatStageReport, readThreadStages, stageReport, type StageReport } from './support/stage-profile.ts';
import { PROFILER_THREAD, threadCpuOf, type ThreadCpu } from './support/thread-cpu.ts';
import { replayFullTextIndex, type FullTextReplay } from './support/fts-replay.ts';
import { TEXT_INDEX_BATCH_PAGES } from '../crawler/store/text-index-queue.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const PEER_SCRIPT = join(REPO_ROOT, 'bench', 'peers', 'crawlee-crawl.ts');
const BARE_LOOP_SCRIPT = join(REPO_ROOT, 'bench', 'peers', 'bare-loop.ts');
const REPORT_THREAD_CPU = join(REPO_ROOT, 'bench', 'support', 'report-thread-cpu.ts');
/**
 * The profiler's sampling interval: 250 µs gives some 4,000 samples a second of a busy thread,
 * 40 for each 1% of it; the profiled crawl's own pages/s is printed to show what profiling cost.
 */
const PROFILE_INTERVAL_US = 250;
const CONCURRENCY = 8;
const BYTES_PER_MB = 1024 * 1024;
const FORAGER_TIMEOUT_MS = 30 * 60 * 1000;
const PEER_EXIT_SLACK_MS = 2 * 60 * 1000;
const INSTALL_HINT = 'apt-get install -y nginx-light python3.11-doc git-doc postgresql-doc-15 apache2-doc';

const TARGET_PAGES_PER_SECOND = 100;
const TARGET_RATIO = 10;
const TARGET_PEAK_RSS_MB = 300;
const PAGES_PER_SECOND_TARGET_SITE = 'python';
/** A smoke run's page budget and its cap on the peer: enough for both tools to crawl for real. */
const SMOKE_BUDGET = 40;
const SMOKE_PEER_MAX_SECONDS = 20;
/** The rules' target: a crawl with them keeps at least this share of the pages/s of one without. */
const TARGET_RULES_RATIO = 0.97;
/** bfs's pages/s against the bare loop's, on the sites of BARE_LOOP_TARGET_SITES (issue 40). */
const TARGET_BARE_LOOP_SHARE = 0.4;
const BARE_LOOP_TARGET_SITES = ['postgres', 'apache'];
/** focused's pages/s against bfs's, on FOCUSED_TARGET_SITE (issue 40). */
const TARGET_FOCUSED_RATIO = 0.9;
const FOCUSED_TARGET_SITE = 'apache';

interface SiteDefinition {
  key: string;
  name: string;
  root: string;
}

const SITES: readonly SiteDefinition[] = [
  { key: 'python', name: 'python3.11-doc', root: '/usr/share/doc/python3.11/html' },
  { key: 'git', name: 'git-doc', root: '/usr/share/doc/git/html' },
  { key: 'postgres', name: 'postgresql-doc-15', root: '/usr/share/doc/postgresql-doc-15/html' },
  { key: 'apache', name: 'apache2-doc', root: '/usr/share/doc/apache2-doc/manual' },
];

interface BenchOptions {
  sites: SiteDefinition[];
  runs: number;
  peerMaxSeconds: number | undefined;
  json: boolean;
  foragerBin: string;
  /** Forager's ordering strategies, each timed in every run: bfs by default, to measure the crawl core; `focused` is the product default. */
  strategies: string[];
  /** One profiled crawl per site and strategy, after the timed runs. */
  profile: boolean;
  /** Where to keep the profiles (a folder per site and strategy, for Chrome DevTools); undefined: removed once read. */
  profileDir: string | undefined;
  /** A fixed page budget (smoke runs); undefined: every HTML page of the site. */
  budget: number | undefined;
  smoke: boolean;
  /** Measure include and exclude rules against none, instead of Forager against Crawlee. */
  rules: boolean;
}

/** One participant's numbers for one run, normalised to the same units. */
interface RunMetrics {
  pages: number;
  failed: number;
  pagesPerSecond: number;
  mbPerSecond: number;
  peakRssMB: number;
  seenCacheHitRate: number | undefined;
  truncated: boolean;
}

/** Medians over one participant's runs. */
interface SideSummary extends Omit<RunMetrics, 'truncated'> {
  runs: RunMetrics[];
  truncatedRuns: number;
}

/** Forager's runs with one ordering strategy. */
interface StrategySummary extends SideSummary {
  strategy: string;
}

/** Where the CPU of one profiled crawl went. */
interface StageProfile {
  strategy: string;
  pages: number;
  /** Under the profiler: not a figure to compare, only to show what profiling cost. */
  pagesPerSecond: number;
  /** Each thread's CPU time, as the kernel counted it; undefined when the crawl did not report it. */
  threadCpu: ThreadCpu[] | undefined;
  /** The engine's own clock on judging and ordering (its `orderingMs`), beside the profile's stages for them. */
  orderingMs: number | undefined;
  report: StageReport;
  /** The full-text index built again from the profiled crawl's pages, timed apart (its commits are inside the profile's store commit). */
  fullText: FullTextReplay;
}

interface SiteSummary {
  key: string;
  name: string;
  seed: string;
  budget: number;
  /** One per strategy, in the order of --strategy. */
  forager: StrategySummary[];
  bare: SideSummary;
  crawlee: SideSummary;
  /** The first strategy's pages/s over Crawlee's. */
  ratio: number;
  profiles: StageProfile[];
}

interface TargetResult {
  site: string;
  target: string;
  value: number | undefined;
  pass: boolean | undefined;
}

function readOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      sites: { type: 'string', default: SITES.map((site) => site.key).join(',') },
      runs: { type: 'string', default: '3' },
      'peer-max-seconds': { type: 'string', default: '300' },
      json: { type: 'boolean', default: false },
      forager: { type: 'string', default: join(REPO_ROOT, 'bin', 'forager.js') },
      strategy: { type: 'string', default: 'bfs' },
      profile: { type: 'boolean', default: true },
      'profile-dir': { type: 'string' },
      smoke: { type: 'boolean', default: false },
      rules: { type: 'boolean', default: false },
    },
    strict: true,
    allowNegative: true,
  });
  const sites = values.sites.split(',').map((key) => {
    const site = SITES.find((candidate) => candidate.key === key.trim());
    if (site === undefined) {
      throw new UsageError(`Unknown site "${key}"; choose from ${SITES.map((s) => s.key).join(', ')}`, { site: key });
    }
    return site;
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs <= 0) throw new UsageError('--runs must be a positive integer', { runs: values.runs });
  const cap = Number(values['peer-max-seconds']);
  if (!Number.isInteger(cap) || cap < 0) {
    throw new UsageError('--peer-max-seconds must be 0 (no cap) or a positive integer', { value: values['peer-max-seconds'] });
  }
  const strategies = [...new Set(values.strategy.split(',').map((name) => name.trim()))];
  if (strategies.some((name) => name === '')) throw new UsageError('--strategy takes one or more strategies, comma-separated', { strategy: values.strategy });
  const options = { sites, runs, peerMaxSeconds: cap === 0 ? undefined : cap, json: values.json, foragerBin: resolve(values.forager), strategies, profile: values.profile && !values.rules, profileDir: values['profile-dir'] === undefined ? undefined : resolve(values['profile-dir']), budget: undefined, smoke: values.smoke, rules: values.rules };
  if (!values.smoke) return options;
  const git = SITES.find((site) => site.key === 'git') as SiteDefinition;
  return { ...options, sites: [git], runs: 1, peerMaxSeconds: SMOKE_PEER_MAX_SECONDS, budget: SMOKE_BUDGET };
}

/** Missing system packages are the likeliest failure, so say exactly what to install. */
function checkPrerequisites(options: BenchOptions): void {
  const missing = [NGINX_BINARY, ...options.sites.map((site) => join(site.root, 'index.html'))].filter((path) => !existsSync(path));
  if (missing.length > 0) {
    process.stderr.write(`Missing: ${missing.join(', ')}\nInstall the benchmark sites and server with:\n  ${INSTALL_HINT}\n`);
    process.exit(2);
  }
  if (!existsSync(options.foragerBin)) {
    process.stderr.write(`Forager's CLI was not found at ${options.foragerBin}\n`);
    process.exit(2);
  }
}

/** The page budget: every .html document the site holds, symlinked ones included. */
function countHtmlFiles(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stats = statSync(path);
    if (stats.isDirectory()) count += countHtmlFiles(path);
    else if (stats.isFile() && entry.endsWith('.html')) count++;
  }
  return count;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function requireNumber(json: Record<string, unknown>, field: string, tool: string): number {
  const value = json[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ForagerError('BENCH_CHILD', `${tool} output lacks a numeric "${field}"`, { field, output: json });
  }
  return value;
}

const FORAGER_FIELDS = [
  'fetched',
  'queued',
  'failed',
  'robotsBlocked',
  'skipped',
  'seenCacheHitRate',
  'pagesPerSecond',
  'elapsedMs',
  'bytesFetched',
  'peakRssBytes',
] as const;

/**
 * A Forager crawl's metrics, its stderr (where a profiled crawl reports its CPU time), and the
 * engine's own clock on judging and ordering.
 */
async function runForager(
  options: BenchOptions,
  strategy: string,
  site: ServedSite,
  budget: number,
  db: string,
  extraArgs: readonly string[] = [],
  nodeFlags: readonly string[] = [],
): Promise<RunMetrics & { stderr: string; orderingMs: number | undefined }> {
  const args = [
    ...shebangNodeFlags(options.foragerBin),
    ...nodeFlags,
    options.foragerBin,
    'crawl',
    '--db', db,
    '--query', 'benchmark',
    '--seed', site.seed,
    '--max-pages', String(budget),
    '--delay-ms', '0',
    '--delay-factor', '0',
    '--strategy', strategy,
    '--concurrency', String(CONCURRENCY),
    // Like for like with CheerioCrawler, which fetches HTML only: no browser, no page requisites.
    '--render', 'never',
    '--requisites', 'none',
    '--json',
    ...extraArgs,
  ];
  const { json, stderr } = await runJsonChild(process.execPath, args, { cwd: REPO_ROOT, timeoutMs: FORAGER_TIMEOUT_MS, label: `forager ${strategy}` });
  const fields = Object.fromEntries(FORAGER_FIELDS.map((field) => [field, requireNumber(json, field, 'forager')])) as Record<
    (typeof FORAGER_FIELDS)[number],
    number
  >;
  const seconds = fields.elapsedMs / 1000;
  return {
    pages: fields.fetched,
    failed: fields.failed,
    pagesPerSecond: fields.pagesPerSecond,
    mbPerSecond: seconds > 0 ? fields.bytesFetched / BYTES_PER_MB / seconds : 0,
    peakRssMB: fields.peakRssBytes / BYTES_PER_MB,
    seenCacheHitRate: fields.seenCacheHitRate,
    truncated: false,
    stderr,
    orderingMs: typeof json.orderingMs === 'number' ? json.orderingMs : undefined,
  };
}

async function runBareLoop(site: ServedSite, budget: number): Promise<RunMetrics> {
  const { json } = await runJsonChild(process.execPath, [BARE_LOOP_SCRIPT, '--seed', site.seed, '--max-pages', String(budget)], { cwd: REPO_ROOT, timeoutMs: FORAGER_TIMEOUT_MS, label: 'bare loop' });
  return {
    pages: requireNumber(json, 'pages', 'bare loop'),
    failed: requireNumber(json, 'failed', 'bare loop'),
    pagesPerSecond: requireNumber(json, 'pagesPerSecond', 'bare loop'),
    mbPerSecond: requireNumber(json, 'mbPerSecond', 'bare loop'),
    peakRssMB: requireNumber(json, 'peakRssMB', 'bare loop'),
    seenCacheHitRate: undefined,
    truncated: false,
  };
}

/**
 * One more Forager crawl under the CPU profiler, each thread's profile read into stages. The
 * profiles go to a directory of their own, removed once read unless `keep`.
 */
async function profileForager(options: BenchOptions, strategy: string, site: ServedSite, budget: number, db: string, profileDir: string, keep: boolean): Promise<StageProfile> {
  // A kept folder from an earlier run would mix its profiles with these.
  rmSync(profileDir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  try {
    const flags = ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-interval', String(PROFILE_INTERVAL_US), '--import', REPORT_THREAD_CPU];
    const metrics = await runForager(options, strategy, site, budget, db, [], flags);
    const threadCpu = threadCpuOf(metrics.stderr);
    const report = stageReport(readThreadStages(profileDir), metrics.pages, threadCpu);
    return { strategy, pages: metrics.pages, pagesPerSecond: metrics.pagesPerSecond, threadCpu, orderingMs: metrics.orderingMs, report, fullText: replayFullTextIndex(db) };
  } finally {
    if (!keep) rmSync(profileDir, { recursive: true, force: true });
  }
}

async function runCrawlee(options: BenchOptions, site: ServedSite, budget: number): Promise<RunMetrics> {
  const args = [PEER_SCRIPT, '--seed', site.seed, '--max-pages', String(budget), '--concurrency', String(CONCURRENCY)];
  if (options.peerMaxSeconds !== undefined) args.push('--max-seconds', String(options.peerMaxSeconds));
  const timeoutMs = options.peerMaxSeconds === undefined ? 4 * FORAGER_TIMEOUT_MS : options.peerMaxSeconds * 1000 + PEER_EXIT_SLACK_MS;
  const { json } = await runJsonChild(process.execPath, args, { cwd: REPO_ROOT, timeoutMs, label: 'crawlee' });
  return {
    pages: requireNumber(json, 'pages', 'crawlee'),
    failed: requireNumber(json, 'failed', 'crawlee'),
    pagesPerSecond: requireNumber(json, 'pagesPerSecond', 'crawlee'),
    mbPerSecond: requireNumber(json, 'mbPerSecond', 'crawlee'),
    peakRssMB: requireNumber(json, 'peakRssMB', 'crawlee'),
    seenCacheHitRate: undefined,
    truncated: json.truncated === true,
  };
}

function summarise(runs: RunMetrics[]): SideSummary {
  const hitRates = runs.map((run) => run.seenCacheHitRate).filter((rate): rate is number => rate !== undefined);
  return {
    runs,
    pages: median(runs.map((run) => run.pages)),
    failed: median(runs.map((run) => run.failed)),
    pagesPerSecond: median(runs.map((run) => run.pagesPerSecond)),
    mbPerSecond: median(runs.map((run) => run.mbPerSecond)),
    peakRssMB: median(runs.map((run) => run.peakRssMB)),
    seenCacheHitRate: hitRates.length > 0 ? median(hitRates) : undefined,
    truncatedRuns: runs.filter((run) => run.truncated).length,
  };
}

/** Progress goes to stderr so that stdout carries only the table or the JSON summary. */
function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

function describeRun(tool: string, run: RunMetrics): string {
  const cut = run.truncated ? ' (stopped at the time cap)' : '';
  return `${tool}: ${run.pages} pages, ${run.pagesPerSecond.toFixed(1)} pages/s, ${run.peakRssMB.toFixed(0)} MB peak RSS${cut}`;
}

/** One participant of a run: its label, and a run of it. */
interface Participant {
  label: string;
  run: () => Promise<RunMetrics>;
}

/** The participants in a run's order: each run starts one further along, so that none always goes first. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

async function benchSite(definition: SiteDefinition, site: ServedSite, options: BenchOptions, dbDir: string): Promise<SiteSummary> {
  const budget = options.budget ?? countHtmlFiles(definition.root);
  progress(`\n${definition.name}: ${budget} pages from ${site.seed}`);
  const forager = new Map<string, RunMetrics[]>(options.strategies.map((strategy) => [strategy, []]));
  const bare: RunMetrics[] = [];
  const crawlee: RunMetrics[] = [];
  const keep = (runs: RunMetrics[], metrics: RunMetrics): RunMetrics => {
    runs.push(metrics);
    return metrics;
  };
  const dropDb = (db: string): void => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(db + suffix, { force: true });
  };
  for (let run = 0; run < options.runs; run++) {
    const participants: Participant[] = [
      ...options.strategies.map((strategy) => ({
        label: `forager ${strategy}`,
        run: async (): Promise<RunMetrics> => {
          const db = join(dbDir, `${definition.key}-${strategy}-${run}.db`);
          try {
            const { stderr: _stderr, orderingMs: _orderingMs, ...metrics } = await runForager(options, strategy, site, budget, db);
            return keep(forager.get(strategy) as RunMetrics[], metrics);
          } finally {
            dropDb(db);
          }
        },
      })),
      { label: 'bare loop', run: async () => keep(bare, await runBareLoop(site, budget)) },
      { label: 'crawlee', run: async () => keep(crawlee, await runCrawlee(options, site, budget)) },
    ];
    for (const participant of rotated(participants, run)) {
      progress(`  run ${run + 1}/${options.runs} ${describeRun(participant.label, await participant.run())}`);
    }
  }
  const profiles: StageProfile[] = [];
  if (options.profile) {
    for (const strategy of options.strategies) {
      const db = join(dbDir, `${definition.key}-${strategy}-profiled.db`);
      try {
        const folder = `${definition.key}-${strategy}`;
        const profile = await profileForager(options, strategy, site, budget, db, join(options.profileDir ?? dbDir, folder), options.profileDir !== undefined);
        profiles.push(profile);
        progress(`  profiled forager ${strategy}: ${profile.pages} pages, ${profile.pagesPerSecond.toFixed(1)} pages/s under the profiler`);
      } finally {
        dropDb(db);
      }
    }
  }
  const strategySummaries = options.strategies.map((strategy) => ({ strategy, ...summarise(forager.get(strategy) as RunMetrics[]) }));
  const crawleeSummary = summarise(crawlee);
  const first = strategySummaries[0] as StrategySummary;
  return {
    key: definition.key,
    name: definition.name,
    seed: site.seed,
    budget,
    forager: strategySummaries,
    bare: summarise(bare),
    crawlee: crawleeSummary,
    ratio: crawleeSummary.pagesPerSecond > 0 ? first.pagesPerSecond / crawleeSummary.pagesPerSecond : Number.POSITIVE_INFINITY,
    profiles,
  };
}

function strategyOf(summary: SiteSummary, strategy: string): StrategySummary | undefined {
  return summary.forager.find((side) => side.strategy === strategy);
}

function evaluateTargets(options: BenchOptions, summaries: SiteSummary[]): TargetResult[] {
  const results: TargetResult[] = [];
  const firstStrategy = options.strategies[0] as string;
  const speedSite = summaries.find((summary) => summary.key === PAGES_PER_SECOND_TARGET_SITE);
  const speedName = SITES.find((site) => site.key === PAGES_PER_SECOND_TARGET_SITE)?.name ?? PAGES_PER_SECOND_TARGET_SITE;
  const speed = speedSite === undefined ? undefined : strategyOf(speedSite, firstStrategy)?.pagesPerSecond;
  results.push({
    site: speedName,
    target: `Forager ${firstStrategy} >= ${TARGET_PAGES_PER_SECOND} pages/s`,
    value: speed,
    pass: speed === undefined ? undefined : speed >= TARGET_PAGES_PER_SECOND,
  });
  for (const summary of summaries) {
    results.push({
      site: summary.name,
      target: `Forager ${firstStrategy} >= ${TARGET_RATIO}x Crawlee pages/s`,
      value: summary.ratio,
      pass: summary.ratio >= TARGET_RATIO,
    });
    for (const side of summary.forager) {
      results.push({
        site: summary.name,
        target: `Forager ${side.strategy} peak RSS < ${TARGET_PEAK_RSS_MB} MB`,
        value: side.peakRssMB,
        pass: side.peakRssMB < TARGET_PEAK_RSS_MB,
      });
    }
    const bfs = strategyOf(summary, 'bfs');
    if (bfs !== undefined && BARE_LOOP_TARGET_SITES.includes(summary.key)) {
      const share = summary.bare.pagesPerSecond > 0 ? bfs.pagesPerSecond / summary.bare.pagesPerSecond : 0;
      results.push({ site: summary.name, target: `Forager bfs >= ${TARGET_BARE_LOOP_SHARE}x the bare loop's pages/s`, value: share, pass: share >= TARGET_BARE_LOOP_SHARE });
    }
    const focused = strategyOf(summary, 'focused');
    if (bfs !== undefined && focused !== undefined && summary.key === FOCUSED_TARGET_SITE) {
      const ratio = bfs.pagesPerSecond > 0 ? focused.pagesPerSecond / bfs.pagesPerSecond : 0;
      results.push({ site: summary.name, target: `Forager focused >= ${TARGET_FOCUSED_RATIO}x bfs pages/s`, value: ratio, pass: ratio >= TARGET_FOCUSED_RATIO });
    }
  }
  return results;
}

function formatNumber(value: number | undefined, digits: number): string {
  if (value === undefined) return '-';
  if (!Number.isFinite(value)) return 'inf';
  return value.toFixed(digits);
}

/** The stage table of each profiled crawl of a site, beside the timed runs' pages/s. */
function formatProfiles(summary: SiteSummary): string[] {
  const lines: string[] = [];
  for (const profile of summary.profiles) {
    const timed = strategyOf(summary, profile.strategy);
    const processMs = profile.threadCpu?.reduce((sum, thread) => sum + (thread.name === PROFILER_THREAD ? 0 : thread.cpuMs), 0);
    const cpu = processMs === undefined ? '' : `; the process's CPU, every thread but the profiler's: ${formatNumber((1000 * processMs) / profile.pages, 0)} ms/1k pages, start-up included`;
    lines.push('');
    lines.push(`  where Forager ${profile.strategy}'s CPU goes: one crawl of ${profile.pages} pages under the profiler (${formatNumber(profile.pagesPerSecond, 1)} pages/s there; timed runs ${formatNumber(timed?.pagesPerSecond, 1)}, bare loop ${formatNumber(summary.bare.pagesPerSecond, 1)})${cpu}`);
    lines.push(formatStageReport(profile.report, '    '));
    const fts = profile.fullText;
    const perThousand = (ms: number): string => formatNumber(fts.pages > 0 ? (1000 * ms) / fts.pages : 0, 0);
    lines.push(
      `    full-text index built again apart, ${fts.pages} pages in batches of ${TEXT_INDEX_BATCH_PAGES} as a crawl writes them, CPU ms/1k pages: inserts ${perThousand(fts.insertMs)}, commits ${perThousand(fts.commitMs)} (empty transactions' ${perThousand(fts.emptyCommitMs)}); the commits' part is inside "store commit" above`,
    );
    if (profile.orderingMs !== undefined) {
      lines.push(`    the engine's own clock on judging and ordering (orderingMs, wall time): ${formatNumber((1000 * profile.orderingMs) / profile.pages, 0)} ms/1k pages`);
    }
  }
  return lines;
}

function formatTable(options: BenchOptions, summaries: SiteSummary[], targets: TargetResult[]): string {
  const lines: string[] = [];
  for (const summary of summaries) {
    const { forager, bare, crawlee } = summary;
    const sides: [string, SideSummary][] = [...forager.map((side): [string, SideSummary] => [`Forager ${side.strategy}`, side]), ['bare loop', bare], ['Crawlee', crawlee]];
    const width = Math.max(12, ...sides.map(([label]) => label.length + 2));
    const row = (label: string, value: (side: SideSummary) => string): string => `  ${label.padEnd(22)}${sides.map(([, side]) => value(side).padStart(width)).join('')}`;
    lines.push('');
    lines.push(`${summary.name}: budget ${summary.budget} pages, concurrency ${CONCURRENCY} (the bare loop: 1), medians of ${options.runs} run(s)`);
    lines.push(`  seed ${summary.seed}`);
    lines.push(`  ${''.padEnd(22)}${sides.map(([label]) => label.padStart(width)).join('')}`);
    lines.push(row('pages fetched', (side) => formatNumber(side.pages, 0)));
    lines.push(row('failed', (side) => formatNumber(side.failed, 0)));
    lines.push(row('pages/s', (side) => formatNumber(side.pagesPerSecond, 1)));
    lines.push(row('MB/s', (side) => formatNumber(side.mbPerSecond, 2)));
    lines.push(row('peak RSS MB', (side) => formatNumber(side.peakRssMB, 0)));
    lines.push(row('seen-cache hit rate', (side) => formatNumber(side.seenCacheHitRate, 3)));
    for (const side of forager) {
      const ofBare = bare.pagesPerSecond > 0 ? side.pagesPerSecond / bare.pagesPerSecond : 0;
      const ofCrawlee = crawlee.pagesPerSecond > 0 ? side.pagesPerSecond / crawlee.pagesPerSecond : Number.POSITIVE_INFINITY;
      lines.push(`  Forager ${side.strategy} pages/s: ${formatNumber(ofBare, 2)}x the bare loop's, ${formatNumber(ofCrawlee, 1)}x Crawlee's`);
    }
    const bfs = strategyOf(summary, 'bfs');
    const focused = strategyOf(summary, 'focused');
    if (bfs !== undefined && focused !== undefined && bfs.pagesPerSecond > 0) lines.push(`  Forager focused / bfs pages/s: ${formatNumber(focused.pagesPerSecond / bfs.pagesPerSecond, 2)}`);
    if (crawlee.truncatedRuns > 0) {
      lines.push(
        `  note: ${crawlee.truncatedRuns} Crawlee run(s) hit the ${options.peerMaxSeconds} s cap; their pages/s is the rate up to the cap`,
      );
    }
    lines.push(...formatProfiles(summary));
  }
  lines.push('');
  lines.push('Targets');
  for (const target of targets) {
    const verdict = target.pass === undefined ? 'SKIP' : target.pass ? 'PASS' : 'MISS';
    const digits = target.target.includes('x Crawlee') ? 1 : target.target.includes('x ') ? 2 : 0;
    const value = target.value === undefined ? 'site not run' : formatNumber(target.value, digits);
    lines.push(`  ${verdict}  ${target.site}: ${target.target} (measured ${value})`);
  }
  return `${lines.join('\n')}\n`;
}

/** Medians of the runs without rules and with them, on one site. */
interface RulesSummary {
  key: string;
  name: string;
  seed: string;
  budget: number;
  plain: SideSummary;
  ruled: SideSummary;
  /** Pages/s with rules over pages/s without (medians). */
  ratio: number;
  /** Whether every run fetched the same number of pages: the rules admit what the plain crawl fetches. */
  samePages: boolean;
  /** The rules' own work, timed apart: the URLs of a crawl with rules, each judged once. */
  matching: RulesMatching;
}

interface RulesMatching {
  urls: number;
  /** Median time to judge one URL, in µs. */
  medianMicros: number;
  /** Judging every URL of the crawl twice (when found, and when taken from its queue), in ms. */
  perCrawlMs: number;
}

/** Times the rules on each URL a crawl stored (100 judgements of each, the median URL's time). */
function timeMatching(origin: string, urls: readonly string[]): RulesMatching {
  const rules = new UrlRules(benchRules(origin));
  const micros = urls.map((url) => {
    const started = performance.now();
    for (let i = 0; i < 100; i++) rules.refusal(url);
    return ((performance.now() - started) * 1000) / 100;
  });
  const total = micros.reduce((sum, us) => sum + us, 0);
  return { urls: urls.length, medianMicros: median(micros), perCrawlMs: (2 * total) / 1000 };
}

function storedUrls(db: string): string[] {
  const handle = openCollection(db, { create: false, readonly: true });
  try {
    return handle.prepare('SELECT url FROM urls').pluck().all() as string[];
  } finally {
    handle.close();
  }
}

async function benchRulesSite(definition: SiteDefinition, site: ServedSite, options: BenchOptions, dbDir: string): Promise<RulesSummary> {
  const budget = options.budget ?? countHtmlFiles(definition.root);
  const ruleArgs = benchRuleArgs(site.origin);
  progress(`\n${definition.name}: ${budget} pages from ${site.seed}, without rules and with ${RULE_COUNTS.include} include and ${RULE_COUNTS.exclude} exclude patterns`);
  const plain: RunMetrics[] = [];
  const ruled: RunMetrics[] = [];
  let urls: string[] = [];
  for (let run = 0; run < options.runs; run++) {
    const once = async (label: string, into: RunMetrics[], args: readonly string[]): Promise<void> => {
      const db = join(dbDir, `${definition.key}-${label}-${run}.db`);
      const { stderr: _stderr, orderingMs: _orderingMs, ...metrics } = await runForager(options, options.strategies[0] as string, site, budget, db, args);
      into.push(metrics);
      progress(`  run ${run + 1}/${options.runs} ${describeRun(label, metrics)}`);
      if (args.length > 0 && urls.length === 0) urls = storedUrls(db);
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(db + suffix, { force: true });
    };
    // Alternating order spreads the machine's slow and fast moments over both sides.
    if (run % 2 === 0) {
      await once('no rules', plain, []);
      await once('rules', ruled, ruleArgs);
    } else {
      await once('rules', ruled, ruleArgs);
      await once('no rules', plain, []);
    }
  }
  const plainSummary = summarise(plain);
  const ruledSummary = summarise(ruled);
  return {
    key: definition.key,
    name: definition.name,
    seed: site.seed,
    budget,
    plain: plainSummary,
    ruled: ruledSummary,
    ratio: plainSummary.pagesPerSecond > 0 ? ruledSummary.pagesPerSecond / plainSummary.pagesPerSecond : 0,
    samePages: [...plain, ...ruled].every((run) => run.pages === plain[0]?.pages),
    matching: timeMatching(site.origin, urls),
  };
}

function formatRulesTable(options: BenchOptions, summaries: RulesSummary[]): string {
  const lines: string[] = [];
  const row = (label: string, plain: string, ruled: string): string => `  ${label.padEnd(22)}${plain.padStart(12)}${ruled.padStart(12)}`;
  for (const summary of summaries) {
    lines.push('');
    lines.push(`${summary.name}: budget ${summary.budget} pages, concurrency ${CONCURRENCY}, medians of ${options.runs} alternating run(s), ordering ${options.strategies[0]}`);
    lines.push(row('', 'no rules', 'rules'));
    lines.push(row('pages fetched', formatNumber(summary.plain.pages, 0), formatNumber(summary.ruled.pages, 0)));
    lines.push(row('pages/s', formatNumber(summary.plain.pagesPerSecond, 1), formatNumber(summary.ruled.pagesPerSecond, 1)));
    lines.push(row('peak RSS MB', formatNumber(summary.plain.peakRssMB, 0), formatNumber(summary.ruled.peakRssMB, 0)));
    lines.push(`  pages/s with rules / without: ${formatNumber(summary.ratio, 3)}${summary.samePages ? '' : ' (the runs fetched different page counts: compare with care)'}`);
    const m = summary.matching;
    const crawlMs = summary.ruled.pagesPerSecond > 0 ? (summary.ruled.pages / summary.ruled.pagesPerSecond) * 1000 : 0;
    lines.push(`  the rules' own work: ${m.urls} URLs, median ${formatNumber(m.medianMicros, 2)} µs a URL, ${formatNumber(m.perCrawlMs, 2)} ms a crawl (${formatNumber(crawlMs > 0 ? (100 * m.perCrawlMs) / crawlMs : 0, 2)}% of its ${formatNumber(crawlMs, 0)} ms)`);
  }
  lines.push('');
  lines.push('Targets');
  for (const summary of summaries) {
    const verdict = summary.ratio >= TARGET_RULES_RATIO && summary.samePages ? 'PASS' : 'MISS';
    lines.push(`  ${verdict}  ${summary.name}: ${RULE_COUNTS.include} include + ${RULE_COUNTS.exclude} exclude patterns keep >= ${TARGET_RULES_RATIO} of the pages/s, same pages (measured ${formatNumber(summary.ratio, 3)})`);
  }
  return `${lines.join('\n')}\n`;
}

async function rulesMain(options: BenchOptions): Promise<void> {
  const summaries: RulesSummary[] = [];
  const dbDir = mkdtempSync(join(tmpdir(), 'forager-bench-rules-'));
  try {
    const server = await startSites(options.sites.map((site) => ({ name: site.name, root: site.root })));
    try {
      for (const [i, definition] of options.sites.entries()) summaries.push(await benchRulesSite(definition, server.sites[i] as ServedSite, options, dbDir));
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dbDir, { recursive: true, force: true });
  }
  const table = formatRulesTable(options, summaries);
  if (options.json) {
    process.stderr.write(table);
    process.stdout.write(`${JSON.stringify({ concurrency: CONCURRENCY, runs: options.runs, rules: RULE_COUNTS, targetRatio: TARGET_RULES_RATIO, sites: summaries })}\n`);
  } else {
    process.stdout.write(table);
  }
  if (options.smoke) {
    const summary = summaries[0] as RulesSummary;
    if (summary.plain.pages === 0 || !summary.samePages) throw new ForagerError('BENCH_CHILD', `the crawls with and without rules fetched different pages of ${summary.name}`, { plain: summary.plain.runs, ruled: summary.ruled.runs });
    reportSmoke({
      benchmark: 'bench:rules',
      peer: 'forager crawl without rules',
      figures: { pages: summary.ruled.pages, rulesPagesPerSecond: summary.ruled.pagesPerSecond, plainPagesPerSecond: summary.plain.pagesPerSecond, ratio: summary.ratio, matchingMicrosPerUrl: summary.matching.medianMicros },
    });
  }
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  checkPrerequisites(options);
  if (options.rules) {
    await rulesMain(options);
    return;
  }
  const summaries: SiteSummary[] = [];
  const dbDir = mkdtempSync(join(tmpdir(), 'forager-bench-'));
  try {
    const server = await startSites(options.sites.map((site) => ({ name: site.name, root: site.root })));
    try {
      for (const [i, definition] of options.sites.entries()) {
        summaries.push(await benchSite(definition, server.sites[i] as ServedSite, options, dbDir));
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dbDir, { recursive: true, force: true });
  }
  const targets = evaluateTargets(options, summaries);
  const table = formatTable(options, summaries, targets);
  if (options.json) {
    process.stderr.write(table);
    process.stdout.write(`${JSON.stringify({ concurrency: CONCURRENCY, runs: options.runs, peerMaxSeconds: options.peerMaxSeconds ?? null, sites: summaries, targets })}\n`);
  } else {
    process.stdout.write(table);
  }
  if (options.smoke) reportSmokeRun(summaries[0] as SiteSummary);
}

/**
 * Every participant must have crawled pages (a peer that fetched nothing did not really run),
 * and a profiled crawl must have had its time put in stages.
 */
function reportSmokeRun(summary: SiteSummary): void {
  const forager = summary.forager[0] as StrategySummary;
  for (const [tool, side] of [['forager', forager], ['the bare loop', summary.bare], ['crawlee', summary.crawlee]] as const) {
    if (side.pages === 0) throw new ForagerError('BENCH_CHILD', `${tool} fetched no page of ${summary.name}`, { seed: summary.seed, runs: side.runs });
  }
  const profile = summary.profiles[0];
  const profiled = profile === undefined ? {} : profileFigures(profile);
  reportSmoke({
    benchmark: 'bench',
    peer: 'Crawlee CheerioCrawler',
    figures: {
      foragerPages: forager.pages,
      foragerPagesPerSecond: forager.pagesPerSecond,
      foragerPeakRssMB: forager.peakRssMB,
      bareLoopPages: summary.bare.pages,
      bareLoopPagesPerSecond: summary.bare.pagesPerSecond,
      crawleePages: summary.crawlee.pages,
      crawleePagesPerSecond: summary.crawlee.pagesPerSecond,
      ratio: summary.ratio,
      ...profiled,
    },
  });
}

/** A profiled crawl's figures for the smoke line: the parse work must have been seen on a worker thread. */
function profileFigures(profile: StageProfile): Record<string, number | undefined> {
  const { report } = profile;
  const parse = report.rows.find((row) => row.stage === 'parse');
  const workerAt = report.threads.findIndex((thread) => thread.thread.startsWith('parse worker'));
  if (parse === undefined || workerAt === -1 || (parse.byThread[workerAt] ?? 0) === 0) {
    throw new ForagerError('BENCH_CHILD', 'the profiled crawl has no parse time on a parse worker: its workers were not profiled', { threads: report.threads });
  }
  if (profile.fullText.pages === 0) throw new ForagerError('BENCH_CHILD', 'the full-text index was rebuilt from no page of the profiled crawl', { fullText: profile.fullText });
  if (process.platform === 'linux' && !report.measured) {
    throw new ForagerError('BENCH_CHILD', "the profiled crawl's threads were not measured (report-thread-cpu.ts)", { threads: report.threads, threadCpu: profile.threadCpu });
  }
  return {
    profiledPages: profile.pages,
    profiledCpuMsPer1000Pages: report.busyUs / profile.pages,
    profiledThreads: report.threads.length,
    profiledThreadsMeasured: report.measured ? 1 : 0,
    fullTextReplayedPages: profile.fullText.pages,
    fullTextCommitMsPer1000Pages: (1000 * profile.fullText.commitMs) / profile.fullText.pages,
  };
}

await runBenchMain(main);
