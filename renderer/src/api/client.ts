/*
 * The renderer's only way to the service. The transport is chosen once at start: the
 * Electron preload's window.forager when present, else `forager serve` over HTTP.
 */
import type { ExportResult, ForagerApi, ServiceEvent } from '../../../crawler/protocol/api.ts';
import type { ForagerBridge } from '../../../crawler/protocol/wire.ts';
import { bridgeTransport } from './bridge-transport.ts';
import { httpTransport } from './http-transport.ts';
import { apiOver } from './api-proxy.ts';
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
