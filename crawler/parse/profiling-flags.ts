/**
 * The CPU-profiling flags of a process (`node --cpu-prof …`) that its worker threads should
 * share, so that profiling a crawl profiles its parse workers too: Node writes one profile per
 * thread, but only for threads started with the flag. Every other flag stays the process's own.
 */

/** Flags that take a value, either after `=` or as the next word. */
const VALUE_FLAGS = new Set(['--cpu-prof-dir', '--cpu-prof-interval', '--cpu-prof-name']);
/**
 * Left out: one file name for every thread would have each overwrite the last; without it each
 * thread's profile is named after its pid and thread id.
 */
const PROCESS_ONLY_FLAGS = new Set(['--cpu-prof-name']);

export function profilingFlags(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const word = execArgv[i] as string;
    const name = word.split('=', 1)[0] as string;
    const takesNext = VALUE_FLAGS.has(name) && !word.includes('=');
    const words = takesNext ? [word, execArgv[i + 1] ?? ''] : [word];
    if (takesNext) i++;
    if ((name === '--cpu-prof' || VALUE_FLAGS.has(name)) && !PROCESS_ONLY_FLAGS.has(name)) kept.push(...words);
  }
  return kept;
}
