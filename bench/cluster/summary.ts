/*
 * Medians over the runs of each configuration (the plain crawl, each cluster size), ratios
 * against the plain crawl's medians of the same bench, and the targets of issue 26.
 */
import { boundOf, crawlerBusy, type Bound } from './bounds.ts';
import type { LinkMemoryResult } from './link-memory.ts';
import { runCpuSeconds, type RunResult } from './run-result.ts';

export const TARGETS = { cpuRatio: 1.15, bytesPerLink: 200, twoWorkerSpeedup: 1.5 } as const;

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export interface ConfigSummary {
  label: string;
  workers: number;
  runs: RunResult[];
  pages: number;
  wallSeconds: number;
  spanSeconds: number;
  /** Pages over the web's span (the crawl itself), and over the wall time (processes included). */
  pagesPerSecond: number;
  pagesPerSecondWall: number;
  cpuPerThousand: number;
  redisCpuPerThousand: number | undefined;
  /** Seconds per 1,000 pages the workers spent opening and closing shards (a cost per partition, not per page). */
  shardPerThousand: number | undefined;
  shardsOpened: number | undefined;
  /** The largest process's peak RSS (MB), median over runs. */
  peakRssMb: number;
  redisPeakMb: number | undefined;
  redisOpsPerPage: number | undefined;
  backlogMaxEntries: number | undefined;
  mergeSeconds: number | undefined;
  crawlerBusy: number;
  machineBusy: number;
  /** Each run's bound (they may differ). */
  bounds: Bound[];
}

const MB = 1024 * 1024;

function clusterMedian(runs: readonly RunResult[], pick: (c: NonNullable<RunResult['cluster']>, run: RunResult) => number): number | undefined {
  const values = runs.filter((r) => r.cluster !== undefined).map((r) => pick(r.cluster as NonNullable<RunResult['cluster']>, r));
  return values.length === 0 ? undefined : median(values);
}

export function summarise(label: string, runs: readonly RunResult[], machineCores: number): ConfigSummary {
  const span = (r: RunResult): number => r.witness?.spanSeconds ?? r.wallSeconds;
  return {
    label,
    workers: runs[0]?.workers ?? 0,
    runs: [...runs],
    pages: median(runs.map((r) => r.pages)),
    wallSeconds: median(runs.map((r) => r.wallSeconds)),
    spanSeconds: median(runs.map(span)),
    pagesPerSecond: median(runs.map((r) => r.pages / span(r))),
    pagesPerSecondWall: median(runs.map((r) => r.pages / r.wallSeconds)),
    cpuPerThousand: median(runs.map((r) => (runCpuSeconds(r) / r.pages) * 1000)),
    redisCpuPerThousand: clusterMedian(runs, (c, r) => (c.redisCpuSeconds / r.pages) * 1000),
    shardPerThousand: clusterMedian(runs, (c, r) => (c.shardSeconds / r.pages) * 1000),
    shardsOpened: clusterMedian(runs, (c) => c.shardsOpened),
    peakRssMb: median(runs.map((r) => Math.max(...r.peakRssBytes) / MB)),
    redisPeakMb: clusterMedian(runs, (c) => c.redisUsedMemoryPeak / MB),
    redisOpsPerPage: clusterMedian(runs, (c, r) => c.redisCommands / r.pages),
    backlogMaxEntries: clusterMedian(runs, (c) => Math.max(0, ...c.backlog.map((s) => s.entries))),
    mergeSeconds: clusterMedian(runs, (c) => c.mergeSeconds),
    crawlerBusy: median(runs.map((r) => crawlerBusy(r, machineCores))),
    machineBusy: median(runs.map((r) => r.machineBusy)),
    bounds: runs.map((r) => boundOf(r, machineCores)),
  };
}

export interface TargetResult {
  /** PASS or MISS; NOT MEASURABLE on this machine (with the reason); REPORT: a figure the issue asks for without a set ratio. */
  verdict: 'PASS' | 'MISS' | 'NOT MEASURABLE' | 'REPORT';
  text: string;
}

export function evaluateTargets(
  plain: ConfigSummary,
  clusters: readonly ConfigSummary[],
  linkMemory: readonly LinkMemoryResult[],
  coresFor: (workers: number) => boolean,
): TargetResult[] {
  const targets: TargetResult[] = [];
  for (const c of clusters) {
    const ratio = c.cpuPerThousand / plain.cpuPerThousand;
    targets.push({
      verdict: ratio <= TARGETS.cpuRatio ? 'PASS' : 'MISS',
      text: `${c.label}: CPU per page (workers + Redis) ≤ ${TARGETS.cpuRatio}× the plain crawl's: ${ratio.toFixed(2)}× (${c.cpuPerThousand.toFixed(2)} against ${plain.cpuPerThousand.toFixed(2)} s per 1,000 pages)`,
    });
  }
  for (const m of linkMemory) {
    targets.push({
      verdict: m.bytesPerLink < TARGETS.bytesPerLink ? 'PASS' : 'MISS',
      text: `Redis memory per queued link < ${TARGETS.bytesPerLink} bytes, sends of ${m.linksPerSend} links (${(m.links / m.entries).toFixed(1)} links per stream entry): ${m.bytesPerLink.toFixed(0)} bytes`,
    });
  }
  const one = clusters.find((c) => c.workers === 1);
  for (const [n, wanted] of [[2, TARGETS.twoWorkerSpeedup], [4, undefined]] as const) {
    const many = clusters.find((c) => c.workers === n);
    if (one === undefined || many === undefined) continue;
    const speedup = many.pagesPerSecond / one.pagesPerSecond;
    const figures = `${speedup.toFixed(2)}× (${many.pagesPerSecond.toFixed(1)} against ${one.pagesPerSecond.toFixed(1)} pages/s; by wall time ${(many.pagesPerSecondWall / one.pagesPerSecondWall).toFixed(2)}×)`;
    const goal = wanted === undefined ? `${n} pinned workers against 1` : `${n} pinned workers ≥ ${wanted}× one pinned worker's pages/s`;
    if (!coresFor(n)) {
      targets.push({ verdict: 'NOT MEASURABLE', text: `${goal}: this machine has no core of its own for each of ${n} workers (they share); measured anyway ${figures}` });
    } else if (wanted === undefined) {
      targets.push({ verdict: 'REPORT', text: `${goal}: ${figures}` });
    } else {
      targets.push({ verdict: speedup >= wanted ? 'PASS' : 'MISS', text: `${goal}: ${figures}` });
    }
  }
  return targets;
}
