import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { CpuPressure, type CpuReading } from '../../../../crawler/render/cpu-pressure.ts';
import type { RenderedPage, RenderInput, RenderJob } from '../../../../crawler/render/page-renderer.ts';
import { RenderGate, type ClosableRenderer } from '../../../../crawler/render/render-gate.ts';

/** A renderer whose renders end when the test says; it records when each started. */
class HeldRenderer implements ClosableRenderer {
  readonly unavailable = undefined;
  readonly started: string[] = [];
  readonly jobs: (RenderJob | undefined)[] = [];
  readonly #finish = new Map<string, () => void>();
  closed = false;

  render(input: RenderInput, job?: RenderJob): Promise<RenderedPage> {
    this.started.push(input.url);
    this.jobs.push(job);
    return new Promise((resolve) => this.#finish.set(input.url, () => resolve({ dom: `<p>${input.url}</p>`, requests: [], ms: 1, timedOut: false })));
  }

  finish(url: string): void {
    this.#finish.get(url)?.();
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

const input = (url: string): RenderInput => ({ url, status: 200, contentType: 'text/html', body: Buffer.from('<div id=root></div>') });

function pressure(): { busy: boolean; stopped: boolean; stop(): void } {
  return {
    busy: false,
    stopped: false,
    stop() {
      this.stopped = true;
    },
  };
}

describe('the render gate', () => {
  it('hands the browser no more renders than it has slots, and the next as one ends', async () => {
    const inner = new HeldRenderer();
    const gate = new RenderGate(inner, pressure(), { slots: 2, trickleMs: 10_000, pollMs: 10 });
    const done = ['a', 'b', 'c'].map((url) => gate.render(input(url)));
    assert.deepEqual(inner.started, ['a', 'b']);
    assert.equal(gate.waiting, 1);
    inner.finish('a');
    assert.equal((await done[0])?.dom, '<p>a</p>');
    await sleep(0);
    assert.deepEqual(inner.started, ['a', 'b', 'c']);
    inner.finish('b');
    inner.finish('c');
    await Promise.all(done);
    await gate.close();
  });

  it('holds renders back while the crawler is busy, lets one through per trickle period, and all once it is not', async () => {
    const inner = new HeldRenderer();
    const cpu = pressure();
    cpu.busy = true;
    const gate = new RenderGate(inner, cpu, { slots: 2, trickleMs: 150, pollMs: 10 });
    const done = ['a', 'b', 'c', 'd'].map((url) => gate.render(input(url)));
    assert.deepEqual(inner.started, ['a'], 'the first render of a busy crawl goes at once: nothing was started before it');
    inner.finish('a');
    await sleep(60);
    assert.deepEqual(inner.started, ['a'], 'no second render inside the trickle period');
    await sleep(150);
    assert.deepEqual(inner.started, ['a', 'b'], 'one more once the period is over');
    cpu.busy = false;
    await sleep(40);
    assert.deepEqual(inner.started, ['a', 'b', 'c'], 'a free CPU fills the free slot at once');
    inner.finish('b');
    await sleep(20);
    assert.deepEqual(inner.started, ['a', 'b', 'c', 'd']);
    inner.finish('c');
    inner.finish('d');
    await Promise.all(done);
    await gate.close();
  });

  it('fails the renders still waiting when it closes, and closes its browser and its pressure', async () => {
    const inner = new HeldRenderer();
    const cpu = pressure();
    const gate = new RenderGate(inner, cpu, { slots: 1, trickleMs: 10_000, pollMs: 10 });
    const first = gate.render(input('a'));
    const second = gate.render(input('b'));
    await gate.close();
    await assert.rejects(second, /closed/);
    await assert.rejects(gate.render(input('c')), /closed/);
    assert.equal(inner.closed, true);
    assert.equal(cpu.stopped, true);
    inner.finish('a');
    await first;
  });

  it("hands each render's job (its crawl's fetcher) to the browser, and drops a render cancelled while it waits", async () => {
    const inner = new HeldRenderer();
    const gate = new RenderGate(inner, pressure(), { slots: 1, trickleMs: 10_000, pollMs: 10 });
    const fetch = async () => ({ kind: 'blocked' as const, reason: 'test' });
    const cancel = new AbortController();
    const first = gate.render(input('a'), { fetch });
    const second = gate.render(input('b'), { fetch, signal: cancel.signal });
    const third = gate.render(input('c'));
    assert.equal(inner.jobs[0]?.fetch, fetch);
    cancel.abort();
    await assert.rejects(second, { name: 'RenderCancelledError' });
    assert.equal(gate.waiting, 1, 'the cancelled render left the queue');
    inner.finish('a');
    await first;
    await sleep(0);
    assert.deepEqual(inner.started, ['a', 'c'], 'the cancelled render never reached the browser');
    inner.finish('c');
    await third;
    await assert.rejects(gate.render(input('d'), { signal: cancel.signal }), { name: 'RenderCancelledError' }, 'nor does one cancelled before it is asked');
    await gate.close();
  });
});

describe('CPU pressure', () => {
  interface Step {
    /** Cores this process used, cores idle, and pages stored without the browser a second, over a 250 ms step. */
    own: number;
    idle: number;
    pages: number;
  }

  function after(steps: Step[]): boolean {
    let reading: CpuReading = { at: 0, ownMicros: 0, idleMicros: 0 };
    let pages = 0;
    let i = 0;
    const cpu = new CpuPressure(() => pages, () => reading, 60_000);
    for (; i < steps.length; i++) {
      const step = steps[i] as Step;
      reading = { at: reading.at + 250, ownMicros: reading.ownMicros + step.own * 250_000, idleMicros: reading.idleMicros + step.idle * 250_000 };
      pages += step.pages / 4;
      cpu.sample();
    }
    cpu.stop();
    return cpu.busy;
  }

  const BUSY: Step = { own: 1.2, idle: 0.3, pages: 800 };

  it('calls the crawler busy when it uses half a core or more, less than a core is idle, and pages that need no browser stream in', () => {
    assert.equal(after(Array(4).fill(BUSY)), true);
    assert.equal(after(Array(4).fill({ ...BUSY, own: 0.2 })), false, 'a light crawl leaves the CPU to renders');
    assert.equal(after(Array(4).fill({ ...BUSY, idle: 3 })), false, 'a machine with a core to spare has room for a browser');
    assert.equal(after(Array(4).fill({ ...BUSY, pages: 4 })), false, 'a crawl busy with its renders does not hold them back');
  });

  it('judges the last second only', () => {
    const busyThenQuiet: Step[] = [...Array(4).fill(BUSY), ...Array(4).fill({ own: 0.1, idle: 1.5, pages: 0 })];
    assert.equal(after(busyThenQuiet), false);
    assert.equal(after(busyThenQuiet.reverse()), true);
  });

  it('is not busy before it has measured anything', () => {
    const cpu = new CpuPressure(() => 1e6, () => ({ at: 5, ownMicros: 9e9, idleMicros: 0 }), 60_000);
    assert.equal(cpu.busy, false);
    cpu.stop();
  });
});
