/*
 * The messages between main and the crawler's utility process, over one MessagePort.
 * Main asks (each request has an id, answered once); the crawler also pushes service
 * events. Everything here survives structured cloning. No Electron import.
 */
import type { ApiMethod, ServiceEvent } from '../../crawler/protocol/api.ts';
import type { ApiReply } from '../../crawler/protocol/wire.ts';

/** What main sends first, on the utility process's parent port, with the MessagePort. */
export interface CrawlerStart {
  dir: string;
}

/** A stored-page request as it crosses the port: only GET and HEAD reach the viewer. */
export interface WireRequest {
  url: string;
  method: string;
  headers: [string, string][];
}

export interface WireResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array | null;
}

export interface ExportFile {
  path: string;
  fileName: string;
}

export type CrawlerRequest =
  | { kind: 'call'; id: number; method: ApiMethod; input: unknown }
  | { kind: 'exportFile'; id: number; exportId: string }
  | { kind: 'view'; id: number; request: WireRequest }
  | { kind: 'close'; id: number };

export type CrawlerMessage =
  | { kind: 'call'; id: number; reply: ApiReply }
  | { kind: 'exportFile'; id: number; file: ExportFile | null }
  | { kind: 'view'; id: number; response: WireResponse }
  | { kind: 'close'; id: number }
  | { kind: 'event'; event: ServiceEvent };

/** The part of Electron's MessagePortMain both sides use; a Node MessagePort fits through an adapter. */
export interface PortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
  start(): void;
}

export function toWireRequest(request: Request): WireRequest {
  return { url: request.url, method: request.method, headers: [...request.headers] };
}

export function fromWireRequest(wire: WireRequest): Request {
  return new Request(wire.url, { method: wire.method, headers: wire.headers });
}

export async function toWireResponse(response: Response): Promise<WireResponse> {
  const body = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: [...response.headers], body };
}

/*
 * Added to whatever policy the viewer sets: a second CSP can only narrow the first, so
 * a stored page never runs script, posts a form or loads a plugin, whatever the viewer does.
 */
const STORED_PAGE_CSP_FLOOR = "script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The response main gives Chromium for a forager-page:// request: the viewer's, with the CSP floor. */
export function storedPageResponse(wire: WireResponse): Response {
  const headers = new Headers(wire.headers);
  headers.append('Content-Security-Policy', STORED_PAGE_CSP_FLOOR);
  headers.set('X-Content-Type-Options', 'nosniff');
  const body = wire.body === null || wire.body.byteLength === 0 || isNullBodyStatus(wire.status) ? null : wire.body;
  return new Response(body, { status: wire.status, headers });
}

function isNullBodyStatus(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

export function wireError(status: number, message: string): WireResponse {
  return {
    status,
    headers: [['content-type', 'text/plain; charset=utf-8']],
    body: new TextEncoder().encode(message),
  };
}
