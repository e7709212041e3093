/**
 * Crawl scope: which discovered URLs the crawl may follow, judged against the seeds.
 *
 * - 'hosts': the URL's hostname equals a seed's hostname. Scheme and port are ignored, so
 *   http and https and any port of a seed host are in scope (sites move between http and
 *   https, and a port does not make another site). www.example.com and example.com are
 *   different hosts: seed both, or use 'domains'.
 * - 'domains': the URL's registrable domain (eTLD+1, from the public suffix list through
 *   tldts, private suffixes included, so alice.github.io and bob.github.io are different
 *   sites) equals a seed's. Hosts without a registrable domain (IP addresses, localhost,
 *   single-label names) compare by exact hostname.
 * - 'any': every http(s) URL.
 * Hostnames compare in canonical form: lowercase, punycode, without a trailing dot.
 */
import { getDomain } from 'tldts';
import { UsageError } from '../errors.ts';
import { SCOPES, type ScopeMode } from '../protocol/settings.ts';
import { canonicalize } from './canonical.ts';

export interface ScopeDecision {
  allowed: boolean;
  /** A sentence for logs and for the user. */
  reason: string;
}

export interface Scope {
  readonly mode: ScopeMode;
  allows(url: URL | string): boolean;
  explain(url: URL | string): ScopeDecision;
}

const TLDTS_OPTIONS = { allowPrivateDomains: true, extractHostname: false } as const;

/** eTLD+1 of a hostname, or null for IP addresses, localhost, bare suffixes and single labels. */
export function registrableDomain(hostname: string): string | null {
  const host = normalizeHostname(hostname);
  if (host === '' || host.charCodeAt(0) === 0x5b) return null;
  return getDomain(host, TLDTS_OPTIONS);
}

/** Throws UsageError for an unknown mode or no seeds, InvalidUrlError for a bad seed. */
export function createScope(mode: ScopeMode, seedUrls: readonly string[]): Scope {
  if (!(SCOPES as readonly string[]).includes(mode)) {
    throw new UsageError(`scope must be one of ${SCOPES.join(', ')}, got "${String(mode)}"`, { mode });
  }
  if (mode !== 'any' && seedUrls.length === 0) {
    throw new UsageError(`scope "${mode}" needs at least one seed URL`, { mode });
  }
  const seedHosts = seedUrls.map((seed) => new URL(canonicalize(seed)).hostname);
  switch (mode) {
    case 'any':
      return new AnyScope();
    case 'hosts':
      return new KeyScope(mode, seedHosts, (host) => host);
    case 'domains':
      return new KeyScope(mode, seedHosts, (host) => registrableDomain(host) ?? host);
  }
}

function normalizeHostname(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.charCodeAt(lower.length - 1) === 0x2e ? lower.slice(0, -1) : lower;
}

function httpHostname(url: URL | string): string | null {
  const u = typeof url === 'string' ? URL.parse(url) : url;
  if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:')) return null;
  return normalizeHostname(u.hostname);
}

class AnyScope implements Scope {
  readonly mode = 'any' as const;

  allows(url: URL | string): boolean {
    return httpHostname(url) !== null;
  }

  explain(url: URL | string): ScopeDecision {
    return httpHostname(url) === null
      ? { allowed: false, reason: 'not an http(s) URL' }
      : { allowed: true, reason: 'scope "any" allows every http(s) URL' };
  }
}

/** 'hosts' and 'domains': a URL is in scope when its host's key is a seed host's key. */
class KeyScope implements Scope {
  readonly mode: ScopeMode;
  readonly #keys: ReadonlySet<string>;
  readonly #keyOf: (host: string) => string;

  constructor(mode: ScopeMode, seedHosts: readonly string[], keyOf: (host: string) => string) {
    this.mode = mode;
    this.#keyOf = keyOf;
    this.#keys = new Set(seedHosts.map((h) => keyOf(normalizeHostname(h))));
  }

  allows(url: URL | string): boolean {
    const host = httpHostname(url);
    return host !== null && this.#keys.has(this.#keyOf(host));
  }

  explain(url: URL | string): ScopeDecision {
    const host = httpHostname(url);
    if (host === null) return { allowed: false, reason: 'not an http(s) URL' };
    const key = this.#keyOf(host);
    const allowed = this.#keys.has(key);
    const seeds = [...this.#keys].join(', ');
    if (this.mode === 'hosts') {
      return allowed
        ? { allowed, reason: `host ${host} is a seed host` }
        : { allowed, reason: `host ${host} is not a seed host (${seeds})` };
    }
    const what = key === host && registrableDomain(host) === null
      ? `host ${host} (no registrable domain, compared as is)`
      : `host ${host} (registrable domain ${key})`;
    return allowed
      ? { allowed, reason: `${what} is in a seed domain` }
      : { allowed, reason: `${what} is not in a seed domain (${seeds})` };
  }
}
