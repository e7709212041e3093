import { FetchError } from '../errors.ts';
import type { SubresourceFetcher, SubresourceOutcome } from '../render/page-renderer.ts';
import type { RenderStore, StoredSubresource } from '../store/render-store.ts';
import type { HostState } from './host-state.ts';
import type { HttpClient } from './http-client.ts';
import type { RobotsGate } from './robots-gate.ts';

/** Response headers a render's fulfilled request keeps: what a browser needs to use the body. */
const KEPT_HEADERS = ['content-type', 'content-language', 'access-control-allow-origin'];

export interface SubresourceDeps {
  http: HttpClient;
  robots: RobotsGate;
  renders: RenderStore;
  /** The host's state for an origin, made when it has none (the page's own, or an allow-listed one). */
  hostFor(origin: string): HostState;
  /** Waits for a polite turn of the host; resolves with the function that ends it. */
  requestTurn(host: HostState, signal: AbortSignal): Promise<(responseMs: number) => void>;
  /** Other hosts a render may fetch from (settings.renderAllowHosts). */
  allowHosts: readonly string[];
}

/**
 * A render's requests, fetched the way Forager fetches pages: only from the page's own
 * origin or an allow-listed host, only what robots.txt allows, through the crawler's HTTP
 * client (and so its SSRF guard and size limits), in a turn of the host's politeness
 * schedule. Each URL is fetched once per crawl: later renders read it from the collection.
 */
export function subresourceFetcher(deps: SubresourceDeps): SubresourceFetcher {
  const allowed = new Set(deps.allowHosts.map((h) => h.toLowerCase()));
  const inFlight = new Map<string, Promise<SubresourceOutcome>>();

  const fetchOnce = async (url: string, signal: AbortSignal): Promise<SubresourceOutcome> => {
    const host = deps.hostFor(new URL(url).origin);
    const endTurn = await deps.requestTurn(host, signal);
    const started = Date.now();
    try {
      const blocked = deps.robots.blockReason(host, url);
      if (blocked !== null) return { kind: 'blocked', reason: blocked };
      const result = await deps.http.fetchSubresource(url, signal);
      const headers: Record<string, string> = {};
      for (const name of KEPT_HEADERS) {
        const value = result.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const resource: StoredSubresource = { status: result.status, headers, body: Buffer.from(result.body ?? new Uint8Array(0)) };
      if (result.status >= 200 && result.status < 400) deps.renders.saveSubresource(url, resource, started);
      return { kind: 'response', response: resource, fromCache: false };
    } catch (err) {
      return { kind: 'blocked', reason: err instanceof FetchError ? err.reason : 'error' };
    } finally {
      endTurn(Date.now() - started);
    }
  };

  return async (url, pageUrl, signal, options) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { kind: 'blocked', reason: 'invalid-url' };
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return { kind: 'blocked', reason: `scheme:${target.protocol.slice(0, -1)}` };
    if (options?.anyHost !== true && target.origin !== new URL(pageUrl).origin && !allowed.has(target.hostname.toLowerCase())) return { kind: 'blocked', reason: 'third-party' };
    target.hash = '';
    const key = target.href;
    const stored = deps.renders.subresource(key);
    if (stored !== undefined) return { kind: 'response', response: stored, fromCache: true };
    let pending = inFlight.get(key);
    if (pending === undefined) {
      pending = fetchOnce(key, signal).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };
}
