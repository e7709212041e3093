/**
 * Throughput benchmark: Forager's crawler against Crawlee's CheerioCrawler on whole
 * documentation sites served by a private nginx over loopback. Each participant runs
 * as its own child process with the same page budget and concurrency; runs alternate
 * order to spread machine noise, and the report shows medians.
 *
 *   npm run bench -- [--sites python,git] [--runs 3] [--peer-max-seconds 300] [--json]
 *   npm run bench -- --smoke   (git-doc, one run pair, a budget of 40 pages; see support/smoke.ts)
 *
 * With --rules (`npm run bench:rules`) it measures what include and exclude rules cost
 * instead: Forager alone, runs without rules alternating with runs with 20 include and 20
 * exclude patterns that admit every page the plain run fetches (support/bench-rules.ts).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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

const REPO_ROOT = resolve(import.meta.dirname, '..');
const PEER_SCRIPT = join(REPO_ROOT, 'bench', 'peers', 'crawlee-crawl.ts');
const CONCURRENCY = 8;
const BYTES_PER_MB = 1024 * 1024;
const FORAGER_TIMEOUT_MS = 30 * 60 * 1000;
const PEER_EXIT_SLACK_MS = 2 * 60 * 1000;
const INSTALL_HINT = 'apt-get install -y nginx-light python3.11-doc git-doc';

const TARGET_PAGES_PER_SECOND = 100;
const TARGET_RATIO = 10;
const TARGET_PEAK_RSS_MB = 300;
const PAGES_PER_SECOND_TARGET_SITE = 'python';
/** A smoke run's page budget and its cap on the peer: enough for both tools to crawl for real. */
const SMOKE_BUDGET = 40;
const SMOKE_PEER_MAX_SECONDS = 20;
/** The rules' target: a crawl with them keeps at least this share of the pages/s of one without. */
const TARGET_RULES_RATIO = 0.97;

interface SiteDefinition {
  key: string;
  name: string;
  root: string;
}

const SITES: readonly SiteDefinition[] = [
  { key: 'python', name: 'python3.11-doc', root: '/usr/share/doc/python3.11/html' },
  { key: 'git', name: 'git-doc', root: '/usr/share/doc/git/html' },
];

interface BenchOptions {
  sites: SiteDefinition[];
  runs: number;
  peerMaxSeconds: number | undefined;
  json: boolean;
  foragerBin: string;
  /** Forager's ordering strategy: bfs by default, to measure the crawl core; `--strategy focused` measures the product default. */
  strategy: string;
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

interface SiteSummary {
  key: string;
  name: string;
  seed: string;
  budget: number;
  forager: SideSummary;
  crawlee: SideSummary;
  ratio: number;
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
      smoke: { type: 'boolean', default: false },
      rules: { type: 'boolean', default: false },
    },
    strict: true,
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
  const options = { sites, runs, peerMaxSeconds: cap === 0 ? undefined : cap, json: values.json, foragerBin: resolve(values.forager), strategy: values.strategy, budget: undefined, smoke: values.smoke, rules: values.rules };
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

async function runForager(options: BenchOptions, site: ServedSite, budget: number, db: string, extraArgs: readonly string[] = []): Promise<RunMetrics> {
  const args = [
    ...shebangNodeFlags(options.foragerBin),
    options.foragerBin,
    'crawl',
    '--db', db,
    '--query', 'benchmark',
    '--seed', site.seed,
    '--max-pages', String(budget),
    '--delay-ms', '0',
    '--delay-factor', '0',
    '--strategy', options.strategy,
    '--concurrency', String(CONCURRENCY),
    // Like for like with CheerioCrawler, which fetches HTML only: no browser, no page requisites.
    '--render', 'never',
    '--requisites', 'none',
    '--json',
    ...extraArgs,
  ];
  const { json } = await runJsonChild(process.execPath, args, { cwd: REPO_ROOT, timeoutMs: FORAGER_TIMEOUT_MS, label: 'forager' });
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
  };
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

async function benchSite(definition: SiteDefinition, site: ServedSite, options: BenchOptions, dbDir: string): Promise<SiteSummary> {
  const budget = options.budget ?? countHtmlFiles(definition.root);
  progress(`\n${definition.name}: ${budget} pages from ${site.seed}`);
  const forager: RunMetrics[] = [];
  const crawlee: RunMetrics[] = [];
  for (let run = 0; run < options.runs; run++) {
    const db = join(dbDir, `${definition.key}-${run}.db`);
    const runForagerOnce = async (): Promise<void> => {
      const metrics = await runForager(options, site, budget, db);
      forager.push(metrics);
      progress(`  run ${run + 1}/${options.runs} ${describeRun('forager', metrics)}`);
    };
    const runCrawleeOnce = async (): Promise<void> => {
      const metrics = await runCrawlee(options, site, budget);
      crawlee.push(metrics);
      progress(`  run ${run + 1}/${options.runs} ${describeRun('crawlee', metrics)}`);
    };
    if (run % 2 === 0) {
      await runForagerOnce();
      await runCrawleeOnce();
    } else {
      await runCrawleeOnce();
      await runForagerOnce();
    }
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(db + suffix, { force: true });
  }
  const foragerSummary = summarise(forager);
  const crawleeSummary = summarise(crawlee);
  return {
    key: definition.key,
    name: definition.name,
    seed: site.seed,
    budget,
    forager: foragerSummary,
    crawlee: crawleeSummary,
    ratio: crawleeSummary.pagesPerSecond > 0 ? foragerSummary.pagesPerSecond / crawleeSummary.pagesPerSecond : Number.POSITIVE_INFINITY,
  };
}

function evaluateTargets(summaries: SiteSummary[]): TargetResult[] {
  const results: TargetResult[] = [];
  const speedSite = summaries.find((summary) => summary.key === PAGES_PER_SECOND_TARGET_SITE);
  const speedName = SITES.find((site) => site.key === PAGES_PER_SECOND_TARGET_SITE)?.name ?? PAGES_PER_SECOND_TARGET_SITE;
  results.push({
    site: speedName,
    target: `Forager >= ${TARGET_PAGES_PER_SECOND} pages/s`,
    value: speedSite?.forager.pagesPerSecond,
    pass: speedSite === undefined ? undefined : speedSite.forager.pagesPerSecond >= TARGET_PAGES_PER_SECOND,
  });
  for (const summary of summaries) {
    results.push({
      site: summary.name,
      target: `Forager >= ${TARGET_RATIO}x Crawlee pages/s`,
      value: summary.ratio,
      pass: summary.ratio >= TARGET_RATIO,
    });
    results.push({
      site: summary.name,
      target: `Forager peak RSS < ${TARGET_PEAK_RSS_MB} MB`,
      value: summary.forager.peakRssMB,
      pass: summary.forager.peakRssMB < TARGET_PEAK_RSS_MB,
    });
  }
  return results;
}

function formatNumber(value: number | undefined, digits: number): string {
  if (value === undefined) return '-';
  if (!Number.isFinite(value)) return 'inf';
  return value.toFixed(digits);
}

function formatTable(options: BenchOptions, summaries: SiteSummary[], targets: TargetResult[]): string {
  const lines: string[] = [];
  const row = (label: string, forager: string, crawlee: string): string =>
    `  ${label.padEnd(22)}${forager.padStart(12)}${crawlee.padStart(12)}`;
  for (const summary of summaries) {
    const { forager, crawlee } = summary;
    lines.push('');
    lines.push(`${summary.name}: budget ${summary.budget} pages, concurrency ${CONCURRENCY}, medians of ${options.runs} run(s), Forager ordering ${options.strategy}`);
    lines.push(`  seed ${summary.seed}`);
    lines.push(row('', 'Forager', 'Crawlee'));
    lines.push(row('pages fetched', formatNumber(forager.pages, 0), formatNumber(crawlee.pages, 0)));
    lines.push(row('failed', formatNumber(forager.failed, 0), formatNumber(crawlee.failed, 0)));
    lines.push(row('pages/s', formatNumber(forager.pagesPerSecond, 1), formatNumber(crawlee.pagesPerSecond, 1)));
    lines.push(row('MB/s', formatNumber(forager.mbPerSecond, 2), formatNumber(crawlee.mbPerSecond, 2)));
    lines.push(row('peak RSS MB', formatNumber(forager.peakRssMB, 0), formatNumber(crawlee.peakRssMB, 0)));
    lines.push(row('seen-cache hit rate', formatNumber(forager.seenCacheHitRate, 3), '-'));
    lines.push(`  Forager/Crawlee pages/s: ${formatNumber(summary.ratio, 1)}x`);
    if (crawlee.truncatedRuns > 0) {
      lines.push(
        `  note: ${crawlee.truncatedRuns} Crawlee run(s) hit the ${options.peerMaxSeconds} s cap; their pages/s is the rate up to the cap`,
      );
    }
  }
  lines.push('');
  lines.push('Targets');
  for (const target of targets) {
    const verdict = target.pass === undefined ? 'SKIP' : target.pass ? 'PASS' : 'MISS';
    const digits = target.target.includes('x Crawlee') ? 1 : 0;
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
      const metrics = await runForager(options, site, budget, db, args);
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
    lines.push(`${summary.name}: budget ${summary.budget} pages, concurrency ${CONCURRENCY}, medians of ${options.runs} alternating run(s), ordering ${options.strategy}`);
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
  const targets = evaluateTargets(summaries);
  const table = formatTable(options, summaries, targets);
  if (options.json) {
    process.stderr.write(table);
    process.stdout.write(`${JSON.stringify({ concurrency: CONCURRENCY, runs: options.runs, peerMaxSeconds: options.peerMaxSeconds ?? null, sites: summaries, targets })}\n`);
  } else {
    process.stdout.write(table);
  }
  if (options.smoke) reportSmokeRun(summaries[0] as SiteSummary);
}

/** Both tools must have crawled pages: a peer that fetched nothing did not really run. */
function reportSmokeRun(summary: SiteSummary): void {
  for (const [tool, side] of [['forager', summary.forager], ['crawlee', summary.crawlee]] as const) {
    if (side.pages === 0) throw new ForagerError('BENCH_CHILD', `${tool} fetched no page of ${summary.name}`, { seed: summary.seed, runs: side.runs });
  }
  reportSmoke({
    benchmark: 'bench',
    peer: 'Crawlee CheerioCrawler',
    figures: {
      foragerPages: summary.forager.pages,
      foragerPagesPerSecond: summary.forager.pagesPerSecond,
      foragerPeakRssMB: summary.forager.peakRssMB,
      crawleePages: summary.crawlee.pages,
      crawleePagesPerSecond: summary.crawlee.pagesPerSecond,
      ratio: summary.ratio,
    },
  });
}

await runBenchMain(main);
