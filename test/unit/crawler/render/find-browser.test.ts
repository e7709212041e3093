import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findBrowser } from '../../../../crawler/render/find-browser.ts';

describe('finding a browser to render with', () => {
  it('uses the browser the settings name, and says plainly when it is not there', () => {
    assert.deepEqual(findBrowser(process.execPath), { kind: 'found', path: process.execPath });
    const missing = findBrowser('/nowhere/chromium');
    assert.equal(missing.kind, 'missing');
    assert.match(missing.kind === 'missing' ? missing.message : '', /\/nowhere\/chromium .*not an executable/);
  });

  it('says how to get one when the system has none', () => {
    const none = findBrowser('', 'plan9');
    assert.equal(none.kind, 'missing');
    assert.match(none.kind === 'missing' ? none.message : '', /install chromium, or name one with --browser/);
  });
});
