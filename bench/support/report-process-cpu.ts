/**
 * Preloaded into a profiled crawl (`node --import …/report-process-cpu.ts`): at exit, writes the
 * process's CPU time as one line on stderr (read by process-cpu.ts).
 */
import { writeSync } from 'node:fs';
import { PROCESS_CPU_PREFIX } from './process-cpu.ts';

process.on('exit', () => {
  writeSync(2, `${PROCESS_CPU_PREFIX}${JSON.stringify(process.cpuUsage())}\n`);
});
