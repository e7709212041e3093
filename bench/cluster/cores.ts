/*
 * Which cores each process of a cluster run is pinned to (taskset -c). The bench reads the
 * cores this process may use (its affinity, which a container or another taskset may have
 * narrowed) rather than the machine's count, so that a pin never names a core it cannot have.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** The cores this process may run on, from /proc/self/status ("0-1,4"); 0..n-1 where there is no /proc. */
export function allowedCores(): number[] {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (list !== undefined) return expandCpuList(list);
  } catch {
    // Not Linux: fall through.
  }
  return Array.from({ length: availableParallelism() }, (_, i) => i);
}

/** "0-2,5" → [0, 1, 2, 5]. */
export function expandCpuList(list: string): number[] {
  const cores: number[] = [];
  for (const part of list.split(',')) {
    const [from, to] = part.split('-').map(Number) as [number, number | undefined];
    for (let c = from; c <= (to ?? from); c++) cores.push(c);
  }
  return cores;
}

/**
 * Where everything runs. With room for them (the largest run's workers, the web and Redis
 * each on cores of their own), the web and Redis get the first two cores and the crawlers
 * the rest; otherwise the web and Redis float, and the crawlers take the last cores first,
 * so that one worker (and the plain crawl, pinned like it) sits on core 1 of a 2-core
 * machine, two on cores 0 and 1, and four share them two by two.
 */
export interface PinPlan {
  cores: number[];
  /** The web's and Redis's cores, or undefined when they float over all of them. */
  web: number | undefined;
  redis: number | undefined;
  /** The cores of the crawling processes, in order of use. */
  crawlers: number[];
}

export function planPins(cores: readonly number[], largestRun: number): PinPlan {
  if (cores.length >= largestRun + 2) {
    return { cores: [...cores], web: cores[0], redis: cores[1], crawlers: cores.slice(2) };
  }
  return { cores: [...cores], web: undefined, redis: undefined, crawlers: [...cores].reverse() };
}

/** The core of each of `workers` crawling processes: round robin, so more workers than cores share them. */
export function crawlerCores(plan: PinPlan, workers: number): number[] {
  return Array.from({ length: workers }, (_, i) => plan.crawlers[i % plan.crawlers.length] as number);
}

/** Whether a run of this many workers has a core for each (else the figure says they share). */
export function coresOwn(plan: PinPlan, workers: number): boolean {
  return workers <= plan.crawlers.length;
}
