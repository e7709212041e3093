/*
 * What one run (the plain crawl, or a cluster of N workers) measured, and what every run
 * shares: the web, the crawl's flags, where temporary files go. The figures that come from
 * the web's request log (its span, pages asked for twice) are filled in at the end, when the
 * web has been stopped and its log read.
 */
import type { BacklogSample } from './backlog-sampler.ts';
import type { CrawlShape } from './crawl-flags.ts';
import { busyShare, machineTimes, processCpuSeconds } from './proc-usage.ts';
import type { RunWitness } from './web-witness.ts';

export interface RunContext {
  shape: CrawlShape;
  /** bin/forager.js of the CLI measured. */
  foragerBin: string;
  /** The web's process, whose CPU each run reads. */
  webPid: number;
  /** Temporary directory of the whole bench (databases, shards, usage files). */
  tmp: string;
  usageDir: string;
  timeoutMs: number;
  sampleMs: number;
}

export interface ClusterFigures {
  redisCpuSeconds: number;
  /** Commands the crawl made Redis process (the bench's own sampling left out). */
  redisCommands: number;
  redisUsedMemoryPeak: number;
  /** Calls by command, the bench's own left out. */
  redisCalls: Map<string, number>;
  backlog: BacklogSample[];
  pagesPerWorker: number[];
  /** Shards the workers opened, and the seconds they spent opening and closing them (their --json figures). */
  shardsOpened: number;
  shardSeconds: number;
  /** Lines of the workers' logs that report trouble, and the cluster's own error list. */
  problems: string[];
  mergeSeconds: number;
  mergedPages: number;
}

export interface RunResult {
  /** "plain crawl", "1 worker", "2 workers"… */
  label: string;
  workers: number;
  cores: number[];
  /** Pages stored: the plain crawl's `fetched`, a cluster's merged collection's pages. */
  pages: number;
  wallSeconds: number;
  /** Epoch ms: the first process started, the last one ended. */
  from: number;
  to: number;
  /** The crawling processes' CPU (the plain crawl, or every worker), in seconds. */
  crawlerCpuSeconds: number;
  peakRssBytes: number[];
  webCpuSeconds: number;
  /** Share of all the machine's cores busy over the run, whoever used them. */
  machineBusy: number;
  cluster: ClusterFigures | undefined;
  witness: RunWitness | undefined;
}

/** CPU of the whole run: the crawlers and, for a cluster, Redis. */
export function runCpuSeconds(run: RunResult): number {
  return run.crawlerCpuSeconds + (run.cluster?.redisCpuSeconds ?? 0);
}

/** Runs `body` and adds what the machine and the web did meanwhile. */
export async function measured(context: RunContext, body: () => Promise<Omit<RunResult, 'webCpuSeconds' | 'machineBusy' | 'witness'>>): Promise<RunResult> {
  const machineBefore = machineTimes();
  const webBefore = processCpuSeconds(context.webPid) ?? 0;
  const run = await body();
  const webAfter = processCpuSeconds(context.webPid) ?? webBefore;
  return { ...run, webCpuSeconds: webAfter - webBefore, machineBusy: busyShare(machineBefore, machineTimes()), witness: undefined };
}
