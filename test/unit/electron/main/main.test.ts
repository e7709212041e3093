/*
 * electron/main/main.ts under Node against the shared fake Electron (test/support/
 * fake-electron.ts). The crawler's utility process is stood in for by
 * serveCrawler on the other end of the port main hands to utilityProcess.fork.
 * The checks run in order: main.ts has process-wide side effects and loads once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CRAWLER_MALLOC_ENV, CRAWLER_NODE_FLAGS } from '../../../../crawler/memory/process-tuning.ts';
import type { ApiReply } from '../../../../crawler/protocol/wire.ts';
import { serveCrawler } from '../../../../electron/crawler-process/crawler-host.ts';
import { emitApp, fake, FakeService, FakeWebContents, FakeWindow, installFakeElectron, type Handler } from '../../../support/fake-electron.ts';

installFakeElectron();

const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
const service = new FakeService();
const dispatched: { method: unknown; input: unknown }[] = [];
let workDir = '';

function appSender(overrides: Partial<{ url: string; parent: unknown; frameTreeNodeId: number; sender: unknown }> = {}): unknown {
  const win = FakeWindow.all[0] as FakeWindow;
  return {
    sender: overrides.sender ?? win.webContents,
    senderFrame: {
      url: overrides.url ?? 'app://forager/index.html',
      parent: overrides.parent ?? null,
      frameTreeNodeId: overrides.frameTreeNodeId ?? 1,
      detached: false,
    },
  };
}

function settle(ms = 20): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

before(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'forager-electron-main-'));
  fake.userData = path.join(workDir, 'userData');
  await import('../../../../electron/main/main.ts');
  assert.ok(fake.ready, 'main waits for ready');
  fake.ready?.();
  fake.ready = undefined;
  await settle();
  const fork = fake.forks[0];
  assert.ok(fork?.port, 'main handed a port to the crawler process');
  serveCrawler(fork.port, service, async (method, input): Promise<ApiReply> => {
    dispatched.push({ method, input });
    return { ok: true, value: `answer to ${String(method)}` };
  }, async (_request, target) => new Response(JSON.stringify(target), { headers: { 'content-type': 'application/json' } }));
});

after(async () => {
  for (const port of fake.openPorts) port.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('electron/main/main.ts wiring (stand-in electron)', () => {
  test('schemes: app is standard and secure; forager-page is secure, non-standard, no fetch, CORS or workers', () => {
    const app = fake.privileged.find((s) => s.scheme === 'app');
    const page = fake.privileged.find((s) => s.scheme === 'forager-page');
    assert.deepEqual(app?.privileges, { standard: true, secure: true, supportFetchAPI: true });
    assert.deepEqual(page?.privileges, { secure: true });
    assert.equal(fake.sandboxEnabled, true);
    assert.deepEqual([...fake.protocolHandlers.keys()].sort(), ['app', 'forager-page']);
  });

  test('one window, sandboxed and isolated, loading the app from app://', () => {
    assert.equal(FakeWindow.all.length, 1);
    const win = FakeWindow.all[0] as FakeWindow;
    assert.equal(win.loaded, 'app://forager/index.html');
    assert.equal(win.options.width, 1280);
    assert.equal(win.options.height, 800);
    assert.equal(win.options.minWidth, 1024);
    assert.equal(win.options.minHeight, 700);
    const prefs = win.options.webPreferences as Record<string, unknown>;
    assert.equal(prefs.contextIsolation, true);
    assert.equal(prefs.sandbox, true);
    assert.equal(prefs.nodeIntegration, false);
    assert.equal(prefs.webSecurity, true);
    assert.equal(prefs.spellcheck, false);
    assert.equal(path.basename(String(prefs.preload)), 'preload.cjs');
    assert.equal(path.basename(path.dirname(String(prefs.preload))), 'preload', 'the preload is built beside main, in its own folder');
  });

  test('the crawler process is forked once with the collections folder under userData', () => {
    assert.equal(fake.forks.length, 1);
    assert.equal(path.basename(fake.forks[0]?.entry ?? ''), 'crawler-process.js');
    assert.equal(path.basename(path.dirname(fake.forks[0]?.entry ?? '')), 'crawler-process');
    assert.deepEqual(fake.forks[0]?.start, { dir: path.join(fake.userData, 'userData', 'collections') });
  });

  test("the crawler process runs with the CLI's heap flags and malloc settings", () => {
    const shebang = readFileSync(path.join(REPO_ROOT, 'bin/forager.js'), 'utf8').split('\n')[0] ?? '';
    assert.deepEqual(shebang.split(' ').filter((word) => word.startsWith('--')), CRAWLER_NODE_FLAGS, 'the shebang repeats the flags');
    assert.deepEqual(fake.forks[0]?.execArgv, CRAWLER_NODE_FLAGS);
    for (const [name, value] of Object.entries(CRAWLER_MALLOC_ENV)) assert.equal(fake.forks[0]?.env[name], process.env[name] ?? value, name);
  });

  test('the session denies every permission and blocks the network', () => {
    let granted: boolean | undefined;
    fake.permissionRequest?.({}, 'media', (allowed: boolean) => { granted = allowed; });
    assert.equal(granted, false);
    assert.equal(fake.permissionCheck?.({}, 'clipboard-read'), false);
    for (const scheme of ['http', 'https', 'ws', 'wss']) assert.ok(fake.blockedUrls.includes(`${scheme}://*/*`), scheme);
  });

  test('forager:call from the app reaches the crawler with the parsed input', async () => {
    const call = fake.ipcHandlers.get('forager:call');
    assert.ok(call);
    const reply = await call(appSender(), 'crawlStatus', { collection: 'wal' });
    assert.deepEqual(reply, { ok: true, value: 'answer to crawlStatus' });
    assert.deepEqual(dispatched.at(-1), { method: 'crawlStatus', input: { collection: 'wal' } });
  });

  test('forager:call from a subframe, another origin or another web contents never reaches the crawler', async () => {
    const call = fake.ipcHandlers.get('forager:call') as Handler;
    const before = dispatched.length;
    for (const event of [
      appSender({ parent: {}, frameTreeNodeId: 2, url: 'forager-page://wal/3' }),
      appSender({ parent: {}, frameTreeNodeId: 2 }),
      appSender({ url: 'https://example.org/' }),
      appSender({ sender: new FakeWebContents() }),
      { sender: (FakeWindow.all[0] as FakeWindow).webContents, senderFrame: null },
    ]) {
      const reply = (await call(event, 'info', undefined)) as ApiReply;
      assert.equal(reply.ok, false);
      if (!reply.ok) assert.equal(reply.error.code, 'FORBIDDEN');
    }
    const invalid = (await call(appSender(), 'crawlStatus', { collection: 'wal', extra: 1 })) as ApiReply;
    assert.equal(invalid.ok, false);
    if (!invalid.ok) assert.equal(invalid.error.code, 'INVALID_INPUT');
    assert.equal(dispatched.length, before);
  });

  test('service events are forwarded to the window', async () => {
    service.emit({ type: 'collections', collections: [] });
    await settle();
    assert.deepEqual((FakeWindow.all[0] as FakeWindow).webContents.sent.at(-1), ['forager:event', { type: 'collections', collections: [] }]);
  });

  test('forager:save-export copies the export where the user chose, and reports a cancel', async () => {
    const save = fake.ipcHandlers.get('forager:save-export') as Handler;
    const source = path.join(workDir, 'abc123.jsonl');
    await writeFile(source, '{"url":"https://example.org/"}\n');
    service.exports.set('abc123', { path: source, fileName: 'wal.jsonl' });
    const target = path.join(workDir, 'saved.jsonl');
    fake.saveDialogAnswer = { canceled: false, filePath: target };
    assert.equal(await save(appSender(), 'abc123'), true);
    assert.equal(await readFile(target, 'utf8'), '{"url":"https://example.org/"}\n');
    fake.saveDialogAnswer = { canceled: true, filePath: undefined };
    assert.equal(await save(appSender(), 'abc123'), false);
    await assert.rejects(async () => save(appSender(), 'unknown'), /no longer available/);
    await assert.rejects(async () => save(appSender(), '../abc123'), /export id/);
    await assert.rejects(async () => save(appSender({ parent: {}, frameTreeNodeId: 2 }), 'abc123'), /app window/);
  });

  test('stored pages go to the crawler process and come back with the CSP floor', async () => {
    const handle = fake.protocolHandlers.get('forager-page');
    assert.ok(handle);
    const response = await handle(new Request('forager-page://My%20Crawl/7'));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { kind: 'page', collection: 'My Crawl', seq: 7 });
    assert.match(response.headers.get('content-security-policy') ?? '', /script-src 'none'/);
  });

  test('app:// refuses paths outside the renderer folder', async () => {
    const handle = fake.protocolHandlers.get('app');
    assert.ok(handle);
    assert.equal((await handle(new Request('app://forager/..%2fpackage.json'))).status, 404);
  });

  test('navigation, webviews and new windows are guarded; web links need a yes', async () => {
    const contents = new FakeWebContents();
    emitApp('web-contents-created', {}, contents);
    const navigate = (event: string, details: Record<string, unknown>): boolean => {
      let prevented = false;
      contents.emit(event, { ...details, preventDefault: () => { prevented = true; } });
      return prevented;
    };
    assert.equal(navigate('will-navigate', { url: 'https://example.org/' }), true);
    assert.equal(navigate('will-navigate', { url: 'app://forager/index.html' }), false);
    assert.equal(navigate('will-frame-navigate', { url: 'https://example.org/', isMainFrame: false }), true);
    assert.equal(navigate('will-frame-navigate', { url: 'forager-page://wal/4', isMainFrame: false }), false);
    assert.equal(navigate('will-redirect', { url: 'https://example.org/', isMainFrame: true }), true);
    assert.equal(navigate('will-attach-webview', {}), true);

    const open = contents.windowOpenHandler;
    assert.ok(open);
    fake.messageBoxAnswer = 1;
    assert.deepEqual(open({ url: 'https://example.org/a' }), { action: 'deny' });
    await settle();
    assert.deepEqual(fake.opened, [], 'nothing opens when the user says no');
    fake.messageBoxAnswer = 0;
    assert.deepEqual(open({ url: 'https://example.org/b' }), { action: 'deny' });
    assert.deepEqual(open({ url: 'javascript:alert(1)' }), { action: 'deny' });
    assert.deepEqual(open({ url: 'file:///etc/passwd' }), { action: 'deny' });
    await settle();
    assert.deepEqual(fake.opened, ['https://example.org/b']);
    assert.deepEqual(fake.messageBoxes.map((b) => [b.message, b.detail]), [
      ['Open this link in your browser?', 'https://example.org/a'],
      ['Open this link in your browser?', 'https://example.org/b'],
    ]);
  });

  test('quitting waits for the crawler to close, ends the process, then quits', async () => {
    let prevented = false;
    emitApp('before-quit', { preventDefault: () => { prevented = true; } });
    assert.equal(prevented, true);
    await settle(50);
    assert.equal(service.closed, 1);
    assert.equal(fake.forks[0]?.child.killed, 1);
    assert.equal(fake.quits, 1);
    let preventedAgain = false;
    emitApp('before-quit', { preventDefault: () => { preventedAgain = true; } });
    assert.equal(preventedAgain, false, 'the second quit goes through');
  });
});
