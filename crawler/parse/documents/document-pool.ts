import { AnalysisPool } from '../worker-pool.ts';

// The worker runs from source under type stripping (tests) and from dist/ when built.
const WORKER_FILE = new URL(import.meta.url.endsWith('.ts') ? './document-worker.ts' : './document-worker.js', import.meta.url);

/**
 * The hard caps on one document's reading, past which its worker is ended and replaced. They
 * sit above the reading's own budget (read-pdf.ts: 15 s of CPU, 25 s), which keeps the pages
 * read so far; these end a reading stuck inside one page, however slowly the machine runs it.
 */
export const PDF_CPU_CAP_MS = 20_000;
export const PDF_WALL_CAP_MS = 30_000;
/**
 * The document worker's heap. Reading R's 2,415-page reference manual (its first 2,000 pages)
 * used at most 111 MB of it, GNU Octave's 1,158-page manual 101 MB; a document that needs more
 * than twice that is hostile, and only this worker dies of it.
 */
export const DOCUMENT_WORKER_HEAP_MB = 256;

export interface DocumentPoolOptions {
  /** Workers, started at the first document; default 1. */
  size?: number;
  cpuTimeMs?: number;
  timeoutMs?: number;
  heapMb?: number;
  /** The worker's entry point; tests name one that misbehaves. */
  workerFile?: URL;
}

/**
 * Reads PDFs on worker threads of their own, apart from the parse pool, so that one long PDF
 * never holds up HTML parsing. A reading past its CPU or wall-clock cap fails with
 * PARSE_TIMEOUT, one that exhausts the heap with PARSE_FAILED (failure 'out-of-memory'); either
 * way the worker is replaced. Where no worker can start, readings fail: a PDF is never read on
 * the crawl's own thread.
 */
export class DocumentPool extends AnalysisPool {
  constructor(options: DocumentPoolOptions = {}) {
    super({
      name: 'document',
      size: options.size ?? 1,
      workerFile: options.workerFile ?? WORKER_FILE,
      timeoutMs: options.timeoutMs ?? PDF_WALL_CAP_MS,
      cpuTimeMs: options.cpuTimeMs ?? PDF_CPU_CAP_MS,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? DOCUMENT_WORKER_HEAP_MB, maxYoungGenerationSizeMb: 16 },
      lazy: true,
    });
  }
}
