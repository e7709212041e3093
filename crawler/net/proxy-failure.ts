/**
 * A proxy's failures, told apart from the target's: each is a FetchError whose reason names
 * what the proxy did, so that a URL records it and the crawl can tell a dead proxy from a
 * dead site.
 *
 * - `proxy:refused`: the proxy could not be reached (refused, reset, unreachable, its name unknown).
 * - `proxy:timeout`: no connection through the proxy within the connect time-out.
 * - `proxy:auth`: the proxy wants credentials, or refused those given (HTTP 407, SOCKS5 authentication).
 * - `proxy:bad-gateway`: the proxy could not reach the target (CONNECT answered 5xx; a SOCKS5 failure reply).
 * - `proxy:denied`: the proxy's rules forbid the target (another CONNECT status, SOCKS5 "not allowed").
 */
import { FetchError } from '../errors.ts';
import { redactSecrets, urlPassword } from '../url/redact.ts';
import type { ProxyEndpoint } from './proxy-config.ts';

export const PROXY_FAILURE_REASONS = ['proxy:refused', 'proxy:timeout', 'proxy:auth', 'proxy:bad-gateway', 'proxy:denied'] as const;

export type ProxyFailureReason = (typeof PROXY_FAILURE_REASONS)[number];

/**
 * Failures that say nothing of the target: the URL waits for the proxy instead of using up its
 * attempts (and a robots.txt fetch does not count as the host's). bad-gateway and timeout are
 * not: the target itself may be down or silent (a CONNECT waits while the proxy tries to reach
 * it), so they count as the same failure of a direct connection would, and a URL that keeps
 * failing so cannot be retried for ever.
 */
const OUTAGE_REASONS: ReadonlySet<string> = new Set<ProxyFailureReason>(['proxy:refused', 'proxy:auth']);

export function isProxyOutage(reason: string): boolean {
  return OUTAGE_REASONS.has(reason);
}

export function isProxyFailure(reason: string): boolean {
  return reason.startsWith('proxy:');
}

export function proxyError(reason: ProxyFailureReason, proxy: ProxyEndpoint, detail: string, cause?: unknown): FetchError {
  const shown = redactSecrets(detail, [urlPassword(proxy.url.href) ?? '', proxy.url.password]);
  return new FetchError(reason, `${reason} through ${proxy.label}: ${shown}`, { proxy: proxy.label }, { cause, retryable: reason !== 'proxy:denied' });
}

/** Connection errors that can only come from opening the connection to the proxy: the target is never connected to. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_PRX_CONN', 'UND_ERR_PRX_TLS']);

/**
 * The proxy failure an error raised on the proxied path stands for, or undefined when it is the
 * target's (a TLS error of the target's handshake, a time-out waiting for its answer). Only the
 * connection to the proxy is opened by this process, so a refused or unreachable connection is
 * the proxy's (a reset is left to the target: it may be the target's, passed on). undici
 * reports a CONNECT answer other than 200, and a 407 to a forwarded request, by these messages.
 */
export function proxyFailureOf(err: unknown, proxy: ProxyEndpoint): FetchError | undefined {
  if (err instanceof FetchError) return undefined;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  const connectStatus = /Proxy response \((\d{3})\) !== 200/.exec(message);
  if (connectStatus !== null) {
    const status = Number(connectStatus[1]);
    if (status === 407) return proxyError('proxy:auth', proxy, 'the proxy asks for credentials (407)', err);
    // 502, 503 and 504 by the standard; tinyproxy answers 500 when it cannot connect.
    if (status >= 500) return proxyError('proxy:bad-gateway', proxy, `the proxy could not reach the target (${status})`, err);
    return proxyError('proxy:denied', proxy, `the proxy refused the tunnel (${status})`, err);
  }
  if (/Proxy Authentication Required/.test(message)) return proxyError('proxy:auth', proxy, 'the proxy asks for credentials (407)', err);
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return proxyError('proxy:refused', proxy, message, err);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return proxyError('proxy:timeout', proxy, message, err);
  return undefined;
}
