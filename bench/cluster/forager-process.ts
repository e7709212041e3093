/*
 * One `forager …` process of a run (a plain crawl, a worker, a merge, a cluster command),
 * started on the Node that runs the bench with the CLI's own node flags, pinned with taskset
 * when given a core, and with exit-usage.ts preloaded so that its CPU time and peak RSS are
 * known once it has exited. Output is kept (stderr in full: a worker's log is read for
 * errors afterwards).
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ForagerError } from '../../crawler/errors.ts';
import { parseJsonOutput, shebangNodeFlags } from '../support/child-run.ts';
import type { ExitUsage } from './exit-usage.ts';

const REPO = join(import.meta.dirname, '..', '..');
/** The CLI measured unless --forager names another (a copy of bin/ and dist/ that a rebuild meanwhile cannot change). */
export const FORAGER_BIN = join(REPO, 'bin', 'forager.js');
const EXIT_USAGE = join(import.meta.dirname, 'exit-usage.ts');
const TASKSET = '/usr/bin/taskset';
const OUTPUT_TAIL_CHARS = 4_000;

export interface ForagerOptions {
  /** bin/forager.js of the CLI to run. */
  bin: string;
  label: string;
  /** Pin to this core (taskset -c); undefined: wherever the scheduler puts it. */
  core?: number | undefined;
  timeoutMs: number;
  /** Where exit-usage.ts writes (FORAGER_BENCH_USAGE_DIR). */
  usageDir: string;
}

export interface ForagerResult {
  pid: number;
  stdout: string;
  stderr: string;
  /** The last JSON object printed on stdout, if any. */
  json: Record<string, unknown> | undefined;
  usage: ExitUsage;
  /** From spawn to exit. */
  wallMs: number;
  startedAt: number;
  endedAt: number;
}

export interface RunningForager {
  pid: number;
  done: Promise<ForagerResult>;
  kill(): void;
}

/** Starts `forager ARGS…`; `done` rejects (BENCH_CHILD) when it fails, times out or leaves no usage file. */
export function startForager(args: readonly string[], options: ForagerOptions): RunningForager {
  const node = [process.execPath, ...shebangNodeFlags(options.bin), '--import', EXIT_USAGE, options.bin, ...args];
  const argv = options.core === undefined ? node : [TASKSET, '-c', String(options.core), ...node];
  const startedAt = Date.now();
  const started = performance.now();
  const child = spawn(argv[0] as string, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORAGER_BENCH_USAGE_DIR: options.usageDir },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  // A bench that dies must not leave crawlers behind.
  process.once('exit', kill);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  const pid = child.pid ?? -1;
  const done = new Promise<ForagerResult>((resolve, reject) => {
    const context = (code: number | null, signal: NodeJS.Signals | null): Record<string, unknown> => ({
      command: argv.join(' '),
      exitCode: code,
      signal,
      stdout: stdout.slice(-OUTPUT_TAIL_CHARS),
      stderrTail: stderr.slice(-OUTPUT_TAIL_CHARS),
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      process.off('exit', kill);
      reject(new ForagerError('BENCH_CHILD', `${options.label}: could not start: ${error.message}`, { command: argv.join(' ') }, { cause: error }));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      process.off('exit', kill);
      const wallMs = performance.now() - started;
      if (timedOut) return reject(new ForagerError('BENCH_CHILD', `${options.label}: timed out after ${options.timeoutMs} ms`, context(code, signal)));
      if (code !== 0) return reject(new ForagerError('BENCH_CHILD', `${options.label}: exited with ${signal ?? code}`, context(code, signal)));
      const usageFile = join(options.usageDir, `${pid}.json`);
      let usage: ExitUsage;
      try {
        usage = JSON.parse(readFileSync(usageFile, 'utf8')) as ExitUsage;
        rmSync(usageFile);
      } catch (error) {
        return reject(new ForagerError('BENCH_CHILD', `${options.label}: left no usage file (${usageFile}); was exit-usage.ts preloaded?`, context(code, signal), { cause: error }));
      }
      resolve({ pid, stdout, stderr, json: parseJsonOutput(stdout), usage, wallMs, startedAt, endedAt: Date.now() });
    });
  });
  return { pid, done, kill };
}

/** Runs `forager ARGS…` to its end and returns its JSON line, which it must print. */
export async function runForagerJson(args: readonly string[], options: ForagerOptions): Promise<ForagerResult & { json: Record<string, unknown> }> {
  const result = await startForager(args, options).done;
  if (result.json === undefined) {
    throw new ForagerError('BENCH_CHILD', `${options.label}: printed no JSON object on stdout`, { stdout: result.stdout.slice(-OUTPUT_TAIL_CHARS), stderrTail: result.stderr.slice(-OUTPUT_TAIL_CHARS) });
  }
  return result as ForagerResult & { json: Record<string, unknown> };
}

/** A numeric field of a child's JSON, or a BENCH_CHILD error naming it. */
export function numberField(json: Record<string, unknown>, field: string, label: string): number {
  const value = json[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ForagerError('BENCH_CHILD', `${label}: its JSON lacks a numeric "${field}"`, { field, output: json });
  return value;
}
