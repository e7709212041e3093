/*
 * Preloaded (node --import) into every crawling process of bench:cluster: at exit it writes
 * the process's own CPU time and peak RSS to FORAGER_BENCH_USAGE_DIR/<pid>.json.
 *
 * Why: `forager crawl --json` reports no CPU time, and a child's CPU cannot be read from
 * /proc once it has exited. Its peak RSS is read from VmHWM, not from resourceUsage().maxRSS,
 * which in a spawned child also counts the parent's resident memory at the fork (see
 * bench/support/peak-rss.ts). The CLI starts itself again with execve (same pid) for its
 * malloc settings; execve keeps --import in execArgv, so the final image writes the file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ExitUsage {
  cpuUserMs: number;
  cpuSystemMs: number;
  peakRssBytes: number;
}

const dir = process.env.FORAGER_BENCH_USAGE_DIR;
if (dir !== undefined && dir !== '') {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const kB = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    const report: ExitUsage = {
      cpuUserMs: usage.userCPUTime / 1000,
      cpuSystemMs: usage.systemCPUTime / 1000,
      peakRssBytes: kB === undefined ? usage.maxRSS * 1024 : Number(kB) * 1024,
    };
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(report));
  });
}
