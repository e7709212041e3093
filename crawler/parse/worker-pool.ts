import { parentPort, Worker, type ResourceLimits } from 'node:worker_threads';
import { ForagerError } from '../errors.ts';
import { freeWholeView } from '../memory/free-buffer.ts';
import type { ResponseAnalysis, ResponseInput } from './analyse-response.ts';
import { profilingFlags } from './profiling-flags.ts';

/*
 * Worker threads that analyse responses, one job at a time each: the pool side (AnalysisPool)
 * and the worker side (serveAnalyses) of one small protocol. A worker says { ready } once its
 * modules are loaded, is sent { input }, and answers { analysis } or { error }.
 */

/** Why a job did not get its analysis. */
export type JobFailure = 'time' | 'cpu-time' | 'out-of-memory' | 'exited' | 'error' | 'no-worker';

/** A job its worker could not finish: PARSE_TIMEOUT past a time cap, else PARSE_FAILED; `failure` says which way. */
export class AnalysisJobError extends ForagerError {
  readonly failure: JobFailure;

  constructor(failure: JobFailure, message: string, context: Record<string, unknown>) {
    super(failure === 'time' || failure === 'cpu-time' ? 'PARSE_TIMEOUT' : 'PARSE_FAILED', message, { ...context, failure });
    this.failure = failure;
  }
}

interface Job {
  input: ResponseInput;
  resolve: (a: ResponseAnalysis) => void;
  reject: (e: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  /** The job it is on; a worker takes one at a time, so a stuck job holds up no other. */
  job: Job | undefined;
  timers: NodeJS.Timeout[];
  /** Whether it ever answered: a worker that dies before it does may not start at all here. */
  answered: boolean;
  /** Whether it has loaded its modules: only then is it given a job, so that its start counts against no job's time. */
  ready: boolean;
}

type WorkerMessage = { ready: true } | { analysis: ResponseAnalysis } | { error: string };

/** Workers in a row that died before answering, after which the pool stops starting them. */
const MAX_FAILED_STARTS = 3;
/** How often a job's CPU time is looked at, when the pool caps it. */
const CPU_POLL_MS = 250;

export interface AnalysisPoolOptions {
  /** What the pool's errors call it ('parse', 'document'). */
  name: string;
  /** Workers; 0 analyses every response with `inline`. */
  size: number;
  workerFile: URL;
  /** Wall-clock time one job may take; past it the job fails and its worker is replaced. */
  timeoutMs: number;
  /** CPU time one job may take, where the Worker reports it (worker.cpuUsage); past it the job fails and its worker is replaced. */
  cpuTimeMs?: number;
  resourceLimits?: ResourceLimits;
  /** Start the workers at the first job instead of at once. */
  lazy?: boolean;
  /** Analyses on this thread when there are no workers (size 0, or workers that cannot start); without it, such jobs fail. */
  inline?: (input: ResponseInput) => ResponseAnalysis;
}

/**
 * Analyses responses on worker threads. A job that outlasts the wall-clock or CPU cap fails
 * with PARSE_TIMEOUT and its worker is replaced; a worker that dies (an error, the heap limit)
 * fails its job with PARSE_FAILED and is replaced. Jobs waiting for a worker are kept. When
 * workers cannot start here at all, jobs go to `inline`, or fail when there is none.
 */
export class AnalysisPool {
  readonly #workers: PoolWorker[] = [];
  readonly #queue: Job[] = [];
  readonly #options: AnalysisPoolOptions;
  #started = false;
  #closed = false;
  #failedStarts = 0;
  /** Workers cannot run here: jobs go inline, or fail. */
  #workerless: boolean;

  constructor(options: AnalysisPoolOptions) {
    this.#options = options;
    this.#workerless = options.size === 0;
    if (options.lazy !== true) this.#start();
  }

  analyse(input: ResponseInput): Promise<ResponseAnalysis> {
    if (this.#closed) return Promise.reject(this.#closedError());
    if (this.#workerless) return this.#withoutWorkers(input);
    this.#start();
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(this.#closedError());
    await Promise.all(
      this.#workers.map((w) => {
        this.#clearTimers(w);
        return w.worker.terminate();
      }),
    );
  }

  #closedError(): ForagerError {
    return new ForagerError('PARSE_POOL_CLOSED', `the ${this.#options.name} pool is closed`);
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    for (let i = 0; i < this.#options.size; i++) this.#workers.push(this.#spawn());
  }

  #withoutWorkers(input: ResponseInput): Promise<ResponseAnalysis> {
    const inline = this.#options.inline;
    if (inline === undefined) return Promise.reject(this.#failure('no-worker', `no ${this.#options.name} worker can start here`, input));
    try {
      return Promise.resolve(inline(input));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** The error a job fails with, naming its URL; a worker's death with no job names none. */
  #failure(failure: JobFailure, message: string, input: ResponseInput | undefined, context: Record<string, unknown> = {}): AnalysisJobError {
    return new AnalysisJobError(failure, message, input === undefined ? context : { url: input.url, ...context });
  }

  #dispatch(): void {
    for (const entry of this.#workers) {
      if (entry.job !== undefined || !entry.ready) continue;
      const job = this.#queue.shift();
      if (job === undefined) return;
      this.#run(entry, job);
    }
  }

  #run(entry: PoolWorker, job: Job): void {
    const { name, timeoutMs, cpuTimeMs } = this.#options;
    entry.job = job;
    entry.timers.push(
      setTimeout(() => {
        this.#replace(entry, this.#failure('time', `the ${name} job for ${job.input.url} took longer than ${timeoutMs} ms`, job.input, { timeoutMs }), false);
      }, timeoutMs),
    );
    if (cpuTimeMs !== undefined) this.#watchCpu(entry, job, cpuTimeMs);
    // Copy the body into a buffer of its own so it can be transferred without detaching a shared pool slab.
    const body = job.input.body === undefined ? undefined : new Uint8Array(job.input.body);
    entry.worker.postMessage({ input: { ...job.input, body } }, body === undefined ? [] : [body.buffer]);
  }

  /** Replaces the worker once the job has used `cpuTimeMs` of CPU: a job that computes for ever, however slowly the machine lets it. */
  #watchCpu(entry: PoolWorker, job: Job, cpuTimeMs: number): void {
    const worker = entry.worker;
    // Node before 24 has no per-worker CPU time: the wall-clock cap alone bounds the job there.
    if (typeof worker.cpuUsage !== 'function') return;
    let baseMicros: number | undefined;
    const poll = (): void => {
      worker.cpuUsage().then(
        (usage) => {
          if (entry.job !== job) return;
          const micros = usage.user + usage.system;
          baseMicros ??= micros;
          const usedMs = (micros - baseMicros) / 1000;
          if (usedMs > cpuTimeMs) this.#replace(entry, this.#failure('cpu-time', `the ${this.#options.name} job for ${job.input.url} used more than ${cpuTimeMs} ms of CPU`, job.input, { cpuTimeMs }), false);
          else entry.timers.push(setTimeout(poll, CPU_POLL_MS));
        },
        // The worker ended meanwhile: its exit handler deals with the job.
        () => undefined,
      );
    };
    poll();
  }

  #clearTimers(entry: PoolWorker): void {
    for (const timer of entry.timers.splice(0)) clearTimeout(timer);
  }

  #finish(entry: PoolWorker): Job | undefined {
    const job = entry.job;
    this.#clearTimers(entry);
    entry.job = undefined;
    return job;
  }

  #spawn(): PoolWorker {
    const { workerFile, resourceLimits } = this.#options;
    // Only the profiling flags: the parent's others (say --input-type from a script) need not make sense for a worker.
    const worker = new Worker(workerFile, { execArgv: profilingFlags(process.execArgv), resourceLimits: resourceLimits ?? { maxYoungGenerationSizeMb: 8 } });
    const entry: PoolWorker = { worker, job: undefined, timers: [], answered: false, ready: false };
    worker.on('message', (msg: WorkerMessage) => {
      entry.answered = true;
      this.#failedStarts = 0;
      if ('ready' in msg) {
        entry.ready = true;
        this.#dispatch();
        return;
      }
      const job = this.#finish(entry);
      if (job !== undefined) {
        if ('analysis' in msg) job.resolve(msg.analysis);
        else job.reject(this.#failure('error', `the ${this.#options.name} job failed: ${msg.error}`, job.input));
      }
      this.#dispatch();
    });
    worker.on('error', (err: Error & { code?: string }) => {
      // The heap cap (resourceLimits) ends a worker with this code.
      const failure = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out-of-memory' : 'error';
      this.#replace(entry, this.#failure(failure, `${this.#options.name} worker failed: ${err.message}`, entry.job?.input));
    });
    worker.on('exit', (code) => {
      if (!this.#closed) this.#replace(entry, this.#failure('exited', `${this.#options.name} worker exited with code ${code}`, entry.job?.input, { code }));
    });
    return entry;
  }

  /** Fails the worker's job with `err`, and puts a fresh worker in its place. A stuck job is no sign that workers cannot start. */
  #replace(entry: PoolWorker, err: AnalysisJobError, died = true): void {
    const index = this.#workers.indexOf(entry);
    if (index === -1) return;
    const job = this.#finish(entry);
    void entry.worker.terminate();
    if (died && !entry.answered && ++this.#failedStarts >= MAX_FAILED_STARTS) {
      // Workers cannot run here: stop starting them rather than respawn for ever.
      this.#workerless = true;
      this.#workers.splice(0);
      for (const waiting of job === undefined ? this.#queue.splice(0) : [job, ...this.#queue.splice(0)]) {
        this.#withoutWorkers(waiting.input).then(waiting.resolve, waiting.reject);
      }
      return;
    }
    // A worker that died before it ever answered may simply not start here: its job waits for the next one.
    if (job !== undefined && died && !entry.answered && !this.#closed) this.#queue.unshift(job);
    else job?.reject(err);
    if (this.#closed) return;
    this.#workers[index] = this.#spawn();
    this.#dispatch();
  }
}

/**
 * From about a megabyte on, Node keeps a decoded string outside V8's heap (an external
 * string), and V8 frees it only at a full collection, which it starts for external memory
 * only past tens of megabytes: a few large bodies' texts stayed alive beside each other
 * (up to 24 MB in the soak). After such a body, the worker collects at once, when the
 * process was started with --expose-gc (the CLI and the app's crawler process are).
 */
const LARGE_BODY_BYTES = 1024 * 1024;
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/**
 * The worker side: says it is ready (its modules are loaded, so a job's time does not count
 * the worker's start), then analyses each job and sends the analysis back, its stored body
 * transferred rather than copied.
 */
export function serveAnalyses(analyse: (input: ResponseInput) => ResponseAnalysis | Promise<ResponseAnalysis>): void {
  const port = parentPort;
  if (port === null) throw new ForagerError('INTERNAL', 'serveAnalyses runs in a worker thread');
  port.postMessage({ ready: true });
  port.on('message', async (job: { input: ResponseInput }) => {
    const large = (job.input.body?.length ?? 0) >= LARGE_BODY_BYTES;
    let message: WorkerMessage;
    let transfer: ArrayBuffer[] = [];
    try {
      const analysis = await analyse(job.input);
      // zlib's output buffer cannot be transferred, so move the bytes into one that can.
      const storedBody = analysis.storedBody === null ? null : new Uint8Array(analysis.storedBody);
      freeWholeView(analysis.storedBody);
      message = { analysis: { ...analysis, storedBody } };
      if (storedBody !== null) transfer = [storedBody.buffer];
    } catch (err) {
      message = { error: err instanceof Error ? err.message : String(err) };
    }
    // The body came over as this job's alone, and analysing a large one is enough allocation to carry it into the
    // old generation, where it would wait for this thread's next full collection. Freed before the answer, whether
    // the analysis succeeded or threw, so the pool never hears back while the memory is still held.
    freeWholeView(job.input.body);
    if (large) collectGarbage?.();
    port.postMessage(message, transfer);
  });
}
