/**
 * Which proxy a request goes through, from the `proxy` setting: a proxy URL (every request
 * through it), `none` (every request direct, the environment ignored), or '' (the
 * environment, read as curl reads it). The environment is the running process's: a resumed
 * crawl or a cluster worker reads its own.
 */
import { UsageError } from '../errors.ts';
import { redactUrl } from '../url/redact.ts';
import { parseIPv4, parseIPv6 } from './ip-ranges.ts';
import { readProxyUrl, type ProxyProtocol } from '../protocol/proxy-url.ts';

export type { ProxyProtocol };

export interface ProxyEndpoint {
  /** The proxy's URL, credentials included: never shown (use `label`). */
  readonly url: URL;
  readonly protocol: ProxyProtocol;
  /** The URL as it may be shown: its password masked. */
  readonly label: string;
}

/** The proxy each request takes; undefined means a direct connection. */
export interface ProxyRoutes {
  proxyFor(target: URL): ProxyEndpoint | undefined;
}

/** The environment variables read, in the order curl reads them (lower case first). */
export type ProxyEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * A proxy URL from a setting or a variable; `source` names it in the error. Like curl, a URL
 * without a scheme is an HTTP proxy. Throws UsageError for anything else than a host (and
 * optional port and credentials) under one of the four schemes.
 */
export function parseProxyUrl(text: string, source: string): ProxyEndpoint {
  const reading = readProxyUrl(text);
  if (!reading.ok) {
    const shown = redactUrl(text);
    throw new UsageError(`${source}: the proxy "${shown}" ${reading.why}`, { setting: 'proxy', value: shown });
  }
  return { url: reading.url, protocol: reading.protocol, label: redactUrl(reading.url.href).replace(/\/$/, '') };
}

/**
 * Throws UsageError when the setting is not '', `none` or a proxy URL; given an environment
 * and '', when one of its variables holds a bad URL. The check made before a crawl starts.
 */
export function checkProxySetting(value: string, env?: ProxyEnvironment): void {
  if (value === '' && env !== undefined) proxyRoutes(value, env);
  else if (value !== '' && value !== 'none') parseProxyUrl(value, '--proxy');
}

/** The routes the setting gives; an environment variable holding a bad URL is a UsageError naming it. */
export function proxyRoutes(setting: string, env: ProxyEnvironment = process.env): ProxyRoutes {
  if (setting === 'none') return { proxyFor: () => undefined };
  if (setting !== '') {
    const proxy = parseProxyUrl(setting, '--proxy');
    return { proxyFor: () => proxy };
  }
  return environmentRoutes(env);
}

function environmentRoutes(env: ProxyEnvironment): ProxyRoutes {
  const read = (name: string): ProxyEndpoint | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : parseProxyUrl(value, `the environment variable ${name}`);
  };
  // curl reads only lower-case http_proxy (HTTP_PROXY can be set by a CGI request's Proxy header); the issue asks for both.
  const all = read('all_proxy') ?? read('ALL_PROXY');
  const forHttp = read('http_proxy') ?? read('HTTP_PROXY') ?? all;
  const forHttps = read('https_proxy') ?? read('HTTPS_PROXY') ?? all;
  const noProxy = nonEmpty(env.no_proxy) ?? nonEmpty(env.NO_PROXY) ?? '';
  if (forHttp === undefined && forHttps === undefined) return { proxyFor: () => undefined };
  const exceptions = parseNoProxy(noProxy);
  return {
    proxyFor: (target) => {
      if (matchesNoProxy(exceptions, target)) return undefined;
      return target.protocol === 'https:' ? forHttps : forHttp;
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** One NO_PROXY entry: everything, a host name (itself and its subdomains), or an address range; with a port, that port only. */
export type NoProxyEntry =
  | { readonly kind: 'all' }
  | { readonly kind: 'name'; readonly name: string; readonly port?: number }
  | { readonly kind: 'range'; readonly family: 4 | 6; readonly bits: bigint; readonly prefix: number; readonly port?: number };

/**
 * NO_PROXY's entries. As curl: a lone `*` is every host; entries are separated by commas
 * (blanks around them ignored); a leading or trailing dot on a name is ignored; IP addresses
 * match addresses, with an optional /prefix. Beyond curl: an entry may end in `:port` (curl
 * never matches such an entry; here it matches that port only), and blanks also separate.
 */
export function parseNoProxy(value: string): NoProxyEntry[] {
  const trimmed = value.trim();
  if (trimmed === '*') return [{ kind: 'all' }];
  const entries: NoProxyEntry[] = [];
  for (const token of trimmed.split(/[\s,]+/)) {
    if (token === '') continue;
    const entry = parseEntry(token);
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

function parseEntry(token: string): NoProxyEntry | undefined {
  const { host, port } = splitPort(token);
  const [address, prefixText] = host.split('/', 2) as [string, string | undefined];
  const ip = addressBits(address);
  if (ip !== undefined) {
    const width = ip.family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? width : Number(prefixText);
    if (!/^\d+$/.test(prefixText ?? '0') || prefix > width) return undefined;
    return { kind: 'range', ...ip, prefix, ...(port !== undefined && { port }) };
  }
  const name = host.replace(/^\./, '').replace(/\.$/, '').toLowerCase();
  if (name === '' || prefixText !== undefined) return undefined;
  return { kind: 'name', name, ...(port !== undefined && { port }) };
}

/** `host:port`, `[v6]:port`, `[v6]` or a bare IPv6 address (whose colons are not a port). */
function splitPort(token: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(token);
  if (bracketed !== null) return { host: bracketed[1] as string, ...(bracketed[2] !== undefined && { port: Number(bracketed[2]) }) };
  const withPort = /^([^:]+):(\d+)$/.exec(token);
  if (withPort !== null) return { host: withPort[1] as string, port: Number(withPort[2]) };
  return { host: token };
}

/** True when the target is one NO_PROXY exempts from the proxy. */
export function matchesNoProxy(entries: readonly NoProxyEntry[], target: URL): boolean {
  if (entries.length === 0) return false;
  const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname.replace(/\.$/, '').toLowerCase();
  const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port);
  const ip = addressBits(host);
  for (const entry of entries) {
    if (entry.kind === 'all') return true;
    if (entry.port !== undefined && entry.port !== port) continue;
    if (entry.kind === 'name') {
      if (ip === undefined && (host === entry.name || host.endsWith(`.${entry.name}`))) return true;
    } else if (ip !== undefined && entry.family === ip.family && inRange(ip.bits, entry)) {
      return true;
    }
  }
  return false;
}

function inRange(bits: bigint, range: { family: 4 | 6; bits: bigint; prefix: number }): boolean {
  const shift = BigInt((range.family === 4 ? 32 : 128) - range.prefix);
  return bits >> shift === range.bits >> shift;
}

/** An IP address as an integer, or undefined for a host name. */
function addressBits(host: string): { family: 4 | 6; bits: bigint } | undefined {
  if (host.includes(':')) {
    const groups = parseIPv6(host);
    return groups === undefined ? undefined : { family: 6, bits: groups.reduce((sum, group) => (sum << 16n) | BigInt(group), 0n) };
  }
  const v4 = parseIPv4(host);
  return v4 === undefined ? undefined : { family: 4, bits: BigInt(v4) };
}
