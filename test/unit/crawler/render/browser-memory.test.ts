import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { descendantsMemoryMb } from '../../../../crawler/render/browser-memory.ts';

describe('the memory of the processes a crawl started', () => {
  it('counts a child process, and nothing once it is gone', async () => {
    const before = descendantsMemoryMb() ?? 0;
    // A child that holds about 40 MB until it is killed.
    const child = spawn(process.execPath, ['-e', 'globalThis.held = Buffer.alloc(40 * 1024 * 1024, 1); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      let during = 0;
      for (let i = 0; i < 50 && during - before < 40; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        during = descendantsMemoryMb() ?? 0;
      }
      assert.ok(during - before >= 40, `the child's memory is counted (${before.toFixed(0)} → ${during.toFixed(0)} MB)`);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    assert.ok((descendantsMemoryMb() ?? 0) < before + 5, 'a child that ended is not counted');
  });
});
