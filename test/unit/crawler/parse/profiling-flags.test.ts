import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { profilingFlags } from '../../../../crawler/parse/profiling-flags.ts';

describe('profilingFlags', () => {
  it('keeps the CPU-profiling flags and their values, in either form', () => {
    assert.deepEqual(profilingFlags(['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--cpu-prof-interval=250']), ['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--cpu-prof-interval=250']);
  });

  it("leaves out the process's other flags, and a value that looks like a flag stays with its own", () => {
    assert.deepEqual(profilingFlags(['--expose-gc', '--max-semi-space-size=2', '--cpu-prof', '--input-type', 'module']), ['--cpu-prof']);
    assert.deepEqual(profilingFlags(['--cpu-prof-dir', '--cpu-prof']), ['--cpu-prof-dir', '--cpu-prof']);
  });

  it('leaves out the file name, which every thread would write over', () => {
    assert.deepEqual(profilingFlags(['--cpu-prof', '--cpu-prof-name', 'main.cpuprofile', '--cpu-prof-name=x']), ['--cpu-prof']);
  });

  it('gives nothing when the process is not profiled', () => {
    assert.deepEqual(profilingFlags(['--expose-gc', '--heap-growing-percent=50']), []);
  });
});
