import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ResponseInput } from '../../../../../crawler/parse/analyse-response.ts';
import { DocumentPool } from '../../../../../crawler/parse/documents/document-pool.ts';
import { AnalysisJobError } from '../../../../../crawler/parse/worker-pool.ts';
import { simplePdf } from '../../../../support/hostile-pdfs.ts';

const MISBEHAVING = new URL('./misbehaving-document-worker.ts', import.meta.url);

function pdf(name: string, line = `The document called ${name}.`): ResponseInput {
  return { url: `https://docs.example/${name}.pdf`, status: 200, contentType: 'application/pdf', xRobotsTag: undefined, body: simplePdf([[line]]), agentToken: 'forager', maxLinks: 100, kind: 'page', maxDecodedBytes: 1 << 24, documents: ['pdf'] };
}

function failsWith(failure: AnalysisJobError['failure'], code: string) {
  return (err: unknown): boolean => err instanceof AnalysisJobError && err.failure === failure && err.code === code;
}

describe('the document pool', () => {
  it('starts no worker until the first document', async () => {
    const pool = new DocumentPool();
    try {
      const analysis = await pool.analyse(pdf('first'));
      assert.equal(analysis.page?.title, 'The document called first.');
      assert.equal(analysis.document?.pageCount, 1);
    } finally {
      await pool.close();
    }
  });

  it('ends a reading past its CPU cap long before the wall-clock cap, replaces the worker, and reads the next document', { timeout: 20_000 }, async () => {
    const pool = new DocumentPool({ workerFile: MISBEHAVING, cpuTimeMs: 500, timeoutMs: 60_000 });
    try {
      const started = performance.now();
      const spinning = pool.analyse(pdf('spin'));
      const next = pool.analyse(pdf('next'));
      await assert.rejects(spinning, failsWith('cpu-time', 'PARSE_TIMEOUT'));
      assert.ok(performance.now() - started < 10_000, `ended after ${Math.round(performance.now() - started)} ms`);
      assert.equal((await next).page?.title, 'The document called next.');
    } finally {
      await pool.close();
    }
  });

  it('ends a reading that waits for ever at the wall-clock cap (it uses no CPU)', { timeout: 20_000 }, async () => {
    const pool = new DocumentPool({ workerFile: MISBEHAVING, cpuTimeMs: 60_000, timeoutMs: 1000 });
    try {
      await assert.rejects(pool.analyse(pdf('stall')), failsWith('time', 'PARSE_TIMEOUT'));
      assert.equal((await pool.analyse(pdf('next'))).page?.title, 'The document called next.');
    } finally {
      await pool.close();
    }
  });

  it('a reading that exhausts its heap cap kills only its worker, early: out-of-memory, and the next document is read', { timeout: 60_000 }, async () => {
    const pool = new DocumentPool({ workerFile: MISBEHAVING, heapMb: 64 });
    const baseline = process.memoryUsage().rss;
    let peakRss = baseline;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 10);
    try {
      await assert.rejects(pool.analyse(pdf('hog')), failsWith('out-of-memory', 'PARSE_FAILED'));
      // A 64 MB heap and what a worker has besides: without the cap, V8's default heap (gigabytes) fills first.
      assert.ok(peakRss - baseline < 300 * 1024 * 1024, `memory grew by ${Math.round((peakRss - baseline) / 1048576)} MB`);
      assert.equal((await pool.analyse(pdf('next'))).page?.title, 'The document called next.');
    } finally {
      clearInterval(sampler);
      await pool.close();
    }
  });

  it('where no worker can start, readings fail (a PDF is never read on the crawl thread)', async () => {
    const pool = new DocumentPool({ workerFile: new URL('./no-such-worker.ts', import.meta.url) });
    try {
      await assert.rejects(pool.analyse(pdf('nowhere')), failsWith('no-worker', 'PARSE_FAILED'));
      await assert.rejects(pool.analyse(pdf('still-nowhere')), failsWith('no-worker', 'PARSE_FAILED'));
    } finally {
      await pool.close();
    }
  });
});
