import { availableParallelism } from 'node:os';
import { analyseResponse } from './analyse-response.ts';
import { AnalysisPool } from './worker-pool.ts';

// The worker runs from source under type stripping (tests) and from dist/ when built.
const WORKER_FILE = new URL(import.meta.url.endsWith('.ts') ? './parse-worker.ts' : './parse-worker.js', import.meta.url);

/**
 * How long one response may take to parse. Parsing is linear in the input and inputs are
 * capped (maxDecodedBytes), so a healthy job takes well under a second; one still running
 * after this is stuck, and its worker is replaced.
 */
export const PARSE_TIMEOUT_MS = 20_000;

/** One worker per spare core: the main thread keeps the network and SQLite, workers parse. */
export function defaultParseWorkers(): number {
  return Math.min(4, Math.max(0, availableParallelism() - 1));
}

export interface ParsePoolOptions {
  timeoutMs?: number;
  /** The worker's entry point; tests name one that misbehaves. */
  workerFile?: URL;
}

/**
 * Parses responses (HTML, plain text, site resources: analyseResponse) on worker threads so
 * that parsing (the crawler's largest CPU cost) runs beside storage instead of in turn with
 * it. With size 0, or where workers cannot start, it parses inline. A job that outlasts the
 * time-out fails with PARSE_TIMEOUT and its worker is replaced; a worker that dies fails its
 * job with PARSE_FAILED and is replaced.
 */
export class ParsePool extends AnalysisPool {
  constructor(size: number, options: ParsePoolOptions = {}) {
    super({ name: 'parse', size, workerFile: options.workerFile ?? WORKER_FILE, timeoutMs: options.timeoutMs ?? PARSE_TIMEOUT_MS, inline: analyseResponse });
  }
}
