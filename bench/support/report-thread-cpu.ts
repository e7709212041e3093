/**
 * Preloaded into a profiled crawl (`node --import …/report-thread-cpu.ts`): reads every thread's
 * CPU time from /proc (Linux) ten times a second, keeping the last reading of each, since a
 * worker's entry goes when it ends, and at exit writes them as one line on stderr (thread-cpu.ts).
 */
import { readdirSync, readFileSync, writeSync } from 'node:fs';
import { THREAD_CPU_PREFIX, type ThreadCpu } from './thread-cpu.ts';

const READ_EVERY_MS = 100;
const TASKS = '/proc/self/task';
const TICKS_PER_SECOND = 100;

const threads = new Map<number, ThreadCpu>();

function readThreads(): void {
  let tids: string[];
  try {
    tids = readdirSync(TASKS);
  } catch {
    return;
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`${TASKS}/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (name) state …: the name may hold spaces and parentheses, so split after its last ')'.
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    threads.set(Number(tid), { tid: Number(tid), name, cpuMs: (ticks * 1000) / TICKS_PER_SECOND });
  }
}

setInterval(readThreads, READ_EVERY_MS).unref();
process.on('exit', () => {
  readThreads();
  writeSync(2, `${THREAD_CPU_PREFIX}${JSON.stringify([...threads.values()])}\n`);
});
