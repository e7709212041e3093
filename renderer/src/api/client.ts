/*
 * The renderer's only way to the service. The transport is chosen once at start: the
 * Electron preload's window.forager when present, else `forager serve` over HTTP.
 */
import type { ExportResult, ForagerApi, ServiceEvent } from '../../../crawler/protocol/api.ts';
import type { ForagerBridge } from '../../../crawler/protocol/wire.ts';
import { bridgeTransport } from './bridge-transport.ts';
import { httpTransport } from './http-transport.ts';
import { unwrapReply } from './reply.ts';
import type { Transport } from './transport.ts';

declare global {
  interface Window {
    forager?: ForagerBridge;
  }
}

export interface ForagerClient {
  readonly transport: Transport['kind'];
  /** Every method throws an ApiError when the service says no or cannot be reached. */
  readonly api: ForagerApi;
  onEvent(listener: (event: ServiceEvent) => void): () => void;
  saveExport(result: ExportResult): Promise<boolean>;
  pageSrc(viewPath: string): string;
}

function apiOver(transport: Transport): ForagerApi {
  // The service validates inputs and shapes outputs; the cast trusts it for the output type.
  const call = <T>(method: keyof ForagerApi, input: unknown): Promise<T> =>
    transport.call(method, input).then((reply) => unwrapReply(method, reply) as T);
  return {
    info: () => call('info', {}),
    listCollections: () => call('listCollections', {}),
    createCollection: (input) => call('createCollection', input),
    deleteCollection: (input) => call('deleteCollection', input),
    startCrawl: (input) => call('startCrawl', input),
    pauseCrawl: (input) => call('pauseCrawl', input),
    resumeCrawl: (input) => call('resumeCrawl', input),
    stopCrawl: (input) => call('stopCrawl', input),
    crawlStatus: (input) => call('crawlStatus', input),
    frontier: (input) => call('frontier', input),
    listPages: (input) => call('listPages', input),
    searchPages: (input) => call('searchPages', input),
    getPage: (input) => call('getPage', input),
    labelPage: (input) => call('labelPage', input),
    exportCollection: (input) => call('exportCollection', input),
    runLab: (input) => call('runLab', input),
  };
}

export function createClient(): ForagerClient {
  const bridge = window.forager;
  const transport = bridge !== undefined ? bridgeTransport(bridge) : httpTransport();
  return {
    transport: transport.kind,
    api: apiOver(transport),
    onEvent: transport.onEvent,
    saveExport: transport.saveExport,
    pageSrc: transport.pageSrc,
  };
}
