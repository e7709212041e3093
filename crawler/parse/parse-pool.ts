import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ForagerError } from '../errors.ts';
import { analyseResponse, type ResponseAnalysis, type ResponseInput } from './analyse-response.ts';

interface Job {
  input: ResponseInput;
  resolve: (a: ResponseAnalysis) => void;
  reject: (e: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  /** The job it is parsing; a worker parses one at a time, so a stuck job holds up no other. */
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Whether it ever answered: a worker that dies before it does may not start at all here. */
  answered: boolean;
  /** Whether it has loaded its modules: only then is it given a job, so that its start counts against no job's time-out. */
  ready: boolean;
}

/** Workers in a row that died before answering, after which the pool parses inline. */
const MAX_FAILED_STARTS = 3;

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
 * Parses responses on worker threads so that parsing (the crawler's largest CPU cost)
 * runs beside storage instead of in turn with it. With size 0 it parses inline. A job that
 * outlasts the time-out fails with PARSE_TIMEOUT and its worker is replaced; a worker that
 * dies fails its job with PARSE_FAILED and is replaced. Jobs waiting for a worker are kept.
 */
export class ParsePool {
  readonly #workers: PoolWorker[] = [];
  readonly #queue: Job[] = [];
  readonly #timeoutMs: number;
  readonly #workerFile: URL;
  #closed = false;
  #failedStarts = 0;

  constructor(size: number, options: ParsePoolOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? PARSE_TIMEOUT_MS;
    this.#workerFile = options.workerFile ?? WORKER_FILE;
    for (let i = 0; i < size; i++) this.#workers.push(this.#spawn());
  }

  analyse(input: ResponseInput): Promise<ResponseAnalysis> {
    if (this.#workers.length === 0) return Promise.resolve(analyseResponse(input));
    if (this.#closed) return Promise.reject(new ForagerError('PARSE_POOL_CLOSED', 'the parse pool is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new ForagerError('PARSE_POOL_CLOSED', 'the parse pool is closed'));
    await Promise.all(this.#workers.map((w) => {
      clearTimeout(w.timer);
      return w.worker.terminate();
    }));
  }

  #dispatch(): void {
    for (const entry of this.#workers) {
      if (entry.job !== undefined || !entry.ready) continue;
      const job = this.#queue.shift();
      if (job === undefined) return;
      this.#start(entry, job);
    }
  }

  #start(entry: PoolWorker, job: Job): void {
    entry.job = job;
    entry.timer = setTimeout(() => {
      this.#replace(entry, new ForagerError('PARSE_TIMEOUT', `parsing ${job.input.url} took longer than ${this.#timeoutMs} ms`, { url: job.input.url, timeoutMs: this.#timeoutMs }), false);
    }, this.#timeoutMs);
    // Copy the body into a buffer of its own so it can be transferred without detaching a shared pool slab.
    const body = job.input.body === undefined ? undefined : new Uint8Array(job.input.body);
    entry.worker.postMessage({ input: { ...job.input, body } }, body === undefined ? [] : [body.buffer]);
  }

  #finish(entry: PoolWorker): Job | undefined {
    const job = entry.job;
    clearTimeout(entry.timer);
    entry.job = undefined;
    entry.timer = undefined;
    return job;
  }

  #spawn(): PoolWorker {
    // No execArgv: the parent's flags (say --input-type from a script) need not make sense for a worker.
    const worker = new Worker(this.#workerFile, { execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    const entry: PoolWorker = { worker, job: undefined, timer: undefined, answered: false, ready: false };
    worker.on('message', (msg: { ready?: true; analysis?: ResponseAnalysis; error?: string }) => {
      entry.answered = true;
      this.#failedStarts = 0;
      if (msg.ready === true) {
        entry.ready = true;
        this.#dispatch();
        return;
      }
      const job = this.#finish(entry);
      if (job !== undefined) {
        if (msg.analysis !== undefined) job.resolve(msg.analysis);
        else job.reject(new ForagerError('PARSE_FAILED', `parsing failed: ${msg.error ?? 'unknown error'}`, { url: job.input.url }));
      }
      this.#dispatch();
    });
    worker.on('error', (err) => this.#replace(entry, new ForagerError('PARSE_FAILED', `parse worker failed: ${err.message}`)));
    worker.on('exit', (code) => {
      if (!this.#closed) this.#replace(entry, new ForagerError('PARSE_FAILED', `parse worker exited with code ${code}`));
    });
    return entry;
  }

  /** Fails the worker's job with `err`, and puts a fresh worker in its place. A stuck job is no sign that workers cannot start. */
  #replace(entry: PoolWorker, err: ForagerError, died = true): void {
    const index = this.#workers.indexOf(entry);
    if (index === -1) return;
    const job = this.#finish(entry);
    void entry.worker.terminate();
    if (died && !entry.answered && ++this.#failedStarts >= MAX_FAILED_STARTS) {
      // Workers cannot run here: parse on this thread instead (without time-outs) rather than respawn for ever.
      this.#workers.splice(0);
      for (const waiting of job === undefined ? this.#queue.splice(0) : [job, ...this.#queue.splice(0)]) this.#inline(waiting);
      return;
    }
    // A worker that died before it ever answered may simply not start here: its job waits for the next one.
    if (job !== undefined && died && !entry.answered && !this.#closed) this.#queue.unshift(job);
    else job?.reject(err);
    if (this.#closed) return;
    this.#workers[index] = this.#spawn();
    this.#dispatch();
  }

  #inline(job: Job): void {
    try {
      job.resolve(analyseResponse(job.input));
    } catch (err) {
      job.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
