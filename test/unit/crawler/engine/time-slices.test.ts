import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { threadCpuMs, TimeSlicer } from '../../../../crawler/engine/time-slices.ts';

/** Steps of about 1 ms of this thread's work each. */
function* busySteps(count: number, done: { steps: number }): Generator<void, void, undefined> {
  for (let i = 0; i < count; i++) {
    const until = threadCpuMs() + 1;
    while (threadCpuMs() < until);
    done.steps++;
    yield;
  }
}

describe('work in time slices', () => {
  test('several slicers at once still give the event loop a turn after each slice', async () => {
    let lastCpu = threadCpuMs();
    let mostWork = 0;
    const timer = setInterval(() => {
      const cpu = threadCpuMs();
      mostWork = Math.max(mostWork, cpu - lastCpu);
      lastCpu = cpu;
    }, 2);
    try {
      const counts = Array.from({ length: 4 }, () => ({ steps: 0 }));
      // Slices of 20 ms: one per turn keeps a turn's work near 20 ms; four in one turn would be 80.
      const done = await Promise.all(counts.map((count) => new TimeSlicer(() => false, 20).run(busySteps(100, count))));
      assert.deepEqual(done, [true, true, true, true]);
      assert.deepEqual(counts.map((c) => c.steps), [100, 100, 100, 100]);
    } finally {
      clearInterval(timer);
    }
    assert.ok(mostWork < 50, `${mostWork.toFixed(0)} ms of work between two turns of the timer`);
  });

  test('stops between two slices once cancelled, and counts the CPU the slices took', async () => {
    let cancelled = false;
    const count = { steps: 0 };
    const slicer = new TimeSlicer(() => cancelled, 10);
    setTimeout(() => (cancelled = true), 30);
    assert.equal(await slicer.run(busySteps(10_000, count)), false);
    assert.ok(count.steps > 0 && count.steps < 10_000, `${count.steps} steps ran`);
    assert.ok(slicer.cpuMs >= count.steps * 0.9, `${slicer.cpuMs.toFixed(0)} ms counted for ${count.steps} steps of 1 ms`);
  });
});
