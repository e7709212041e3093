// A parse worker that never finishes a response whose URL contains "stuck", and parses the rest as the real one does.
import { parentPort } from 'node:worker_threads';
import { analyseResponse, type ResponseInput } from '../../crawler/parse/analyse-response.ts';

parentPort?.postMessage({ ready: true });
parentPort?.on('message', (job: { input: ResponseInput }) => {
  if (job.input.url.includes('stuck')) for (;;);
  parentPort?.postMessage({ analysis: analyseResponse(job.input) });
});
