import { parentPort } from 'node:worker_threads';
import { freeWholeView } from '../net/free-buffer.ts';
import { analyseResponse, type ResponseInput } from './analyse-response.ts';

/** Worker side of ParsePool: analyse each response and send the result back (one job at a time). */
parentPort?.on('message', (job: { input: ResponseInput }) => {
  try {
    const analysis = analyseResponse(job.input);
    // zlib's output buffer cannot be transferred, so move the bytes into one that can.
    const storedBody = analysis.storedBody === null ? null : new Uint8Array(analysis.storedBody);
    // The body came over as this job's alone, and parsing a large page is enough allocation to carry it into the
    // old generation, where it would wait for this thread's next full collection. Freed before the answer, so
    // the pool never hears back while the memory is still held.
    freeWholeView(job.input.body);
    freeWholeView(analysis.storedBody);
    parentPort?.postMessage({ analysis: { ...analysis, storedBody } }, storedBody === null ? [] : [storedBody.buffer]);
  } catch (err) {
    parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
