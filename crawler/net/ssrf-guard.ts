/**
 * SSRF guard. It runs at connect time on the addresses the socket will actually use, so
 * a hostname that resolves (or re-resolves, DNS rebinding) to a private address is refused
 * before any packet is sent. Resolutions are cached briefly because a crawler connects to
 * the same hosts over and over; the cache holds unfiltered answers and the policy is
 * applied on every use, so a policy that grows during a crawl takes effect at once.
 */
import { promises as dnsPromises } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { FetchError } from '../errors.ts';
import { classifyAddress } from './ip-ranges.ts';
import type { AddressKind } from './ip-ranges.ts';

/**
 * Read live on every check: the engine may add seed hosts while crawling.
 * `allowedHosts` holds lowercase hostnames, or IP literals without brackets. A hostname's
 * exemption holds only for the addresses it resolved to the first time it was looked up
 * (when the crawl started on it): a seed name rebound later to another private address,
 * say 169.254.169.254, is refused.
 */
export interface SsrfPolicy {
  readonly allowPrivate: boolean;
  readonly allowedHosts: ReadonlySet<string>;
}

/** Resolves a hostname to all of its addresses (the default uses dns.lookup, i.e. getaddrinfo). */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface SsrfGuardOptions {
  policy: SsrfPolicy;
  /** Replaces DNS, e.g. so that tests can map invented names to loopback addresses. */
  resolve?: HostResolver;
  /** How long a resolution is reused (default 60 s). 0 disables the cache. */
  dnsCacheTtlMs?: number;
  /** Bound on cached hostnames (default 10,000); the oldest entry is evicted first. */
  dnsCacheMaxEntries?: number;
}

interface CachedResolution {
  readonly expiresAt: number;
  readonly addresses: readonly LookupAddress[];
}

const systemResolver: HostResolver = (hostname) => dnsPromises.lookup(hostname, { all: true, order: 'verbatim' });

export class SsrfGuard {
  readonly #policy: SsrfPolicy;
  readonly #resolve: HostResolver;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #cache = new Map<string, CachedResolution>();
  readonly #inFlight = new Map<string, Promise<readonly LookupAddress[]>>();
  /** For each exempt hostname, the addresses of its first resolution: the only private ones it may use. */
  readonly #pinned = new Map<string, ReadonlySet<string>>();

  constructor(options: SsrfGuardOptions) {
    this.#policy = options.policy;
    this.#resolve = options.resolve ?? systemResolver;
    this.#ttlMs = options.dnsCacheTtlMs ?? 60_000;
    this.#maxEntries = options.dnsCacheMaxEntries ?? 10_000;
  }

  /** True when the policy lifts the guard for this host (all hosts with allowPrivate). */
  isExempt(hostname: string): boolean {
    const policy = this.#policy;
    if (policy.allowPrivate) return true;
    const hosts = policy.allowedHosts;
    if (hosts.size === 0) return false;
    const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
    return hosts.has(host.toLowerCase());
  }

  /**
   * For a host that is an IP literal: the refusal to raise, or undefined when it may be
   * contacted. Hostnames return undefined: they are checked by `lookup`.
   */
  checkIpLiteral(hostname: string): FetchError | undefined {
    const kind = classifyAddress(hostname);
    if (kind === undefined || kind === 'public' || this.isExempt(hostname)) return undefined;
    return blockedError(hostname, [{ address: hostname, kind }]);
  }

  /**
   * The addresses of `hostname` that the policy lets us connect to, in resolver order.
   * Throws FetchError 'ssrf:blocked' when every address is refused, 'dns' when there are none.
   */
  async allowedAddresses(hostname: string, family?: 4 | 6): Promise<LookupAddress[]> {
    const resolved = await this.#resolveCached(hostname);
    const exempt = this.isExempt(hostname);
    const pinned = exempt && !this.#policy.allowPrivate ? this.#pin(hostname, resolved) : undefined;
    const allowed: LookupAddress[] = [];
    let refused: { address: string; kind: AddressKind }[] | undefined;
    for (const entry of resolved) {
      if (family !== undefined && entry.family !== family) continue;
      const kind = classifyAddress(entry.address) ?? 'reserved';
      if (kind === 'public' || (exempt && (pinned === undefined || pinned.has(entry.address)))) allowed.push(entry);
      else (refused ??= []).push({ address: entry.address, kind });
    }
    if (allowed.length > 0) return allowed;
    if (refused !== undefined) throw blockedError(hostname, refused);
    throw new FetchError('dns', `no ${family === undefined ? '' : `IPv${family} `}address for ${hostname}`, { host: hostname, code: 'ENOTFOUND' }, { retryable: true });
  }

  /**
   * For a target a proxy will resolve (an HTTP proxy, socks5h): throws FetchError
   * 'ssrf:blocked' when the host is an IP literal the policy refuses, or a name that resolves
   * here to any refused address (the proxy may pick any of them). A name that does not
   * resolve here is left to the proxy, whose network may know it.
   */
  async checkProxiedTarget(hostname: string): Promise<void> {
    const literal = this.checkIpLiteral(hostname);
    if (literal !== undefined) throw literal;
    if (classifyAddress(hostname) !== undefined || this.isExempt(hostname)) return;
    let resolved: readonly LookupAddress[];
    try {
      resolved = await this.#resolveCached(hostname);
    } catch {
      return;
    }
    const refused = resolved.flatMap((entry) => {
      const kind = classifyAddress(entry.address) ?? 'reserved';
      return kind === 'public' ? [] : [{ address: entry.address, kind }];
    });
    if (refused.length > 0) throw blockedError(hostname, refused);
  }

  /** A drop-in for net.connect's `lookup` option that only ever yields allowed addresses. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.allowedAddresses(hostname, requestedFamily(options)).then(
      (addresses) => {
        if (options.all === true) {
          callback(null, addresses);
        } else {
          const first = addresses[0] as LookupAddress;
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };

  /** The addresses an exempt hostname may use: those of its first resolution. */
  #pin(hostname: string, resolved: readonly LookupAddress[]): ReadonlySet<string> {
    const key = (hostname.endsWith('.') ? hostname.slice(0, -1) : hostname).toLowerCase();
    let pinned = this.#pinned.get(key);
    if (pinned === undefined) {
      pinned = new Set(resolved.map((entry) => entry.address));
      this.#pinned.set(key, pinned);
    }
    return pinned;
  }

  clearDnsCache(): void {
    this.#cache.clear();
  }

  async #resolveCached(hostname: string): Promise<readonly LookupAddress[]> {
    const now = Date.now();
    const cached = this.#cache.get(hostname);
    if (cached !== undefined && cached.expiresAt > now) return cached.addresses;
    const pending = this.#inFlight.get(hostname);
    if (pending !== undefined) return pending;
    const lookup = this.#resolveFresh(hostname);
    this.#inFlight.set(hostname, lookup);
    try {
      return await lookup;
    } finally {
      this.#inFlight.delete(hostname);
    }
  }

  async #resolveFresh(hostname: string): Promise<readonly LookupAddress[]> {
    let addresses: readonly LookupAddress[];
    try {
      addresses = await this.#resolve(hostname);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new FetchError('dns', `cannot resolve ${hostname}`, { host: hostname, code }, { cause: err, retryable: true });
    }
    if (this.#ttlMs > 0) {
      this.#cache.delete(hostname);
      if (this.#cache.size >= this.#maxEntries) {
        const oldest = this.#cache.keys().next();
        if (oldest.done !== true) this.#cache.delete(oldest.value);
      }
      this.#cache.set(hostname, { expiresAt: Date.now() + this.#ttlMs, addresses });
    }
    return addresses;
  }
}

function requestedFamily(options: LookupOptions): 4 | 6 | undefined {
  const family = options.family;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

function blockedError(host: string, refused: readonly { address: string; kind: AddressKind }[]): FetchError {
  const first = refused[0];
  const detail = first === undefined ? '' : ` (${first.address} is ${first.kind})`;
  return new FetchError('ssrf:blocked', `refusing to connect to ${host}${detail}`, {
    host,
    address: first?.address,
    addresses: refused.map((r) => r.address),
    kinds: refused.map((r) => r.kind),
  });
}
