import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ForagerError } from '../../../../crawler/errors.ts';
import type { ResponseInput } from '../../../../crawler/parse/analyse-response.ts';
import { ParsePool } from '../../../../crawler/parse/parse-pool.ts';

function response(url: string): ResponseInput {
  const body = new TextEncoder().encode(`<title>${url}</title><p>words about ${url}</p>`);
  return { url, status: 200, contentType: 'text/html', xRobotsTag: undefined, body, agentToken: 'forager', maxLinks: 100, kind: 'page', maxDecodedBytes: 1 << 20, documents: [] };
}

test('a job that outlasts the time-out fails as PARSE_TIMEOUT, its worker is replaced, and the jobs after it are parsed', async () => {
  const pool = new ParsePool(1, { timeoutMs: 300, workerFile: new URL('../../../support/stuck-parse-worker.ts', import.meta.url) });
  try {
    const stuck = pool.analyse(response('http://a.example/stuck'));
    const after = [pool.analyse(response('http://a.example/one')), pool.analyse(response('http://a.example/two'))];
    await assert.rejects(stuck, (err: unknown) => err instanceof ForagerError && err.code === 'PARSE_TIMEOUT' && /stuck/.test(err.message));
    const parsed = await Promise.all(after);
    assert.deepEqual(parsed.map((a) => a.page?.title), ['http://a.example/one', 'http://a.example/two']);
  } finally {
    await pool.close();
  }
});

test('when workers cannot start at all, the pool parses on its own thread', async () => {
  const pool = new ParsePool(1, { workerFile: new URL('../../../support/no-such-worker.ts', import.meta.url) });
  try {
    const analysis = await pool.analyse(response('http://a.example/one'));
    assert.equal(analysis.page?.title, 'http://a.example/one');
  } finally {
    await pool.close();
  }
});

test('the worker frees each body it parsed at once, not at its next full collection', async () => {
  const pool = new ParsePool(1);
  try {
    // Parsing a large page allocates enough to carry its body into the worker's old generation.
    const body = Buffer.from(`<html><body>${'<p>write-ahead <a href="/wal">logging</a> and checkpoints</p>'.repeat(30_000)}</body></html>`);
    const job: ResponseInput = { ...response('http://a.example/'), body, maxDecodedBytes: 1 << 24 };
    await pool.analyse(job);
    // The pool copies each body into a buffer of its own and moves it to the worker; the memory is still
    // this thread's to account for (its allocator made it) until the worker lets go of it.
    const before = process.memoryUsage().arrayBuffers;
    let mostHeld = 0;
    for (let i = 0; i < 20; i++) {
      await pool.analyse(job);
      mostHeld = Math.max(mostHeld, process.memoryUsage().arrayBuffers - before);
    }
    assert.ok(mostHeld < body.length, `${mostHeld} bytes held at worst, bodies of ${body.length}`);
  } finally {
    await pool.close();
  }
});

test('after a page of a megabyte or more, the worker collects its text at once (in a process started with --expose-gc)', () => {
  const script = fileURLToPath(new URL('../../../support/large-pages-parse.ts', import.meta.url));
  const run = spawnSync(process.execPath, ['--expose-gc', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  const { leastExternal, mostExternal, pageBytes, workers } = JSON.parse(run.stdout) as { leastExternal: number; mostExternal: number; pageBytes: number; workers: number };
  assert.equal(workers, 1);
  // Without the collection, the texts of several pages were alive at once (here up to five of them).
  const piledUp = mostExternal - leastExternal;
  assert.ok(piledUp < pageBytes, `the worker's memory outside its heap varied by ${piledUp} bytes between jobs; pages of ${pageBytes}`);
});
