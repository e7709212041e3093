import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { attributeProfile, readThreadStages, stageReport, type CpuProfile, type ProfileNode, type SourceLines } from '../../bench/support/stage-profile.ts';

const DIST = 'file:///repo/dist/crawler';
const PAGE_STORE = `${DIST}/store/page-store.js`;
const SOURCE: Record<string, string[]> = {
  [PAGE_STORE]: ['insert(p) {', '  const info = this.#insertPage.run(...pageValues(p));', '  if (!p.noindex) this.#insertFts.run(seq, p.title, p.text);', '}'],
};
const sourceLines: SourceLines = (url, line) => SOURCE[url]?.[line - 1];

function frame(id: number, functionName: string, url: string, children: number[] = [], extra: Partial<ProfileNode> = {}): ProfileNode {
  return { id, callFrame: { functionName, url, lineNumber: 5, columnNumber: 2 }, children, ...extra };
}

/**
 * A main thread's profile, by hand. Its samples last 1 ms each (the last until the end), so
 * each node's time in ms is its count of samples.
 */
function mainThread(): CpuProfile {
  const nodes = [
    frame(1, '(root)', '', [2, 5, 7, 9, 10, 11]),
    // A socket write under undici: Node's streams are fetch's, and so is the native call inside them.
    frame(2, 'writeBuffer', 'file:///repo/node_modules/undici/lib/dispatcher/client-h1.js', [3]),
    frame(3, 'Writable.write', 'node:internal/streams/writable', [4]),
    frame(4, 'writeLatin1String', ''),
    // The extractor under the worker pool: the innermost known frame wins, and a Buffer method under it is parse's.
    frame(5, 'onmessage', `${DIST}/parse/worker-pool.js`, [6]),
    frame(6, 'extractHtml', `${DIST}/parse/extract-html.js`, [12]),
    frame(12, 'toString', 'node:buffer'),
    // One frame, two lines: the page's row (store), then its full-text row.
    frame(7, 'insert', PAGE_STORE, [8], { positionTicks: [{ line: 2, ticks: 1 }, { line: 3, ticks: 3 }] }),
    frame(8, 'pageValues', `${DIST}/store/page-row.js`),
    frame(9, '(garbage collector)', ''),
    frame(10, '(idle)', ''),
    // Nothing known on its stack.
    frame(11, 'emit', 'node:events'),
  ];
  const samples = [4, 4, 3, 6, 12, 12, 7, 7, 7, 7, 8, 9, 10, 10, 10, 11];
  return { nodes, samples, timeDeltas: samples.map(() => 1000), startTime: 0, endTime: (samples.length + 1) * 1000 };
}

function ms(times: Map<string, number>, stage: string): number {
  return (times.get(stage) ?? 0) / 1000;
}

describe('attributeProfile', () => {
  const { byStage, byStageScript } = attributeProfile(mainThread(), sourceLines);

  it('gives a sample to the innermost frame that the table knows', () => {
    assert.equal(ms(byStage, 'fetch'), 3);
    assert.equal(ms(byStage, 'parse'), 3);
    assert.equal(ms(byStage, 'parse hand-off'), 0);
    assert.equal(ms(byStage, 'other'), 1);
  });

  it("tells a frame's own samples apart by the line they were on", () => {
    assert.equal(ms(byStage, 'full-text index'), 3);
    assert.equal(ms(byStage, 'store'), 2, "the page's row and pageValues");
    assert.equal((byStageScript.get('store')?.get('page-row.js') ?? 0) / 1000, 1);
  });

  it("counts a crawl's batches of full-text rows (store/text-index-queue.ts) as the full-text index", () => {
    const nodes = [frame(1, '(root)', '', [2]), frame(2, 'flush', `${DIST}/store/text-index-queue.js`)];
    const batches = attributeProfile({ nodes, samples: [2, 2], timeDeltas: [1000, 1000], startTime: 0, endTime: 3000 }, sourceLines);
    assert.equal(ms(batches.byStage, 'full-text index'), 2);
    assert.equal(ms(batches.byStage, 'store'), 0);
  });

  it("keeps V8's own entries apart", () => {
    assert.equal(ms(byStage, 'gc'), 1);
    assert.equal(ms(byStage, 'idle'), 3);
  });
});

describe('attributeProfile on a thread that waited for a core', () => {
  it("counts each sample as the profile's usual interval, not the gap to the next one, which holds the wait", () => {
    const profile: CpuProfile = {
      nodes: [frame(1, '(root)', '', [2, 3]), frame(2, 'extractHtml', `${DIST}/parse/extract-html.js`), frame(3, 'insertLink', `${DIST}/store/page-store.js`)],
      samples: [2, 3, 3],
      // Off the core for 9 ms after the first sample.
      timeDeltas: [1000, 9000, 1000],
      startTime: 0,
      endTime: 12_000,
    };
    const { byStage } = attributeProfile(profile, sourceLines);
    assert.equal(ms(byStage, 'parse'), 1);
    assert.equal(ms(byStage, 'store'), 2);
  });
});

describe('readThreadStages and stageReport', () => {
  it('names the threads from their files, takes the profiles of one thread together, and sums each stage over the threads, idle left out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'forager-stage-profile-'));
    try {
      const worker: CpuProfile = {
        nodes: [frame(1, '(root)', '', [2]), frame(2, 'serve', `${DIST}/parse/parse-worker.js`, [3]), frame(3, 'extractHtml', `${DIST}/parse/extract-html.js`)],
        samples: [3, 3, 3, 3],
        timeDeltas: [1000, 1000, 1000, 1000],
        startTime: 0,
        endTime: 5000,
      };
      writeFileSync(join(dir, 'CPU.20261129.101816.4242.3.002.cpuprofile'), JSON.stringify(worker));
      // A document worker runs the crawler's parse modules too, and pdf.js.
      const documents: CpuProfile = {
        nodes: [frame(1, '(root)', '', [2]), frame(2, 'readPdf', `${DIST}/parse/documents/read-pdf.js`, [3]), frame(3, 'getTextContent', 'file:///repo/node_modules/pdfjs-dist/legacy/build/pdf.mjs')],
        samples: [3],
        timeDeltas: [1000],
        startTime: 0,
        endTime: 2000,
      };
      writeFileSync(join(dir, 'CPU.20261129.101817.4242.4.003.cpuprofile'), JSON.stringify(documents));
      writeFileSync(join(dir, 'CPU.20261129.101815.4242.0.001.cpuprofile'), JSON.stringify(mainThread()));
      // The main thread's profile from before the CLI started itself again (same pid, thread 0).
      const beforeExec: CpuProfile = { nodes: [frame(1, '(root)', '', [2]), frame(2, 'parseHtml', `${DIST}/parse/extract-html.js`)], samples: [2], timeDeltas: [1000], startTime: 0, endTime: 2000 };
      writeFileSync(join(dir, 'CPU.20261129.101814.4242.0.000.cpuprofile'), JSON.stringify(beforeExec));
      const threads = readThreadStages(dir, sourceLines);
      assert.deepEqual(threads.map((t) => t.thread), ['main', 'parse worker', 'document worker']);
      const report = stageReport(threads, 2);
      const parse = report.rows.find((row) => row.stage === 'parse');
      assert.deepEqual(parse?.byThread, [3000 + 1000, 4000, 1000]);
      assert.equal(report.busyUs, 13_000 + 1000 + 4000 + 1000);
      assert.deepEqual(report.threads.map((t) => t.idleUs), [3000, 0, 0]);
      assert.ok(!report.rows.some((row) => row.stage === 'idle'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sets each thread's time to its measured CPU time, shared as its samples are, and reports the threads no profile covers", () => {
    const threads = [
      { thread: 'main', times: attributeProfile(mainThread(), sourceLines) },
      { thread: 'parse worker', times: attributeProfile({ nodes: [frame(1, '(root)', '', [2]), frame(2, 'extractHtml', `${DIST}/parse/extract-html.js`)], samples: [2, 2], timeDeltas: [1000, 1000], startTime: 0, endTime: 3000 }, sourceLines) },
    ];
    const measured = [
      { tid: 10, name: 'MainThread', cpuMs: 26 },
      { tid: 11, name: 'V8Worker', cpuMs: 5 },
      { tid: 12, name: 'libuv-worker', cpuMs: 3 },
      { tid: 13, name: 'WorkerThread', cpuMs: 1 },
    ];
    const report = stageReport(threads, 1, measured);
    assert.equal(report.measured, true);
    // The main thread's 13 sampled ms (idle apart) are 26 ms of CPU: each stage doubles; idle stays as sampled.
    assert.deepEqual(report.rows.find((row) => row.stage === 'full-text index')?.byThread, [6000, 0]);
    assert.deepEqual(report.rows.find((row) => row.stage === 'parse')?.byThread, [6000, 1000]);
    assert.deepEqual(report.threads.map((t) => [t.busyUs, t.idleUs]), [[26_000, 3000], [1000, 0]]);
    assert.deepEqual(report.unprofiled, [{ kind: "V8's helpers (GC, compiler)", us: 5000 }, { kind: "libuv's pool", us: 3000 }]);
    assert.equal(stageReport(threads, 1, measured.slice(0, 3)).measured, false, 'no WorkerThread for the parse worker: the samples stand');
  });
});
