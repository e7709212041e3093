import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { descendantPids } from '../../../../crawler/render/browser-memory.ts';
import { BrowserPool } from '../../../../crawler/render/browser-pool.ts';
import { findBrowser } from '../../../../crawler/render/find-browser.ts';

const browser = findBrowser('');

/** A process's niceness: the 19th field of /proc/<pid>/stat, counted after the command name. */
function niceness(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return undefined;
  }
}

describe('the browser pool', { skip: browser.kind === 'missing' ? 'no Chromium-family browser on this machine' : false }, () => {
  it('runs the browser below the crawler\'s priority, renderers included, and closes it', async () => {
    const pool = new BrowserPool({ executablePath: browser.kind === 'found' ? browser.path : '', contexts: 1 });
    try {
      await pool.withContext(async () => undefined, async (context) => {
        const page = await context.newPage();
        await page.setContent('<p>renderer up</p>');
      });
      const seen = (descendantPids() ?? []).map((pid) => niceness(pid)).filter((n): n is number => n !== undefined);
      assert.ok(seen.length >= 2, `browser processes seen: ${seen.length}`);
      assert.ok(seen.every((n) => n === 10), `every browser process runs at niceness 10: ${seen.join(', ')}`);
    } finally {
      await pool.close();
    }
    assert.deepEqual(descendantPids(), [], 'no browser process outlives the pool');
  });
});
