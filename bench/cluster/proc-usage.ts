/*
 * CPU time read from /proc, for the processes that do not report their own (the web) and for
 * the machine as a whole: the machine is shared, so a run's figures are only readable beside
 * how busy the machine was and how much of that was not ours.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ); 100 on every Linux this runs on, asked once. */
const TICKS_PER_SECOND = ((): number => {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
})();

/** A process's CPU seconds so far (user + system, all its threads), or undefined when it is gone. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: the fields after its last ')' are fixed (utime is the 12th of them).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The machine's CPU time so far, all cores: busy and total seconds. */
export interface MachineTimes {
  busy: number;
  total: number;
}

export function machineTimes(): MachineTimes {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
  // cpu user nice system idle iowait irq softirq steal (guest time is already in user).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number) as number[];
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
  return { busy: busy / TICKS_PER_SECOND, total: (busy + (idle ?? 0) + (iowait ?? 0)) / TICKS_PER_SECOND };
}

/** Share (0..1) of all cores busy between two readings. */
export function busyShare(before: MachineTimes, after: MachineTimes): number {
  const total = after.total - before.total;
  return total > 0 ? (after.busy - before.busy) / total : 0;
}
