/*
 * The crawler process's end of the port: answers main's requests from the service and
 * the stored-page viewer, and pushes service events. Calls go through the shared
 * dispatcher, which validates inputs again: this process owns the collections and trusts
 * no caller. No Electron import.
 */
import type { ServiceEvent } from '../../crawler/protocol/api.ts';
import type { ApiReply } from '../../crawler/protocol/wire.ts';
import { fromWireRequest, toWireResponse, wireError } from '../shared/crawler-protocol.ts';
import type { CrawlerMessage, CrawlerRequest, ExportFile, PortLike, WireRequest, WireResponse } from '../shared/crawler-protocol.ts';
import { parseViewerUrl } from '../../crawler/viewer/viewer-url.ts';
import type { ViewerTarget } from '../../crawler/viewer/viewer-url.ts';
import { externalLinkTarget } from '../shared/external-links.ts';

/** What this process needs from the service (crawler/service/service.ts) besides its API. */
export interface HostedService {
  on(event: 'event', listener: (event: ServiceEvent) => void): unknown;
  exportFile(exportId: string): ExportFile | undefined;
  close(): Promise<void>;
}

/** One API call, checked and turned into a reply (crawler/service/dispatch.ts). */
export type Dispatch = (method: unknown, input: unknown) => Promise<ApiReply>;

/** The viewer (crawler/viewer/stored-page-handler.ts): a sanitised stored page or an external-link page. */
export type PageHandler = (request: Request, target: ViewerTarget) => Promise<Response>;

type Answer = Exclude<CrawlerMessage, { kind: 'event' }>;

export function serveCrawler(port: PortLike, service: HostedService, dispatch: Dispatch, viewPage: PageHandler): void {
  service.on('event', (event) => port.postMessage({ kind: 'event', event } satisfies CrawlerMessage));
  port.on('message', ({ data }) => {
    const request = data as CrawlerRequest;
    void answer(service, dispatch, viewPage, request)
      .catch((error: unknown) => {
        console.error(`forager: ${request.kind} failed`, error);
        return fallback(request);
      })
      .then((message) => {
        try {
          port.postMessage(message);
        } catch (error) {
          // An answer that cannot be cloned must still be answered, or main waits forever.
          console.error('forager: an answer could not be sent', error);
          port.postMessage(fallback(request));
        }
      });
  });
  port.start();
}

async function answer(service: HostedService, dispatch: Dispatch, viewPage: PageHandler, request: CrawlerRequest): Promise<Answer> {
  switch (request.kind) {
    case 'call':
      return { kind: 'call', id: request.id, reply: await dispatch(request.method, request.input) };
    case 'exportFile':
      return { kind: 'exportFile', id: request.id, file: typeof request.exportId === 'string' ? (service.exportFile(request.exportId) ?? null) : null };
    case 'view':
      return { kind: 'view', id: request.id, response: await view(viewPage, request.request) };
    case 'close':
      await service.close();
      return { kind: 'close', id: request.id };
  }
}

/** The answer when the real one failed: always cloneable, never leaves main waiting. */
function fallback(request: CrawlerRequest): Answer {
  switch (request.kind) {
    case 'call':
      return { kind: 'call', id: request.id, reply: { ok: false, error: { code: 'INTERNAL', message: 'Something went wrong inside Forager.' } } };
    case 'exportFile':
      return { kind: 'exportFile', id: request.id, file: null };
    case 'view':
      return { kind: 'view', id: request.id, response: wireError(500, 'The page could not be shown.') };
    case 'close':
      return { kind: 'close', id: request.id };
  }
}

async function view(viewPage: PageHandler, wire: WireRequest): Promise<WireResponse> {
  if (wire.method !== 'GET' && wire.method !== 'HEAD') return wireError(405, 'Method not allowed');
  const url = URL.parse(wire.url);
  const target = url === null ? undefined : parseViewerUrl(url, 'protocol');
  if (target === undefined) return wireError(404, 'Not found');
  // The external-link page offers its URL to the browser: only web addresses get one.
  if (target.kind === 'external' && externalLinkTarget(target.url) === undefined) return wireError(404, 'Not found');
  return toWireResponse(await viewPage(fromWireRequest(wire), target));
}
