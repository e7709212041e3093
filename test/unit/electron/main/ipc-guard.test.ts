import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { APP_ENTRY_URL, APP_ORIGIN } from '../../../../electron/shared/app-origin.ts';
import { checkExportId, checkIpcCall, checkIpcSender } from '../../../../electron/main/ipc-guard.ts';
import type { IpcCallCheck, IpcSender } from '../../../../electron/main/ipc-guard.ts';

const APP: IpcSender = { url: APP_ENTRY_URL, isMainFrame: true };

function refusalCode(check: IpcCallCheck | ReturnType<typeof checkExportId>): string {
  assert.equal(check.ok, false, 'expected a refusal');
  if (check.ok) throw new Error('unreachable');
  assert.equal(check.reply.ok, false);
  return check.reply.error.code;
}

describe('checkIpcSender', () => {
  test('the main frame of the app passes, also with a route and query', () => {
    assert.equal(checkIpcSender(APP, APP_ORIGIN), undefined);
    assert.equal(checkIpcSender({ url: `${APP_ORIGIN}/index.html?x=1#/pages`, isMainFrame: true }, APP_ORIGIN), undefined);
  });

  test('a frame Electron no longer knows is forbidden', () => {
    assert.equal(checkIpcSender(null, APP_ORIGIN)?.reply.error.code, 'FORBIDDEN');
  });

  test('a subframe is forbidden even when it shows the app origin', () => {
    assert.equal(checkIpcSender({ url: APP_ENTRY_URL, isMainFrame: false }, APP_ORIGIN)?.reply.error.code, 'FORBIDDEN');
    assert.equal(checkIpcSender({ url: 'forager-page://wal/3', isMainFrame: false }, APP_ORIGIN)?.reply.error.code, 'FORBIDDEN');
  });

  test('a main frame showing another origin is forbidden', () => {
    for (const url of [
      'https://example.org/',
      'http://forager/index.html',
      'app://forager.evil/index.html',
      'app://evil/index.html',
      'app://forager:81/index.html',
      'forager-page://wal/3',
      'file:///index.html',
      'about:blank',
      'data:text/html,hi',
      'not a url',
      '',
    ]) {
      assert.equal(checkIpcSender({ url, isMainFrame: true }, APP_ORIGIN)?.reply.error.code, 'FORBIDDEN', url);
    }
  });
});

describe('checkIpcCall', () => {
  test('a valid call passes, and the input returned is the parsed one', () => {
    const input = { collection: 'wal', sort: 'relevance', limit: 50 };
    const check = checkIpcCall(APP, APP_ORIGIN, 'listPages', input);
    assert.equal(check.ok, true);
    if (!check.ok) return;
    assert.equal(check.method, 'listPages');
    assert.deepEqual(check.input, input);
    assert.notEqual(check.input, input, 'the schema output, not the renderer object, goes on');
  });

  test('a call without input gets an empty object', () => {
    const check = checkIpcCall(APP, APP_ORIGIN, 'info', undefined);
    assert.deepEqual(check, { ok: true, method: 'info', input: {} });
  });

  test('the sender is checked before anything else', () => {
    assert.equal(refusalCode(checkIpcCall(null, APP_ORIGIN, 'info', undefined)), 'FORBIDDEN');
    assert.equal(refusalCode(checkIpcCall({ url: APP_ENTRY_URL, isMainFrame: false }, APP_ORIGIN, 'nope', 1)), 'FORBIDDEN');
    assert.equal(refusalCode(checkIpcCall({ url: 'https://example.org/', isMainFrame: true }, APP_ORIGIN, 'info', undefined)), 'FORBIDDEN');
  });

  test('unknown methods are refused, including inherited and non-string names', () => {
    for (const method of ['nope', 'constructor', 'toString', '__proto__', 'hasOwnProperty', '', 42, null, undefined, { toString: () => 'info' }]) {
      assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, method, undefined)), 'UNKNOWN_METHOD', String(method));
    }
  });

  test('extra keys are refused', () => {
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'crawlStatus', { collection: 'wal', dir: '/etc' })), 'INVALID_INPUT');
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'info', { verbose: true })), 'INVALID_INPUT');
  });

  test('wrong types are refused', () => {
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'getPage', { collection: 'wal', seq: '3' })), 'INVALID_INPUT');
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'getPage', { collection: 'wal', seq: 1.5 })), 'INVALID_INPUT');
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'crawlStatus', 'wal')), 'INVALID_INPUT');
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'crawlStatus', null)), 'INVALID_INPUT');
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'createCollection', { query: 'wal', seeds: 'https://example.org/' })), 'INVALID_INPUT');
  });

  test('oversized strings and arrays are refused', () => {
    const seeds = ['https://example.org/'];
    assert.equal(checkIpcCall(APP, APP_ORIGIN, 'createCollection', { query: 'q'.repeat(2_000), seeds }).ok, true);
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'createCollection', { query: 'q'.repeat(2_001), seeds })), 'INVALID_INPUT');
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'crawlStatus', { collection: 'c'.repeat(201) })), 'INVALID_INPUT');
    const tooManySeeds = Array.from({ length: 1_001 }, (_, i) => `https://example.org/${i}`);
    assert.equal(refusalCode(checkIpcCall(APP, APP_ORIGIN, 'createCollection', { query: 'wal', seeds: tooManySeeds })), 'INVALID_INPUT');
  });

  test('the refusal message names the offending field', () => {
    const check = checkIpcCall(APP, APP_ORIGIN, 'getPage', { collection: 'wal', seq: 0 });
    assert.equal(check.ok, false);
    if (check.ok) return;
    assert.match(check.reply.error.message, /seq/);
  });
});

describe('checkExportId', () => {
  test('an id from the service passes', () => {
    assert.deepEqual(checkExportId(APP, APP_ORIGIN, '0f3a9c51e2b47d8a6c1e5f90'), { ok: true, exportId: '0f3a9c51e2b47d8a6c1e5f90' });
  });

  test('a foreign sender is forbidden', () => {
    assert.equal(refusalCode(checkExportId({ url: 'forager-page://wal/3', isMainFrame: false }, APP_ORIGIN, 'abc')), 'FORBIDDEN');
  });

  test('anything but a short plain token is refused', () => {
    for (const id of ['', '../../etc/passwd', 'a/b', 'a.b', 'x'.repeat(201), 7, null, undefined, ['abc']]) {
      assert.equal(refusalCode(checkExportId(APP, APP_ORIGIN, id)), 'INVALID_INPUT', String(id));
    }
  });
});
