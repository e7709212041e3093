/**
 * The shared undici dispatcher the crawler fetches through: keep-alive pools per origin,
 * HTTP/1.1 only, bounded headers, and the SSRF guard wired into every connection
 * (IP literals are checked before a socket exists, hostnames inside DNS lookup).
 * undici 8's Agent never follows redirects: that needs the redirect interceptor,
 * which is not installed here. Close it with `await dispatcher.close()` (or destroy()).
 *
 * With proxy routes, each request goes to the proxy its target's URL is routed to (see
 * proxy-config.ts), or direct. HTTP and HTTPS proxies use undici's ProxyAgent: an http://
 * target is sent in absolute form, so an HTTP proxy that only tunnels port 443 still serves
 * it, and an https:// target is tunnelled with CONNECT. SOCKS5 proxies use the `socks`
 * package inside an Agent's connect function (socks-connector.ts). The guard still checks
 * targets (the proxy itself may be on loopback); a proxy's own failures become `proxy:*`
 * FetchErrors, and ProxyHealth reports a proxy that fails everything.
 */
import { Agent, buildConnector, Client, Dispatcher, Pool, ProxyAgent } from 'undici';
import { FetchError } from '../errors.ts';
import type { ProxyEndpoint, ProxyRoutes } from './proxy-config.ts';
import { isProxyFailure, proxyFailureOf } from './proxy-failure.ts';
import { ProxyHealth } from './proxy-health.ts';
import { socksConnector } from './socks-connector.ts';
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
  /** Which proxy each request goes through; without it, every request is direct. */
  proxy?: ProxyRoutes;
  /** Called once when a proxy fails every request for a while (see ProxyHealth), with the error naming it. */
  onProxyDown?: (error: FetchError) => void;
}

export const DISPATCHER_DEFAULTS = {
  connectTimeoutMs: 10_000,
  maxHeaderBytes: 64 * 1024,
  connectionsPerOrigin: 1,
  keepAliveTimeoutMs: 10_000,
} as const;

export function createDispatcher(options: DispatcherOptions): Dispatcher {
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
  const direct = new Agent({ connect, ...poolOptions(options) });
  if (options.proxy === undefined) return direct;
  return new ProxyRouter(options.proxy, direct, guard, options);
}

function poolOptions(options: DispatcherOptions): Agent.Options {
  return {
    allowH2: false,
    maxHeaderSize: options.maxHeaderBytes ?? DISPATCHER_DEFAULTS.maxHeaderBytes,
    connections: options.connectionsPerOrigin ?? DISPATCHER_DEFAULTS.connectionsPerOrigin,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DISPATCHER_DEFAULTS.keepAliveTimeoutMs,
    pipelining: 1,
  };
}

/**
 * ProxyAgent's clients, made as its default factory makes them (one connection: a Client, else
 * a Pool) but with the crawl's header limit: its client to the proxy for absolute-form
 * requests is otherwise made with undici's 16 KiB default.
 */
function proxiedClient(origin: string | URL, options: Agent.Options): Dispatcher {
  return options.connections === 1 ? new Client(origin, options) : new Pool(origin, options);
}

interface ProxiedDispatcher {
  readonly proxy: ProxyEndpoint;
  readonly dispatcher: Dispatcher;
  readonly health: ProxyHealth;
}

/** Sends each request direct or through its proxy; one dispatcher per proxy, made on first use. */
class ProxyRouter extends Dispatcher {
  readonly #routes: ProxyRoutes;
  readonly #direct: Dispatcher;
  readonly #guard: SsrfGuard;
  readonly #options: DispatcherOptions;
  readonly #proxied = new Map<string, ProxiedDispatcher>();

  constructor(routes: ProxyRoutes, direct: Dispatcher, guard: SsrfGuard, options: DispatcherOptions) {
    super();
    this.#routes = routes;
    this.#direct = direct;
    this.#guard = guard;
    this.#options = options;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const target = new URL(String(options.origin));
    const proxy = this.#routes.proxyFor(target);
    if (proxy === undefined) return this.#direct.dispatch(options, handler);
    const through = this.#through(proxy);
    const watched = new ProxyFailureHandler(handler, through);
    // SOCKS checks targets in its connect function; an HTTP proxy never connects to them here.
    if (proxy.protocol === 'socks5' || proxy.protocol === 'socks5h') return through.dispatcher.dispatch(options, watched);
    const hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    this.#guard.checkProxiedTarget(hostname).then(
      () => through.dispatcher.dispatch(options, watched),
      // As undici's own interceptors do, a request refused before dispatch is reported without a controller.
      (err: Error) => handler.onResponseError?.(null as unknown as Dispatcher.DispatchController, err),
    );
    return true;
  }

  #through(proxy: ProxyEndpoint): ProxiedDispatcher {
    const key = proxy.url.href;
    let through = this.#proxied.get(key);
    if (through === undefined) {
      const onDown = this.#options.onProxyDown ?? (() => undefined);
      through = { proxy, dispatcher: this.#proxyDispatcher(proxy), health: new ProxyHealth(proxy, onDown) };
      this.#proxied.set(key, through);
    }
    return through;
  }

  #proxyDispatcher(proxy: ProxyEndpoint): Dispatcher {
    const connectTimeout = this.#options.connectTimeoutMs ?? DISPATCHER_DEFAULTS.connectTimeoutMs;
    if (proxy.protocol === 'socks5' || proxy.protocol === 'socks5h') {
      return new Agent({ connect: socksConnector(proxy, this.#guard, connectTimeout), ...poolOptions(this.#options) });
    }
    const pool = poolOptions(this.#options);
    return new ProxyAgent({ uri: proxy.url.href, connectTimeout, ...pool, factory: (origin, options) => proxiedClient(origin, { maxHeaderSize: pool.maxHeaderSize, ...options }) });
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const closed = Promise.all([this.#direct.close(), ...[...this.#proxied.values()].map((through) => through.dispatcher.close())]).then(() => undefined);
    if (callback === undefined) return closed;
    void closed.then(callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(errOrCallback?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
    const err = typeof errOrCallback === 'function' ? null : (errOrCallback ?? null);
    const done = typeof errOrCallback === 'function' ? errOrCallback : callback;
    const destroyed = Promise.all([this.#direct.destroy(err), ...[...this.#proxied.values()].map((through) => through.dispatcher.destroy(err))]).then(() => undefined);
    if (done === undefined) return destroyed;
    void destroyed.then(done);
  }
}

/** Passes a request's events on; an answer shows the proxy alive, and a failure of its own becomes a proxy:* FetchError. */
class ProxyFailureHandler implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #through: ProxiedDispatcher;

  constructor(inner: Dispatcher.DispatchHandler, through: ProxiedDispatcher) {
    this.#inner = inner;
    this.#through = through;
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>): void {
    this.#inner.onRequestUpgrade?.(...args);
  }

  onResponseStart(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>): void {
    this.#through.health.answered();
    this.#inner.onResponseStart?.(...args);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(...args: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>): void {
    this.#inner.onResponseEnd?.(...args);
  }

  onResponseError(controller: Dispatcher.DispatchController, err: Error): void {
    // The SOCKS connector raises proxy failures itself; undici's are translated here.
    const failure = err instanceof FetchError ? (isProxyFailure(err.reason) ? err : undefined) : proxyFailureOf(err, this.#through.proxy);
    if (failure !== undefined) this.#through.health.failed(failure);
    this.#inner.onResponseError?.(controller, failure ?? err);
  }
}
