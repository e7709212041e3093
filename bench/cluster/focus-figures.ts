/*
 * Focus across a cluster (issue 39, targets 1 and 2): is a focused crawl spread over 1 or 2
 * workers still one focused crawl? A loopback web of `hosts` hosts whose on-topic hosts all
 * fall in 1/8 of the partitions (the hosts on fixed ports, so each host's partition is known
 * before the web starts) is crawled with a page budget of 20% of the web by a plain focused
 * `forager crawl` and by clusters of 1 and 2 workers, the same flags each time. PST at the
 * budget = on-topic pages fetched / all on-topic pages. The web's own log gives the most
 * requests it served at once; with one worker that is the worker's in-flight count.
 *
 *   npx node bench/cluster/focus-figures.ts [--hosts 256] [--pages-per-host 20] [--runs 1] [--concurrency 8] [--latency-ms 20] [--json]
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { partitionOf } from '../../crawler/cluster/partition.ts';
import { PARTITIONS } from '../../crawler/store/shard-names.ts';
import { peakInFlight, startManyHostWeb, type ManyHostWeb } from '../../test/support/many-host-web.ts';
import { startRedisServer } from '../../test/support/redis-server.ts';
import { crawlFlags, type CrawlShape } from './crawl-flags.ts';
import { FORAGER_BIN, runForagerJson, startForager } from './forager-process.ts';

const TOPIC = 'databases';
const QUERY = 'database index transaction';
/** The on-topic hosts' partitions: this share of them. */
const TOPICAL_PARTITION_SHARE = 1 / 8;
const BUDGET_SHARE = 0.2;

export interface FocusOptions {
  /** bin/forager.js of the CLI measured. */
  foragerBin: string;
  hosts: number;
  pagesPerHost: number;
  concurrency: number;
  basePort: number;
  /** Each response is sent this long after its request came: requests overlap, so the log shows how many were in flight. */
  latencyMs: number;
  timeoutMs: number;
}

export interface FocusRun {
  label: string;
  /** Pages stored (the budget's spend). */
  pages: number;
  onTopic: number;
  pst: number;
  /** The most requests the web served at once. */
  peakInFlight: number;
  seconds: number;
}

export interface FocusReport {
  hosts: number;
  pages: number;
  topicalHosts: number;
  topicalPartitions: number;
  onTopicPages: number;
  budget: number;
  concurrency: number;
  runs: FocusRun[];
}

/** The partitions the on-topic hosts may fall in: the first 1/8, by number (a hash decides which hosts they hold). */
function topicalHostsOf(hosts: number, basePort: number): { hosts: number[]; partitions: Set<number> } {
  const partitions = new Set<number>();
  const topical: number[] = [];
  const limit = Math.floor(PARTITIONS * TOPICAL_PARTITION_SHARE);
  for (let h = 0; h < hosts; h++) {
    const partition = partitionOf(`http://127.0.0.1:${basePort + h}/`);
    if (partition < limit) {
      topical.push(h);
      partitions.add(partition);
    }
  }
  return { hosts: topical, partitions };
}


/** The stored pages' URLs of a collection file. */
function storedUrls(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

function scoreRun(label: string, urls: readonly string[], web: ManyHostWeb, topical: ReadonlySet<number>, onTopicPages: number, logFrom: number, seconds: number): FocusRun {
  const pages = urls.filter((u) => !u.endsWith('/robots.txt') && !u.endsWith('/sitemap.xml'));
  const onTopic = pages.filter((u) => topical.has(web.hostIndex(new URL(u).origin))).length;
  return { label, pages: pages.length, onTopic, pst: onTopic / onTopicPages, peakInFlight: peakInFlight(web.log.slice(logFrom)), seconds };
}

export async function measureClusterFocus(options: FocusOptions, workerCounts: readonly number[] = [1, 2]): Promise<FocusReport> {
  const { hosts: topicalHosts, partitions } = topicalHostsOf(options.hosts, options.basePort);
  const web = await startManyHostWeb({
    hosts: options.hosts, pagesPerHost: options.pagesPerHost, seed: 5, basePort: options.basePort, latencyMs: options.latencyMs, topical: { topic: TOPIC, hosts: topicalHosts },
  });
  const tmp = mkdtempSync(join(tmpdir(), 'forager-cluster-focus-'));
  const topical = new Set(topicalHosts);
  const webPages = options.hosts * options.pagesPerHost;
  const budget = Math.round(BUDGET_SHARE * webPages);
  const shape: CrawlShape = { query: QUERY, seeds: web.seeds, maxPages: budget, delayMs: 10, strategy: 'focused' };
  const flags = [...crawlFlags(shape), '--concurrency', String(options.concurrency)];
  const forager = { bin: options.foragerBin, timeoutMs: options.timeoutMs, usageDir: tmp };
  const onTopicPages = topicalHosts.length * options.pagesPerHost;
  const runs: FocusRun[] = [];
  try {
    const plainDb = join(tmp, 'plain.forager');
    let from = web.log.length;
    let started = performance.now();
    await runForagerJson(['crawl', '--db', plainDb, ...flags, '--json'], { ...forager, label: 'plain focused crawl' });
    runs.push(scoreRun('plain crawl', storedUrls(plainDb), web, topical, onTopicPages, from, (performance.now() - started) / 1000));
    for (const workers of workerCounts) {
      const redis = await startRedisServer();
      try {
        const name = `focus-${workers}`;
        const dir = join(tmp, `shards-${workers}`);
        await startForager(['cluster', 'create', '--redis', redis.url, '--name', name, ...flags], { ...forager, label: 'cluster create' }).done;
        from = web.log.length;
        started = performance.now();
        const running = Array.from({ length: workers }, (_, i) =>
          startForager(['worker', '--redis', redis.url, '--name', name, '--dir', dir, '--json'], { ...forager, label: `worker ${i + 1} of ${workers}` }),
        );
        await Promise.all(running.map((r) => r.done));
        const seconds = (performance.now() - started) / 1000;
        const urls = readdirSync(dir).filter((f) => f.endsWith('.forager')).flatMap((f) => storedUrls(join(dir, f)));
        runs.push(scoreRun(`${workers} worker${workers === 1 ? '' : 's'}`, urls, web, topical, onTopicPages, from, seconds));
      } finally {
        await redis.close();
      }
    }
  } finally {
    await web.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  return { hosts: options.hosts, pages: webPages, topicalHosts: topicalHosts.length, topicalPartitions: partitions.size, onTopicPages, budget, concurrency: options.concurrency, runs };
}

/** Each run's label with the median of its PST and peak in flight over several reports of the same web. */
export function medianFocus(reports: readonly FocusReport[]): FocusReport {
  const first = reports[0] as FocusReport;
  const middle = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] as number;
  return {
    ...first,
    runs: first.runs.map((run, i) => {
      const same = reports.map((r) => r.runs[i] as FocusRun);
      return { ...run, onTopic: middle(same.map((r) => r.onTopic)), pst: middle(same.map((r) => r.pst)), peakInFlight: Math.max(...same.map((r) => r.peakInFlight)), seconds: middle(same.map((r) => r.seconds)) };
    }),
  };
}

export function formatFocusReport(report: FocusReport): string {
  const plain = report.runs[0] as FocusRun;
  const lines = [
    `Focus across a cluster: ${report.hosts} hosts × ${report.pages / report.hosts} pages; ${report.topicalHosts} on-topic hosts in ${report.topicalPartitions} partitions (≤ 1/8 of ${PARTITIONS}), ${report.onTopicPages} on-topic pages; budget ${report.budget} pages (20%); --concurrency ${report.concurrency}`,
    `${'run'.padEnd(12)} ${'pages'.padStart(6)} ${'on-topic'.padStart(9)} ${'PST'.padStart(6)} ${'× plain'.padStart(8)} ${'peak in flight'.padStart(15)} ${'s'.padStart(6)}`,
  ];
  for (const run of report.runs) {
    lines.push(`${run.label.padEnd(12)} ${String(run.pages).padStart(6)} ${String(run.onTopic).padStart(9)} ${run.pst.toFixed(3).padStart(6)} ${(run.pst / plain.pst).toFixed(2).padStart(8)} ${String(run.peakInFlight).padStart(15)} ${run.seconds.toFixed(1).padStart(6)}`);
  }
  lines.push('(with several runs: the median PST and time, the highest peak in flight)');
  lines.push('Targets: PST with 1 and 2 workers ≥ 0.95× the plain crawl\'s; with 1 worker, peak in flight ≤ --concurrency (2 workers: ≤ 2 × it).');
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      hosts: { type: 'string' }, 'pages-per-host': { type: 'string' }, concurrency: { type: 'string' }, workers: { type: 'string' }, 'base-port': { type: 'string' }, 'latency-ms': { type: 'string' }, json: { type: 'boolean' },
    },
  });
  const report = await measureClusterFocus(
    {
      foragerBin: FORAGER_BIN,
      hosts: Number(values.hosts ?? 256),
      pagesPerHost: Number(values['pages-per-host'] ?? 20),
      concurrency: Number(values.concurrency ?? 8),
      latencyMs: Number(values['latency-ms'] ?? 20),
      basePort: Number(values['base-port'] ?? 24_000),
      timeoutMs: 900_000,
    },
    (values.workers ?? '1,2').split(',').map(Number),
  );
  process.stdout.write(values.json === true ? `${JSON.stringify(report)}\n` : `${formatFocusReport(report)}\n`);
}
