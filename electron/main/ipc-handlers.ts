/*
 * The two IPC channels the preload uses. Each handler first asks ipc-guard whether the
 * sender and the payload are acceptable, then forwards to the crawler process.
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { app, dialog, ipcMain } from 'electron';
import type { BrowserWindow, IpcMainInvokeEvent, WebFrameMain } from 'electron';
import { ForagerError } from '../../crawler/errors.ts';
import type { ApiReply } from '../../crawler/protocol/wire.ts';
import { APP_ORIGIN } from '../shared/app-origin.ts';
import type { PageRef } from '../../crawler/protocol/api.ts';
import type { CrawlerSupervisor } from './crawler-supervisor.ts';
import { openDocument } from './document-opener.ts';
import { checkExportId, checkIpcCall } from './ipc-guard.ts';
import type { IpcSender } from './ipc-guard.ts';

const CALL_CHANNEL = 'forager:call';
const SAVE_EXPORT_CHANNEL = 'forager:save-export';
export const EVENT_CHANNEL = 'forager:event';

/** The sender as ipc-guard sees it: null unless it is a live frame of the app window. */
function senderOf(event: IpcMainInvokeEvent, window: () => BrowserWindow | undefined): IpcSender | null {
  const win = window();
  if (win === undefined || win.isDestroyed() || event.sender.id !== win.webContents.id) return null;
  let frame: WebFrameMain | null;
  try {
    frame = event.senderFrame;
  } catch {
    // Reading senderFrame of a frame that has navigated away can throw.
    return null;
  }
  if (frame === null || frame.detached) return null;
  const isMainFrame = frame.parent === null && frame.frameTreeNodeId === win.webContents.mainFrame.frameTreeNodeId;
  return { url: frame.url, isMainFrame };
}

export function registerIpcHandlers(window: () => BrowserWindow | undefined, crawler: CrawlerSupervisor): void {
  ipcMain.handle(CALL_CHANNEL, async (event, method: unknown, input: unknown): Promise<ApiReply> => {
    const checked = checkIpcCall(senderOf(event, window), APP_ORIGIN, method, input);
    if (!checked.ok) return checked.reply;
    // The system's viewer is main's to open: the crawler process only hands over the file.
    if (checked.method === 'openDocument') return openDocument(crawler.client(), checked.input as PageRef);
    return crawler.client().call(checked.method, checked.input);
  });

  ipcMain.handle(SAVE_EXPORT_CHANNEL, async (event, exportId: unknown): Promise<boolean> => {
    const checked = checkExportId(senderOf(event, window), APP_ORIGIN, exportId);
    if (!checked.ok) throw new ForagerError(checked.reply.error.code, checked.reply.error.message);
    const file = await crawler.client().exportFile(checked.exportId);
    if (file === undefined) throw new ForagerError('NOT_FOUND', 'That export is no longer available.', { exportId: checked.exportId });
    const win = window();
    const options = { defaultPath: path.join(app.getPath('downloads'), path.basename(file.fileName)) };
    const choice = win === undefined ? await dialog.showSaveDialog(options) : await dialog.showSaveDialog(win, options);
    if (choice.canceled || choice.filePath === undefined || choice.filePath === '') return false;
    await copyFile(file.path, choice.filePath);
    return true;
  });
}
