/*
 * The one stand-in for Electron that every Electron test uses. Electron cannot run here, so
 * electron/ code runs under Node: MessagePorts are Node's, wrapped to look like Electron's
 * MessagePortMain; the service is a FakeService; and installFakeElectron() points the
 * 'electron' specifier (through a module hook) at a module that records what main asks of
 * app, BrowserWindow, protocol, session, ipcMain, dialog, shell and utilityProcess.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { registerHooks } from 'node:module';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { ServiceEvent } from '../../crawler/protocol/api.ts';
import type { HostedService } from '../../electron/crawler-process/crawler-host.ts';
import type { ExportFile, PortLike } from '../../electron/shared/crawler-protocol.ts';

type Listener = (...args: never[]) => unknown;
export type Handler = (...args: unknown[]) => unknown;

/** Node's MessagePort hands listeners the data itself; Electron's MessagePortMain an event with .data. */
export function electronStyle(port: MessagePort): PortLike & { close(): void } {
  return {
    postMessage: (message) => port.postMessage(message),
    on: (_event, listener) => port.on('message', (data: unknown) => listener({ data })),
    start: () => port.start(),
    close: () => port.close(),
  };
}

let webContentsIds = 0;

export class FakeWebContents extends EventEmitter {
  readonly id = ++webContentsIds;
  readonly sent: [string, unknown][] = [];
  readonly mainFrame = { frameTreeNodeId: 1 };
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload]);
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
}

export class FakeWindow extends EventEmitter {
  static all: FakeWindow[] = [];
  readonly webContents = new FakeWebContents();
  readonly options: Record<string, unknown>;
  loaded: string | undefined;
  constructor(options: Record<string, unknown>) {
    super();
    this.options = options;
    FakeWindow.all.push(this);
  }
  static fromWebContents(contents: unknown): FakeWindow | null {
    return FakeWindow.all.find((w) => w.webContents === contents) ?? null;
  }
  static getAllWindows(): FakeWindow[] {
    return FakeWindow.all;
  }
  async loadURL(url: string): Promise<void> {
    this.loaded = url;
  }
  isDestroyed(): boolean {
    return false;
  }
  isMinimized(): boolean {
    return false;
  }
  restore(): void {}
  focus(): void {}
}

/** The service as the crawler process hosts it: exports to hand out, events to push, a count of closes. */
export class FakeService implements HostedService {
  readonly exports = new Map<string, ExportFile>();
  closed = 0;
  #listener: ((event: ServiceEvent) => void) | undefined;
  on(_event: 'event', listener: (event: ServiceEvent) => void): this {
    this.#listener = listener;
    return this;
  }
  emit(event: ServiceEvent): void {
    this.#listener?.(event);
  }
  exportFile(exportId: string): ExportFile | undefined {
    return this.exports.get(exportId);
  }
  async close(): Promise<void> {
    this.closed++;
  }
}

/** What main asked of Electron, and the answers the fake dialogs give. */
export const fake = {
  privileged: [] as { scheme: string; privileges: Record<string, boolean> }[],
  protocolHandlers: new Map<string, (request: Request) => Promise<Response> | Response>(),
  ipcHandlers: new Map<string, Handler>(),
  appListeners: new Map<string, Listener[]>(),
  sandboxEnabled: false,
  quits: 0,
  ready: undefined as (() => void) | undefined,
  forks: [] as { entry: string; execArgv: readonly string[]; env: Record<string, string | undefined>; child: EventEmitter & { killed: number }; start: unknown; port: (PortLike & { close(): void }) | undefined }[],
  openPorts: [] as MessagePort[],
  permissionRequest: undefined as Handler | undefined,
  permissionCheck: undefined as Handler | undefined,
  blockedUrls: [] as string[],
  saveDialogAnswer: { canceled: false, filePath: '' as string | undefined },
  messageBoxes: [] as { message: string; detail: string }[],
  messageBoxAnswer: 0,
  opened: [] as string[],
  userData: '',
};

function on(name: string, listener: Listener): void {
  fake.appListeners.set(name, [...(fake.appListeners.get(name) ?? []), listener]);
}

export function emitApp(name: string, ...args: unknown[]): void {
  for (const listener of fake.appListeners.get(name) ?? []) (listener as Handler)(...args);
}

const fakeElectron = {
  app: {
    on: (name: string, listener: Listener) => on(name, listener),
    enableSandbox: () => { fake.sandboxEnabled = true; },
    requestSingleInstanceLock: () => true,
    quit: () => { fake.quits++; },
    getPath: (name: string) => path.join(fake.userData, name),
    getAppPath: () => process.cwd(),
    whenReady: () => new Promise<void>((resolve) => { fake.ready = resolve; }),
    isReady: () => fake.ready === undefined,
  },
  BrowserWindow: FakeWindow,
  protocol: {
    registerSchemesAsPrivileged: (schemes: typeof fake.privileged) => {
      assert.equal(fake.ready, undefined, 'privileged schemes are registered before whenReady');
      fake.privileged.push(...schemes);
    },
    handle: (scheme: string, handler: (request: Request) => Promise<Response>) => fake.protocolHandlers.set(scheme, handler),
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (handler: Handler) => { fake.permissionRequest = handler; },
      setPermissionCheckHandler: (handler: Handler) => { fake.permissionCheck = handler; },
      webRequest: { onBeforeRequest: (filter: { urls: string[] }) => fake.blockedUrls.push(...filter.urls) },
    },
  },
  ipcMain: { handle: (channel: string, handler: Handler) => fake.ipcHandlers.set(channel, handler) },
  dialog: {
    showSaveDialog: async () => fake.saveDialogAnswer,
    // (options) or (owner window, options), as in Electron.
    showMessageBox: async (...args: unknown[]) => {
      const options = args.at(-1) as { message: string; detail: string };
      fake.messageBoxes.push({ message: options.message, detail: options.detail });
      return { response: fake.messageBoxAnswer };
    },
  },
  shell: { openExternal: async (url: string) => { fake.opened.push(url); } },
  MessageChannelMain: class {
    readonly port1: PortLike & { close(): void };
    readonly port2: PortLike & { close(): void };
    constructor() {
      const { port1, port2 } = new MessageChannel();
      fake.openPorts.push(port1, port2);
      this.port1 = electronStyle(port1);
      this.port2 = electronStyle(port2);
    }
  },
  utilityProcess: {
    fork: (entry: string, _args: readonly string[] = [], options: { execArgv?: readonly string[]; env?: Record<string, string | undefined> } = {}) => {
      const child = Object.assign(new EventEmitter(), {
        killed: 0,
        kill() {
          child.killed++;
          return true;
        },
        postMessage(start: unknown, ports: (PortLike & { close(): void })[]) {
          record.start = start;
          record.port = ports[0];
        },
      });
      const record: (typeof fake.forks)[number] = { entry, execArgv: options.execArgv ?? [], env: options.env ?? {}, child, start: undefined, port: undefined };
      fake.forks.push(record);
      return child;
    },
  },
};

const ELECTRON_EXPORTS = ['app', 'BrowserWindow', 'protocol', 'session', 'ipcMain', 'dialog', 'shell', 'MessageChannelMain', 'utilityProcess'];
const FAKE_URL = `data:text/javascript,${encodeURIComponent(
  `const e = globalThis.__foragerFakeElectron; export const { ${ELECTRON_EXPORTS.join(', ')} } = e; export default e;`,
)}`;

/** From now on, `import ... from 'electron'` in this process gets the fake. */
export function installFakeElectron(): void {
  (globalThis as Record<string, unknown>).__foragerFakeElectron = fakeElectron;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === 'electron') return { url: FAKE_URL, shortCircuit: true, format: 'module' };
      return nextResolve(specifier, context);
    },
  });
}

