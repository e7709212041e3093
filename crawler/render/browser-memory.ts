import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes descending from this one, from /proc; undefined where there is no /proc. The
 * render process (render-host.ts) starts no process but the browser, so there these are the
 * browser and its zygote, renderer and utility processes.
 */
export function descendantPids(ourPid: number = process.pid): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const parentOf = new Map<number, number>();
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after its last ')' are fixed.
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone while we looked.
    }
  }
  const descends = (pid: number): boolean => {
    for (let at = parentOf.get(pid), hops = 0; at !== undefined && at > 1 && hops < 64; at = parentOf.get(at), hops++) {
      if (at === ourPid) return true;
    }
    return false;
  };
  return [...parentOf.keys()].filter(descends);
}

/**
 * Resident memory in MB of the browser's processes (descendantPids); undefined where there is
 * no /proc. Shared pages are counted in each process: the figure errs high, which is the safe
 * side for a restart rule.
 */
export function descendantsMemoryMb(ourPid: number = process.pid): number | undefined {
  const pids = descendantPids(ourPid);
  if (pids === undefined) return undefined;
  let kB = 0;
  for (const pid of pids) {
    try {
      kB += Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // Gone while we looked.
    }
  }
  return kB / 1024;
}
