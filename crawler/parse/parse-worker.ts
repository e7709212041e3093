import { parentPort } from 'node:worker_threads';
import { freeWholeView } from '../memory/free-buffer.ts';
import { analyseResponse, type ResponseInput } from './analyse-response.ts';

/**
 * From about a megabyte on, Node keeps a decoded string outside V8's heap (an external
 * string), and V8 frees it only at a full collection, which it starts for external memory
 * only past tens of megabytes: a few large pages' texts stayed alive beside each other
 * (up to 24 MB in the soak). After such a page, this thread collects at once, when the
 * process was started with --expose-gc (the CLI and the app's crawler process are).
 */
const LARGE_BODY_BYTES = 1024 * 1024;
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/**
 * Worker side of ParsePool: say it is ready once its modules are loaded (a job's time-out
 * must not count the worker's start), then analyse each response and send the result back
 * (one job at a time).
 */
parentPort?.postMessage({ ready: true });
parentPort?.on('message', (job: { input: ResponseInput }) => {
  const large = (job.input.body?.length ?? 0) >= LARGE_BODY_BYTES;
  let message: object;
  let transfer: ArrayBuffer[] = [];
  try {
    const analysis = analyseResponse(job.input);
    // zlib's output buffer cannot be transferred, so move the bytes into one that can.
    const storedBody = analysis.storedBody === null ? null : new Uint8Array(analysis.storedBody);
    freeWholeView(analysis.storedBody);
    message = { analysis: { ...analysis, storedBody } };
    if (storedBody !== null) transfer = [storedBody.buffer];
  } catch (err) {
    message = { error: err instanceof Error ? err.message : String(err) };
  }
  // The body came over as this job's alone, and parsing a large page is enough allocation to carry it into the
  // old generation, where it would wait for this thread's next full collection. Freed before the answer, whether
  // parsing succeeded or threw, so the pool never hears back while the memory is still held.
  freeWholeView(job.input.body);
  if (large) collectGarbage?.();
  parentPort?.postMessage(message, transfer);
});
