/*
 * Sandboxed preload (CommonJS: sandboxed preloads cannot be ES modules, and may only
 * require 'electron'). Exposes exactly ForagerBridge as window.forager: no ipcRenderer,
 * no IPC event objects, only the payloads.
 */
import type { IpcRendererEvent } from 'electron';
import type { ServiceEvent } from '../../crawler/protocol/api.ts';
import type { ApiReply, ForagerBridge } from '../../crawler/protocol/wire.ts';

const { contextBridge, ipcRenderer } = require('electron') as typeof import('electron');

// The channel names are repeated from ipc-handlers.ts: a sandboxed preload cannot require it.
const bridge = {
  call: (method: string, input: unknown): Promise<ApiReply> => ipcRenderer.invoke('forager:call', method, input),
  onEvent: (listener: (event: ServiceEvent) => void): (() => void) => {
    const forward = (_event: IpcRendererEvent, payload: ServiceEvent): void => listener(payload);
    ipcRenderer.on('forager:event', forward);
    return () => {
      ipcRenderer.removeListener('forager:event', forward);
    };
  },
  saveExport: (exportId: string): Promise<boolean> => ipcRenderer.invoke('forager:save-export', exportId),
} satisfies ForagerBridge;

contextBridge.exposeInMainWorld('forager', bridge);
