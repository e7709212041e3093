import { readFileSync } from 'node:fs';

/**
 * This process's peak resident memory in MB. On Linux it is read from /proc (VmHWM):
 * `process.resourceUsage().maxRSS` of a spawned child also counts its parent's resident
 * memory at fork time (the kernel carries the pre-exec maximum over), so a benchmark
 * whose parent holds a large collection would see that in every child's figure.
 */
export function peakRssMB(): number {
  try {
    const kB = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kB !== undefined) return Number(kB) / 1024;
  } catch {
    // Not Linux: fall back to what the platform reports.
  }
  return process.resourceUsage().maxRSS / 1024;
}
