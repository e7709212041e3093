/*
 * Electron main process: one window showing the renderer from app://forager/, stored
 * pages from forager-page://, and IPC forwarded to the crawler's utility process.
 * Main holds no crawler state; it checks, forwards and shows dialogs.
 */
import path from 'node:path';
import { BrowserWindow, app, protocol, session } from 'electron';
import { STORED_PAGE_SCHEME } from '../../crawler/protocol/wire.ts';
import { serveAppFile } from './app-files.ts';
import { APP_ENTRY_URL, APP_SCHEME } from '../shared/app-origin.ts';
import { storedPageResponse, toWireRequest } from '../shared/crawler-protocol.ts';
import { CrawlerSupervisor } from './crawler-supervisor.ts';
import { removeDocumentCopies } from './document-opener.ts';
import { EVENT_CHANNEL, registerIpcHandlers } from './ipc-handlers.ts';
import { guardSession } from './session-guards.ts';
import { guardWebContents } from './web-contents-guards.ts';

// This file is dist/electron/main/main.js once built; its siblings by the environment they run in.
const HERE = import.meta.dirname;
const RENDERER_DIR = path.join(HERE, '..', '..', 'renderer');
const PRELOAD = path.join(HERE, '..', 'preload', 'preload.cjs');
const CRAWLER_ENTRY = path.join(HERE, '..', 'crawler-process', 'crawler-process.js');

// Both must happen before 'ready'. The app gets a real origin. Stored pages get no fetch,
// CORS, storage or service workers, and stay non-standard: Chromium lowercases the hosts
// of standard schemes, and a forager-page host is a collection name (viewer-url.ts).
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  { scheme: STORED_PAGE_SCHEME, privileges: { secure: true } },
]);
app.enableSandbox();

// Two instances would mean two crawler processes writing the same collections.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let mainWindow: BrowserWindow | undefined;
  const crawler = new CrawlerSupervisor(CRAWLER_ENTRY, path.join(app.getPath('userData'), 'collections'), (event) => {
    if (mainWindow !== undefined && !mainWindow.isDestroyed()) mainWindow.webContents.send(EVENT_CHANNEL, event);
  });

  const createWindow = (): void => {
    const win = new BrowserWindow({
      width: 1280,
      height: 800,
      minWidth: 1024,
      minHeight: 700,
      show: false,
      title: 'Forager',
      icon: path.join(app.getAppPath(), 'resources', 'icons', 'png', '512x512.png'),
      webPreferences: {
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        preload: PRELOAD,
        spellcheck: false,
      },
    });
    win.once('ready-to-show', () => win.show());
    win.on('closed', () => {
      if (mainWindow === win) mainWindow = undefined;
    });
    mainWindow = win;
    void win.loadURL(APP_ENTRY_URL);
  };

  guardWebContents();
  registerIpcHandlers(() => mainWindow, crawler);

  app.on('second-instance', () => {
    if (mainWindow === undefined) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  app.on('activate', () => {
    if (app.isReady() && BrowserWindow.getAllWindows().length === 0) createWindow();
  });

  // Quitting waits once for the crawler to store what is in flight and close its files.
  let crawlerStopped = false;
  app.on('before-quit', (event) => {
    if (crawlerStopped) return;
    event.preventDefault();
    void Promise.all([crawler.stop(), removeDocumentCopies()]).finally(() => {
      crawlerStopped = true;
      app.quit();
    });
  });

  void app.whenReady().then(() => {
    guardSession(session.defaultSession);
    protocol.handle(APP_SCHEME, (request) => serveAppFile(request, RENDERER_DIR));
    protocol.handle(STORED_PAGE_SCHEME, async (request) => storedPageResponse(await crawler.client().view(toWireRequest(request))));
    crawler.client();
    createWindow();
  });
}
