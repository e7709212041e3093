/**
 * The shared undici Agent the crawler fetches through: keep-alive pools per origin,
 * HTTP/1.1 only, bounded headers, and the SSRF guard wired into every connection
 * (IP literals are checked before a socket exists, hostnames inside DNS lookup).
 * undici 8's Agent never follows redirects: that needs the redirect interceptor,
 * which is not installed here. Close it with `await agent.close()` (or destroy()).
 */
import { Agent, buildConnector } from 'undici';
import { SsrfGuard } from './ssrf-guard.ts';
import type { HostResolver, SsrfPolicy } from './ssrf-guard.ts';

export interface DispatcherOptions {
  /** Read live: adding to policy.allowedHosts during a crawl takes effect at once. */
  policy: SsrfPolicy;
  /** Replaces DNS (tests). */
  resolve?: HostResolver;
  /** DNS cache lifetime (default 60 s). */
  dnsCacheTtlMs?: number;
  /** TCP (and TLS) connect timeout, including the DNS lookup (default 10 s). */
  connectTimeoutMs?: number;
  /** Largest response head accepted: status line plus headers (default 64 KiB). */
  maxHeaderBytes?: number;
  /** Connections per origin (default 1: requests to one origin queue and reuse the socket; politeness lives in the engine). */
  connectionsPerOrigin?: number;
  /** Idle keep-alive lifetime when the server gives no hint (default 10 s). */
  keepAliveTimeoutMs?: number;
}

export const DISPATCHER_DEFAULTS = {
  connectTimeoutMs: 10_000,
  maxHeaderBytes: 64 * 1024,
  connectionsPerOrigin: 1,
  keepAliveTimeoutMs: 10_000,
} as const;

export function createDispatcher(options: DispatcherOptions): Agent {
  const guard = new SsrfGuard({
    policy: options.policy,
    ...(options.resolve !== undefined && { resolve: options.resolve }),
    ...(options.dnsCacheTtlMs !== undefined && { dnsCacheTtlMs: options.dnsCacheTtlMs }),
  });
  const connectTimeout = options.connectTimeoutMs ?? DISPATCHER_DEFAULTS.connectTimeoutMs;
  const openSocket = buildConnector({ timeout: connectTimeout, allowH2: false, lookup: guard.lookup });
  const connect: buildConnector.connector = (target, callback) => {
    const refusal = guard.checkIpLiteral(target.hostname);
    if (refusal !== undefined) {
      process.nextTick(callback, refusal, null);
      return;
    }
    openSocket(target, callback);
  };
  return new Agent({
    connect,
    allowH2: false,
    maxHeaderSize: options.maxHeaderBytes ?? DISPATCHER_DEFAULTS.maxHeaderBytes,
    connections: options.connectionsPerOrigin ?? DISPATCHER_DEFAULTS.connectionsPerOrigin,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DISPATCHER_DEFAULTS.keepAliveTimeoutMs,
    pipelining: 1,
  });
}
