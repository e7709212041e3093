/**
 * `npm run bench:cluster` (issue 26): the crawl cluster on Redis against a plain crawl.
 *
 * A loopback web of 500 hosts × 10 small pages (test/support/many-host-web.ts, in a process
 * of its own, no latency) is crawled, with the same settings, by a plain `forager crawl
 * --json` (the peer) and by clusters of 1, 2 and 4 `forager worker --json` processes. Each
 * cluster run has a fresh redis-server, cluster name and data directory; each crawling
 * process is pinned with taskset (this 2-core machine: the plain crawl and one worker on
 * core 1, two workers on cores 1 and 0, four sharing them two by two; the web and Redis
 * float, as there is no core to spare for them). Each run's merged collection must hold as
 * many pages as the plain crawl's, else the bench fails. Then, apart, Redis memory per
 * queued cross-partition link: links sent through LinkStreams.send to a cluster with no
 * worker.
 *
 * What the figures mean (printed under the report too):
 *   pages stored       plain: --json "fetched"; cluster: pages of the merged collection
 *   wall s             crawling processes started → last one exited (start-up and, for a
 *                      cluster, the end-of-crawl check included)
 *   span s             the web's request log: first request → end of the last response
 *   pages/s            pages / span ("by wall": pages / wall)
 *   CPU s/1000 pages   user + system CPU of the crawling processes (plain: read at its exit
 *                      by a preloaded hook; workers: their --json figures) + Redis's own
 *                      (INFO used_cpu_user + used_cpu_sys delta), per 1,000 pages
 *   peak RSS MB        VmHWM of each crawling process at exit
 *   Redis peak MB      INFO used_memory_peak (a fresh server per run)
 *   Redis ops/page     INFO total_commands_processed delta, less the bench's own sampling
 *   backlog            entries (batches of ≤ 200 links) waiting in the 256 streams, sampled
 *                      each second with XLEN
 *   bound              which limit the run hit: politeness, CPU, the web, or none (waiting)
 *   bytes per link     (used_memory after − before) / links queued
 * Ratios are of medians over --runs, against the plain crawl's medians of the same bench.
 * Then, on webs of their own (issue 39): focus across the cluster (bench/cluster/focus-figures.ts:
 * on-topic hosts in 1/8 of the partitions, a budget of 20% of the web, PST with 1 and 2 workers
 * against a plain focused crawl, and the web's peak of requests in flight), rendering with one
 * browser per worker (bench/cluster/render-figures.ts; not in a smoke run), and reading the
 * shards without a merge (bench/cluster/shard-reading.ts).
 *
 * Targets: cluster CPU per page ≤ 1.15× the plain crawl's; < 200 bytes of Redis per queued
 * link; 2 pinned workers ≥ 1.5× one pinned worker's pages/s (4 against 1 where the machine
 * has a core for each; here it has not, and the output says so).
 *
 *   npm run bench:cluster -- [--runs 3] [--hosts 500] [--pages-per-host 10] [--workers 1,2,4]
 *     [--delay-ms 10] [--latency-ms 0] [--strategy focused] [--links 100000] [--link-sends 2000,8]
 *     [--forager PATH/bin/forager.js]   (default: this checkout's; a copy of bin/ and dist/ keeps a
 *                                        rebuild during the bench from changing what it measures)
 *   npm run bench:cluster -- --smoke   (40 hosts × 5 pages, one run, 2,000 links; see support/smoke.ts)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ForagerError, UsageError } from '../crawler/errors.ts';
import { spawnManyHostWeb, type ManyHostWebOptions } from '../test/support/many-host-web.ts';
import { REDIS_SERVER_BIN } from '../test/support/redis-server.ts';
import { allowedCores, coresOwn, crawlerCores, planPins, type PinPlan } from './cluster/cores.ts';
import { runCluster } from './cluster/cluster-run.ts';
import { FORAGER_BIN } from './cluster/forager-process.ts';
import { measureLinkMemory, type LinkMemoryResult } from './cluster/link-memory.ts';
import { runPlainCrawl } from './cluster/plain-run.ts';
import { ShardReadingProbe } from './cluster/shard-reading.ts';
import { formatFocusReport, measureClusterFocus, medianFocus, type FocusReport } from './cluster/focus-figures.ts';
import { formatRenderFigures, measureRenderFigures } from './cluster/render-figures.ts';
import { formatBacklog, formatCommandMix, formatLinkMemory, formatRuns, formatTable, formatTargets, LEGEND } from './cluster/report.ts';
import type { RunContext, RunResult } from './cluster/run-result.ts';
import { evaluateTargets, median, summarise, type ConfigSummary } from './cluster/summary.ts';
import { crossPartitionLinks, witnessRun } from './cluster/web-witness.ts';
import { reportSmoke } from './support/smoke.ts';
import { runBenchMain } from './support/run-main.ts';

const TASKSET = '/usr/bin/taskset';
const QUERY = 'database index transaction';

interface BenchOptions {
  runs: number;
  hosts: number;
  pagesPerHost: number;
  workers: number[];
  delayMs: number;
  latencyMs: number;
  strategy: string;
  links: number;
  linkSends: number[];
  smoke: boolean;
  foragerBin: string;
  sampleMs: number;
  timeoutMs: number;
}

function wholeNumber(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${text}"`, { option: name });
  return n;
}

function list(name: string, text: string): number[] {
  return text.split(',').map((part) => wholeNumber(name, part.trim(), 1));
}

function readOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string' },
      hosts: { type: 'string' },
      'pages-per-host': { type: 'string' },
      workers: { type: 'string', default: '1,2,4' },
      'delay-ms': { type: 'string', default: '10' },
      'latency-ms': { type: 'string', default: '0' },
      strategy: { type: 'string', default: 'focused' },
      links: { type: 'string' },
      'link-sends': { type: 'string', default: '2000,8' },
      smoke: { type: 'boolean', default: false },
      forager: { type: 'string', default: FORAGER_BIN },
    },
    strict: true,
  });
  const smoke = values.smoke;
  const options: BenchOptions = {
    runs: wholeNumber('runs', values.runs ?? (smoke ? '1' : '3'), 1),
    hosts: wholeNumber('hosts', values.hosts ?? (smoke ? '40' : '500'), 2),
    pagesPerHost: wholeNumber('pages-per-host', values['pages-per-host'] ?? (smoke ? '5' : '10'), 1),
    workers: list('workers', values.workers),
    delayMs: wholeNumber('delay-ms', values['delay-ms'], 0),
    latencyMs: wholeNumber('latency-ms', values['latency-ms'], 0),
    strategy: values.strategy,
    links: wholeNumber('links', values.links ?? (smoke ? '2000' : '100000'), 1),
    linkSends: list('link-sends', values['link-sends']),
    smoke,
    foragerBin: resolve(values.forager),
    // A smoke run's crawls last seconds: sample often enough to see a backlog at all.
    sampleMs: smoke ? 250 : 1000,
    timeoutMs: (smoke ? 2 : 20) * 60 * 1000,
  };
  if (!options.workers.includes(1)) throw new UsageError('--workers must include 1: the other sizes are compared with one worker', { workers: values.workers });
  return options;
}

/** Missing packages or an unbuilt CLI: say what to do and exit 2, as the other benches do. */
function checkPrerequisites(foragerBin: string): void {
  const missing = [
    [REDIS_SERVER_BIN, 'apt-get install -y redis-server'],
    [TASKSET, 'apt-get install -y util-linux'],
    [foragerBin, 'a checkout of Forager (or --forager PATH/bin/forager.js)'],
    [join(dirname(foragerBin), '..', 'dist', 'crawler', 'cli', 'main.js'), 'npx tsc -p tsconfig.build.json (or npm run build)'],
  ].filter(([path]) => !existsSync(path as string));
  if (missing.length === 0) return;
  process.stderr.write(`bench:cluster is missing:\n${missing.map(([path, fix]) => `  ${path}: ${fix}`).join('\n')}\n`);
  process.exit(2);
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

const MB = 1024 * 1024;

function describeRun(run: RunResult): string {
  const cpu = run.cluster === undefined ? `${run.crawlerCpuSeconds.toFixed(1)} s CPU` : `${run.crawlerCpuSeconds.toFixed(1)} s CPU + Redis ${run.cluster.redisCpuSeconds.toFixed(2)} s`;
  const rss = run.peakRssBytes.map((b) => (b / MB).toFixed(0)).join(', ');
  const cluster =
    run.cluster === undefined
      ? ''
      : `, workers stored ${run.cluster.pagesPerWorker.join('+')}, backlog max ${Math.max(0, ...run.cluster.backlog.map((s) => s.entries))} entries, merge ${run.cluster.mergeSeconds.toFixed(1)} s`;
  return `${run.label}: ${run.pages} pages, ${run.wallSeconds.toFixed(1)} s wall, ${cpu}, peak RSS MB ${rss}${cluster}`;
}

/** A cluster's merged collection must hold what the plain crawl stored: otherwise its figures describe another crawl. */
function checkReal(run: RunResult, plain: RunResult): void {
  if (run.cluster === undefined) return;
  if (run.pages !== plain.pages) {
    throw new ForagerError('BENCH_CHILD', `${run.label}: the merged collection holds ${run.pages} pages, the plain crawl of the same web ${plain.pages}: this run did not crawl the web`, {
      merged: run.pages,
      plain: plain.pages,
      pagesPerWorker: run.cluster.pagesPerWorker,
      problems: run.cluster.problems,
    });
  }
  const stored = run.cluster.pagesPerWorker.reduce((a, b) => a + b, 0);
  if (stored !== run.pages) run.cluster.problems.push(`the workers stored ${stored} pages, the merge holds ${run.pages}: pages were stored by two owners or not counted`);
}

interface Plan {
  label: string;
  run: (round: number) => Promise<RunResult>;
}

function plans(options: BenchOptions, context: RunContext, pins: PinPlan, shardReading: ShardReadingProbe): Plan[] {
  const plain: Plan = { label: 'plain crawl', run: (round) => runPlainCrawl(context, crawlerCores(pins, 1)[0], `r${round}`) };
  const clusters = options.workers.map(
    (n): Plan => ({
      label: `${n} worker${n === 1 ? '' : 's'}`,
      run: (round) => runCluster(context, { cores: crawlerCores(pins, n), redisCore: pins.redis, tag: `r${round}-w${n}`, readShards: shardReading.hookFor(round, n) }),
    }),
  );
  return [plain, ...clusters];
}

function describePins(pins: PinPlan, workers: readonly number[]): string {
  const placed = workers.map((n) => `${n} worker${n === 1 ? '' : 's'} → core${n === 1 ? '' : 's'} ${crawlerCores(pins, n).join(',')}${coresOwn(pins, n) ? '' : ' (shared: fewer cores than workers)'}`);
  const rest = pins.web === undefined ? 'the web and Redis float over all cores (none to spare)' : `the web on core ${pins.web}, Redis on core ${pins.redis}`;
  return `cores ${pins.cores.join(',')}; plain crawl → core ${crawlerCores(pins, 1).join(',')}; ${placed.join('; ')}; ${rest}`;
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  checkPrerequisites(options.foragerBin);
  const pins = planPins(allowedCores(), Math.max(...options.workers));
  const tmp = mkdtempSync(join(tmpdir(), 'forager-cluster-bench-'));
  const usageDir = join(tmp, 'usage');
  mkdirSync(usageDir);
  const webOptions: ManyHostWebOptions = { hosts: options.hosts, pagesPerHost: options.pagesPerHost, seed: 1, latencyMs: options.latencyMs };
  const web = await spawnManyHostWeb(webOptions, pins.web === undefined ? {} : { cpuList: String(pins.web) });
  let webStopped = false;
  try {
    const context: RunContext = {
      foragerBin: options.foragerBin,
      shape: { query: QUERY, seeds: web.seeds, maxPages: options.hosts * options.pagesPerHost * 10, delayMs: options.delayMs, strategy: options.strategy },
      webPid: web.pid,
      tmp,
      usageDir,
      timeoutMs: options.timeoutMs,
      sampleMs: options.sampleMs,
    };
    const header = [
      `bench:cluster: a loopback web of ${options.hosts} hosts × ${options.pagesPerHost} pages, response latency ${options.latencyMs} ms, crawled by a plain \`forager crawl\` and by clusters of ${options.workers.join(', ')} workers; medians of ${options.runs} run(s)`,
      `  settings (both): --query "${QUERY}", ${web.seeds.length} seeds, --allow-private --scope any --max-pages ${context.shape.maxPages} --delay-ms ${options.delayMs} --delay-factor 0 --strategy ${options.strategy}; default concurrency (per worker: its shards share its request slots)`,
      `  pins: ${describePins(pins, options.workers)}`,
      `  CLI measured: ${options.foragerBin}`,
    ].join('\n');
    progress(header);

    const shardReading = new ShardReadingProbe(QUERY, Math.max(...options.workers));
    const configs = plans(options, context, pins, shardReading);
    const results = new Map<string, RunResult[]>(configs.map((c) => [c.label, []]));
    for (let round = 1; round <= options.runs; round++) {
      // Each round starts with another configuration, so that a slow stretch of a shared machine is spread over them.
      const order = configs.map((_, i) => configs[(i + round - 1) % configs.length] as Plan);
      const done = new Map<string, RunResult>();
      for (const config of order) {
        const run = await config.run(round);
        done.set(config.label, run);
        (results.get(config.label) as RunResult[]).push(run);
        progress(`  run ${round}/${options.runs} ${describeRun(run)}`);
      }
      const plain = done.get('plain crawl') as RunResult;
      for (const run of done.values()) checkReal(run, plain);
    }

    const log = await web.stop();
    webStopped = true;
    for (const runs of results.values()) {
      for (const run of runs) {
        run.witness = witnessRun(log, run.from, run.to, options.delayMs);
        if (run.cluster !== undefined && run.witness.pagesRequestedTwice > 0) run.cluster.problems.push(`${run.witness.pagesRequestedTwice} pages were requested more than once`);
      }
    }

    // Focus across the cluster (targets 1 and 2), on a web of its own; a smoke run crawls a small one with one worker.
    const focusReports: FocusReport[] = [];
    for (let round = 1; round <= options.runs; round++) {
      focusReports.push(
        await measureClusterFocus(
          { foragerBin: options.foragerBin, hosts: options.smoke ? 64 : 256, pagesPerHost: options.smoke ? 5 : 20, concurrency: 8, basePort: 24_000, latencyMs: 20, timeoutMs: options.timeoutMs },
          options.smoke ? [1] : [1, 2],
        ),
      );
      progress(`  focus run ${round}/${options.runs}: ${(focusReports.at(-1) as FocusReport).runs.map((r) => `${r.label} PST ${r.pst.toFixed(3)}`).join(', ')}`);
    }
    const focus = medianFocus(focusReports);
    // Rendering (target 3): one browser per worker against a plain crawl's; left out of a smoke run (bench:render has its own).
    const rendering = options.smoke ? undefined : await measureRenderFigures({ foragerBin: options.foragerBin, tmp, usageDir, timeoutMs: options.timeoutMs });

    const linkMemory: LinkMemoryResult[] = [];
    for (const size of options.linkSends) {
      const m = await measureLinkMemory(options.links, size);
      linkMemory.push(m);
      progress(`  Redis memory per queued link, sends of ${size}: ${m.bytesPerLink.toFixed(0)} bytes`);
    }

    const machineCores = pins.cores.length;
    const summaries = configs.map((c) => summarise(c.label, results.get(c.label) as RunResult[], machineCores));
    const [plainSummary, ...clusterSummaries] = summaries as [ConfigSummary, ...ConfigSummary[]];
    const crossLinks = crossPartitionLinks(webOptions, web.origins);
    const clusterRuns = clusterSummaries.flatMap((s) => s.runs);
    const linksPerEntry = median(clusterRuns.map((r) => crossLinks / (r.cluster?.redisCalls.get('xadd') ?? Number.NaN)).filter(Number.isFinite));
    const targets = evaluateTargets(plainSummary, clusterSummaries, linkMemory, (n) => coresOwn(pins, n));
    const problems = clusterSummaries.flatMap((s) => s.runs.flatMap((r, i) => (r.cluster?.problems ?? []).map((p) => `  ${s.label}, run ${i + 1}: ${p}`)));

    const report = [
      '',
      header,
      '',
      formatTable(plainSummary, clusterSummaries),
      '',
      'Each run: the bound it hit',
      formatRuns(summaries),
      '',
      `Stream backlog over time (first run of each size; XLEN of the 256 streams every ${options.sampleMs} ms, "(N p)" = pages the workers had reported stored by then)`,
      ...clusterSummaries.map((s) => formatBacklog(s.label, s.runs[0]?.cluster?.backlog ?? [])),
      '',
      'Redis commands per page (first run of each size, the bench\'s own sampling left out)',
      ...clusterSummaries.map((s) => formatCommandMix(s.runs[0] as RunResult)),
      '',
      'Redis memory per queued cross-partition link (a fresh Redis, a cluster with no worker; LinkStreams.send)',
      formatLinkMemory(linkMemory, Number.isFinite(linksPerEntry) ? linksPerEntry : undefined),
      '',
      'Workers\' logs and the cluster\'s error list (routine lines left out)',
      problems.length === 0 ? '  nothing' : problems.join('\n'),
      '',
      formatFocusReport(focus),
      '',
      ...(rendering === undefined ? ['Rendering (target 3): not measured in a smoke run'] : formatRenderFigures(rendering)),
      '',
      'Reading the shards without a merge (forager serve --shards; target 6)',
      shardReading.report(),
      '',
      'Targets',
      formatTargets(targets),
      '',
      LEGEND,
      '',
    ].join('\n');
    process.stdout.write(report);
    if (options.smoke) reportSmokeRun(plainSummary, clusterSummaries, linkMemory, { ...shardReading.figures(), ...Object.fromEntries(focus.runs.map((r) => [`focusPst ${r.label}`, r.pst])) });
  } finally {
    if (!webStopped) web.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The peer (the plain crawl) and every cluster must have crawled the web; every figure must be a number. */
function reportSmokeRun(plain: ConfigSummary, clusters: readonly ConfigSummary[], linkMemory: readonly LinkMemoryResult[], shardReading: Record<string, number>): void {
  if (!(plain.pages > 0)) throw new ForagerError('BENCH_CHILD', 'the plain crawl stored no page', { runs: plain.runs.length });
  const figures: Record<string, unknown> = {
    plainPages: plain.pages,
    plainPagesPerSecond: plain.pagesPerSecond,
    plainCpuPerThousandPages: plain.cpuPerThousand,
  };
  for (const c of clusters) {
    figures[`workers${c.workers}Pages`] = c.pages;
    figures[`workers${c.workers}PagesPerSecond`] = c.pagesPerSecond;
    figures[`workers${c.workers}CpuPerThousandPages`] = c.cpuPerThousand;
    figures[`workers${c.workers}RedisOpsPerPage`] = c.redisOpsPerPage;
    figures[`workers${c.workers}PeakRssMb`] = c.peakRssMb;
    figures[`workers${c.workers}RedisPeakMb`] = c.redisPeakMb;
  }
  for (const m of linkMemory) figures[`redisBytesPerLinkSends${m.linksPerSend}`] = m.bytesPerLink;
  Object.assign(figures, shardReading);
  reportSmoke({ benchmark: 'bench:cluster', peer: 'forager crawl', figures });
}

await runBenchMain(main);
