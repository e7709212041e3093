import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Niceness of the render process and its browser: on a small machine, the crawler's own work goes first. */
export const RENDER_NICENESS = 10;

/**
 * Lowers the priority of every thread of the given processes. Linux sets niceness per
 * thread (threads started later inherit their starter's), so each one is set.
 */
export function lowerPriority(pids: readonly number[], niceness: number = RENDER_NICENESS): void {
  for (const pid of pids) {
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      threads = [String(pid)];
    }
    for (const tid of threads) {
      try {
        setPriority(Number(tid), niceness);
      } catch {
        // Gone already, or not ours to change: the work goes on at its priority.
      }
    }
  }
}
