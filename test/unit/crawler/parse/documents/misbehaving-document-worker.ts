/*
 * A document worker for the pool's tests: on a URL naming "spin" it computes for ever, on one
 * naming "stall" it waits for ever without computing, on one naming "hog" it fills its heap;
 * anything else it reads as the real document worker does.
 */
import { analyseDocument } from '../../../../../crawler/parse/documents/analyse-document.ts';
import { serveAnalyses } from '../../../../../crawler/parse/worker-pool.ts';
import type { ResponseInput } from '../../../../../crawler/parse/analyse-response.ts';

function misbehave(input: ResponseInput): Promise<never> | undefined {
  if (input.url.includes('spin')) for (;;);
  if (input.url.includes('stall')) return new Promise<never>(() => undefined);
  if (input.url.includes('hog')) {
    const hoard: number[][] = [];
    for (;;) hoard.push(Array.from({ length: 100_000 }, (_, i) => i + hoard.length));
  }
  return undefined;
}

serveAnalyses((input) => misbehave(input) ?? analyseDocument(input));
