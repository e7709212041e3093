import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The real entry point, run by the Node that runs the tests (Node 24 under `npx node --test`). */
export const FORAGER_BIN = fileURLToPath(new URL('../../bin/forager.js', import.meta.url));

export interface CliResult {
  /** Exit code, or null when the process died of a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the helper killed the process because it ran past timeoutMs. */
  timedOut: boolean;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The process is killed with SIGKILL after this long. Default 15 s. */
  timeoutMs?: number;
}

export interface RunningCli {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited and its pipes are drained. */
  done: Promise<CliResult>;
}

/**
 * Starts `forager ARGS…` as a child process with piped output (so never a terminal).
 * Always asynchronous: the tests' own loopback servers must keep answering meanwhile.
 */
export function spawnCli(args: readonly string[], options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [FORAGER_BIN, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 15_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs `forager ARGS…` to its end. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return spawnCli(args, options).done;
}
