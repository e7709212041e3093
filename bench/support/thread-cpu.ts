/**
 * Each thread's CPU time in a profiled crawl, as the kernel counts it, which
 * report-thread-cpu.ts writes to stderr at exit. A CPU profile samples a thread on a clock,
 * and on a busy machine a sample after the thread waited for a core stands for the wait too;
 * the kernel's count does not, and it covers the threads no profile sees (V8's helpers,
 * libuv's pool, the profiler's own).
 */

/** The name of the profiler's own threads, whose CPU time is not the crawl's. */
export const PROFILER_THREAD = 'v8:ProfEvntProc';

export const THREAD_CPU_PREFIX = 'THREAD_CPU ';

/** One thread of the process: its kernel thread id, its name (`MainThread`, `WorkerThread`, `V8Worker`, `libuv-worker`, …), its CPU time. */
export interface ThreadCpu {
  tid: number;
  name: string;
  cpuMs: number;
}

/** The threads a child's stderr reports, in the order they started; undefined when it reports none. */
export function threadCpuOf(stderr: string): ThreadCpu[] | undefined {
  const line = stderr.split('\n').findLast((text) => text.startsWith(THREAD_CPU_PREFIX));
  if (line === undefined) return undefined;
  return (JSON.parse(line.slice(THREAD_CPU_PREFIX.length)) as ThreadCpu[]).sort((a, b) => a.tid - b.tid);
}
