/**
 * `--smoke`: a benchmark runs end to end on tiny inputs to prove that it still works (its
 * figures are numbers, its peer ran). Speeds are not judged in a smoke run: targets stay
 * in the full runs. test/bench/bench-smoke.test.ts runs every benchmark this way and reads
 * the line `reportSmoke` prints.
 */
import { ForagerError } from '../../crawler/errors.ts';

export const SMOKE = process.argv.includes('--smoke');

/** The prefix of the one line a smoke run prints on stdout when it passed. */
export const SMOKE_LINE_PREFIX = 'SMOKE ';

export interface SmokeReport {
  benchmark: string;
  /** What the benchmark was compared with in this run, e.g. "Crawlee CheerioCrawler"; null when it has no peer. */
  peer: string | null;
  figures: Record<string, number>;
}

/** Every figure must be a finite number: NaN, Infinity or a missing value means the benchmark is broken. */
export function requireFigures(label: string, figures: Record<string, unknown>): Record<string, number> {
  const names = Object.keys(figures);
  if (names.length === 0) throw new ForagerError('BENCH_CHILD', `${label}: reported no figures`, { label });
  for (const name of names) {
    const value = figures[name];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new ForagerError('BENCH_CHILD', `${label}: figure "${name}" is not a finite number (${String(value)})`, { label, figure: name, value, figures });
    }
  }
  return figures as Record<string, number>;
}

/** Checks the figures, then prints the smoke line; throws (so the process exits non-zero) when a figure is not a number. */
export function reportSmoke(report: Omit<SmokeReport, 'figures'> & { figures: Record<string, unknown> }): void {
  const checked: SmokeReport = { ...report, figures: requireFigures(`${report.benchmark} smoke`, report.figures) };
  process.stdout.write(`${SMOKE_LINE_PREFIX}${JSON.stringify(checked)}\n`);
}

/** The report of a smoke run's stdout, or undefined when it printed none. */
export function parseSmokeLine(stdout: string): SmokeReport | undefined {
  const line = stdout.split('\n').findLast((l) => l.startsWith(SMOKE_LINE_PREFIX));
  return line === undefined ? undefined : (JSON.parse(line.slice(SMOKE_LINE_PREFIX.length)) as SmokeReport);
}
