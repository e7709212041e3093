import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ForagerError } from '../errors.ts';
import { analyseResponse, type ResponseAnalysis, type ResponseInput } from './analyse-response.ts';

interface Pending {
  resolve: (a: ResponseAnalysis) => void;
  reject: (e: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

// The worker runs from source under type stripping (tests) and from dist/ when built.
const WORKER_FILE = new URL(import.meta.url.endsWith('.ts') ? './parse-worker.ts' : './parse-worker.js', import.meta.url);

/** One worker per spare core: the main thread keeps the network and SQLite, workers parse. */
export function defaultParseWorkers(): number {
  return Math.min(4, Math.max(0, availableParallelism() - 1));
}

/**
 * Parses responses on worker threads so that parsing (the crawler's largest CPU cost)
 * runs beside storage instead of in turn with it. With size 0 it parses inline.
 */
export class ParsePool {
  readonly #workers: PoolWorker[] = [];
  #nextId = 0;
  #closed = false;

  constructor(size: number) {
    for (let i = 0; i < size; i++) this.#workers.push(this.#spawn());
  }

  analyse(input: ResponseInput): Promise<ResponseAnalysis> {
    if (this.#workers.length === 0) return Promise.resolve(analyseResponse(input));
    if (this.#closed) return Promise.reject(new ForagerError('PARSE_POOL_CLOSED', 'the parse pool is closed'));
    const target = this.#leastBusy();
    const id = this.#nextId++;
    // Copy the body into a buffer of its own so it can be transferred without detaching a shared pool slab.
    const body = input.body === undefined ? undefined : new Uint8Array(input.body);
    return new Promise((resolve, reject) => {
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage({ id, input: { ...input, body } }, body === undefined ? [] : [body.buffer]);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#workers.map((w) => w.worker.terminate()));
  }

  #leastBusy(): PoolWorker {
    let best = this.#workers[0] as PoolWorker;
    for (const w of this.#workers) if (w.pending.size < best.pending.size) best = w;
    return best;
  }

  #spawn(): PoolWorker {
    const worker = new Worker(WORKER_FILE, { resourceLimits: { maxYoungGenerationSizeMb: 8 } });
    const entry: PoolWorker = { worker, pending: new Map() };
    worker.on('message', (msg: { id: number; analysis?: ResponseAnalysis; error?: string }) => {
      const job = entry.pending.get(msg.id);
      if (job === undefined) return;
      entry.pending.delete(msg.id);
      if (msg.analysis !== undefined) job.resolve(msg.analysis);
      else job.reject(new ForagerError('PARSE_FAILED', `parsing failed: ${msg.error ?? 'unknown error'}`));
    });
    // A dead worker fails its jobs (the engine records them) and is replaced.
    worker.on('error', (err) => this.#replace(entry, err));
    worker.on('exit', (code) => {
      if (!this.#closed) this.#replace(entry, new Error(`parse worker exited with code ${code}`));
    });
    return entry;
  }

  #replace(entry: PoolWorker, err: Error): void {
    for (const job of entry.pending.values()) job.reject(new ForagerError('PARSE_FAILED', `parse worker failed: ${err.message}`));
    entry.pending.clear();
    const index = this.#workers.indexOf(entry);
    if (index === -1 || this.#closed) return;
    this.#workers[index] = this.#spawn();
    void entry.worker.terminate();
  }
}
