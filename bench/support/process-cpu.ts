/**
 * A profiled crawl's CPU time, all its threads together (libuv's pool, where responses are
 * inflated, and V8's helpers included), which report-process-cpu.ts writes to stderr at exit,
 * so that the benchmark can set the profiles' sum beside it.
 */

export const PROCESS_CPU_PREFIX = 'PROCESS_CPU ';

/** The CPU time a line of the child's stderr gives, in ms; undefined when no line does. */
export function processCpuMs(stderr: string): number | undefined {
  const line = stderr.split('\n').findLast((text) => text.startsWith(PROCESS_CPU_PREFIX));
  if (line === undefined) return undefined;
  const { user, system } = JSON.parse(line.slice(PROCESS_CPU_PREFIX.length)) as { user: number; system: number };
  return (user + system) / 1000;
}
