/*
 * Parses large pages through a ParsePool and prints, as JSON, the least and the most external
 * memory its worker held after a job. Run by parse-pool.test.ts in a child process, with or without
 * --expose-gc (which flags a process starts with cannot change inside it).
 */
import { subscribe } from 'node:diagnostics_channel';
import type { Worker } from 'node:worker_threads';
import { ParsePool } from '../../crawler/parse/parse-pool.ts';

const workers: Worker[] = [];
subscribe('worker_threads', (message) => workers.push((message as { worker: Worker }).worker));

const pool = new ParsePool(1);
// 1.3 MB: from about a megabyte on, Node decodes a body into a string outside V8's heap.
const page = Buffer.from(`<html><body>${'<p>write-ahead <a href="/wal">logging</a> and checkpoints</p>'.repeat(22_000)}</body></html>`);
let leastExternal = Infinity;
let mostExternal = 0;
try {
  for (let i = 0; i < 16; i++) {
    await pool.analyse({ url: `http://a.example/${i}`, status: 200, contentType: 'text/html', xRobotsTag: undefined, body: Buffer.from(page), agentToken: 'forager', maxLinks: 100, kind: 'page', maxDecodedBytes: 1 << 24, documents: [] });
    const stats = await (workers[0] as Worker).getHeapStatistics();
    leastExternal = Math.min(leastExternal, stats.external_memory);
    mostExternal = Math.max(mostExternal, stats.external_memory);
  }
} finally {
  await pool.close();
}
process.stdout.write(JSON.stringify({ leastExternal, mostExternal, pageBytes: page.length, workers: workers.length }));
