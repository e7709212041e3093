/**
 * Runs a benchmark participant as a child process and returns the JSON object it
 * prints on stdout. Each participant runs in its own process so that its peak RSS and
 * its start-up work belong to it alone.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ForagerError } from '../../crawler/errors.ts';

export interface ChildRunOptions {
  cwd: string;
  timeoutMs: number;
  label: string;
}

export interface ChildRunResult {
  json: Record<string, unknown>;
  stderr: string;
  wallMs: number;
}

const OUTPUT_TAIL_CHARS = 4_000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Accepts either a whole-stdout JSON document (possibly pretty-printed) or, failing that,
 * the last line that is a JSON object, so stray log lines before it do no harm.
 */
export function parseJsonOutput(stdout: string): Record<string, unknown> | undefined {
  const whole = stdout.trim();
  try {
    const parsed: unknown = JSON.parse(whole);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // Fall through to line-wise parsing.
  }
  const lines = whole.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] as string).trim();
    if (!line.startsWith('{')) continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // Not JSON; keep looking further up.
    }
  }
  return undefined;
}

export function runJsonChild(command: string, args: string[], options: ChildRunOptions): Promise<ChildRunResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    // Ctrl-C reaches the child through the process group; this covers other deaths.
    const killChild = (): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    process.once('exit', killChild);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);

    const context = (exitCode: number | null, signal: NodeJS.Signals | null): Record<string, unknown> => ({
      command: [command, ...args].join(' '),
      exitCode,
      signal,
      stdout: stdout.slice(-OUTPUT_TAIL_CHARS),
      stderrTail: stderr.slice(-OUTPUT_TAIL_CHARS),
    });

    child.once('error', (error) => {
      clearTimeout(timer);
      process.removeListener('exit', killChild);
      reject(new ForagerError('BENCH_CHILD', `${options.label}: could not start: ${error.message}`, { command }, { cause: error }));
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      process.removeListener('exit', killChild);
      const wallMs = performance.now() - started;
      if (timedOut) {
        reject(new ForagerError('BENCH_CHILD', `${options.label}: timed out after ${options.timeoutMs} ms`, context(exitCode, signal)));
        return;
      }
      if (exitCode !== 0) {
        reject(new ForagerError('BENCH_CHILD', `${options.label}: exited with ${signal ?? exitCode}`, context(exitCode, signal)));
        return;
      }
      const json = parseJsonOutput(stdout);
      if (json === undefined) {
        reject(new ForagerError('BENCH_CHILD', `${options.label}: printed no JSON object on stdout`, context(exitCode, signal)));
        return;
      }
      resolve({ json, stderr, wallMs });
    });
  });
}

/**
 * Node flags from the CLI's shebang (`#!/usr/bin/env -S node --flag`): the crawl then runs
 * as users launch it, on the Node that runs this benchmark.
 */
export function shebangNodeFlags(script: string): string[] {
  const firstLine = readFileSync(script, 'utf8').split('\n', 1)[0] ?? '';
  if (!firstLine.startsWith('#!')) return [];
  const words = firstLine.slice(2).trim().split(/\s+/);
  const nodeAt = words.findIndex((word) => word === 'node' || word.endsWith('/node'));
  return nodeAt === -1 ? [] : words.slice(nodeAt + 1);
}
