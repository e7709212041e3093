/*
 * Which bound a run hit, from what it measured. Checked in this order, the first that holds
 * names the run:
 *   - politeness: the busiest host's requests × the per-host delay fill half the crawl's
 *     span or more (more workers cannot help: they scale by hosts);
 *   - CPU of the crawlers: their CPU time is ≥ 85% of the cores they were pinned to (or of
 *     the whole machine, unpinned) over their wall time;
 *   - CPU of the machine: ≥ 90% of every core was busy, whoever used it (the web, Redis,
 *     and on a shared machine other people's work);
 *   - the web: its process used ≥ 85% of a core;
 *   - none of these: the run waited on something else (Redis round trips, the workers'
 *     100 ms ticks, start-up and the end-of-crawl check).
 */
import { runCpuSeconds, type RunResult } from './run-result.ts';

const POLITENESS_SHARE = 0.5;
const CRAWLER_BUSY = 0.85;
const MACHINE_BUSY = 0.9;
const WEB_BUSY = 0.85;

export interface Bound {
  name: 'politeness' | 'CPU (crawlers)' | 'CPU (machine)' | 'web' | 'none (waiting)';
  /** The figures the verdict read. */
  detail: string;
}

/** Share of their cores the crawling processes kept busy. */
export function crawlerBusy(run: RunResult, machineCores: number): number {
  const cores = run.cores.length === 0 ? machineCores : new Set(run.cores).size;
  return run.wallSeconds > 0 ? run.crawlerCpuSeconds / (run.wallSeconds * cores) : 0;
}

export function boundOf(run: RunResult, machineCores: number): Bound {
  const busy = crawlerBusy(run, machineCores);
  const web = run.wallSeconds > 0 ? run.webCpuSeconds / run.wallSeconds : 0;
  const span = run.witness?.spanSeconds ?? run.wallSeconds;
  const floor = run.witness?.politenessFloorSeconds ?? 0;
  // What the machine was busy with besides this run's processes: the bench itself and, on a shared machine, other work.
  const others = run.wallSeconds > 0 ? (run.machineBusy * machineCores * run.wallSeconds - runCpuSeconds(run) - run.webCpuSeconds) / run.wallSeconds : 0;
  const redis = run.cluster === undefined || run.wallSeconds <= 0 ? '' : `, Redis ${pct(run.cluster.redisCpuSeconds / run.wallSeconds)} of a core`;
  const detail = `crawlers ${pct(busy)} of their cores, machine ${pct(run.machineBusy)} (others ${Math.max(0, others).toFixed(2)} cores), web ${pct(web)} of a core${redis}, politeness floor ${floor.toFixed(1)} s of ${span.toFixed(1)} s`;
  if (span > 0 && floor >= span * POLITENESS_SHARE) return { name: 'politeness', detail };
  if (busy >= CRAWLER_BUSY) return { name: 'CPU (crawlers)', detail };
  if (run.machineBusy >= MACHINE_BUSY) return { name: 'CPU (machine)', detail };
  if (web >= WEB_BUSY) return { name: 'web', detail };
  return { name: 'none (waiting)', detail };
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}
