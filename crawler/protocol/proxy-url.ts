/*
 * The shape of a proxy URL (the `proxy` setting, or a proxy environment variable): pure, so
 * the New crawl form says at once what the crawler would refuse; crawler/net/proxy-config.ts
 * reads the setting with it and decides which requests go through the proxy.
 */

export type ProxyProtocol = 'http' | 'https' | 'socks5' | 'socks5h';

const PROTOCOLS: ReadonlySet<string> = new Set<ProxyProtocol>(['http', 'https', 'socks5', 'socks5h']);

/** A proxy URL read, or why it is not one; `why` never quotes the URL (it may hold a password). */
export type ProxyUrlReading = { ok: true; url: URL; protocol: ProxyProtocol } | { ok: false; why: string };

/**
 * Reads a proxy URL. Like curl, a URL without a scheme is an HTTP proxy. Only a host (with an
 * optional port and credentials) under http://, https://, socks5:// or socks5h:// is one.
 */
export function readProxyUrl(text: string): ProxyUrlReading {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  const url = URL.parse(withScheme);
  if (url === null || url.hostname === '') return { ok: false, why: 'is not a proxy URL' };
  const protocol = url.protocol.slice(0, -1);
  if (!PROTOCOLS.has(protocol)) return { ok: false, why: `has scheme ${url.protocol}//; use http://, https://, socks5:// or socks5h://` };
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
    return { ok: false, why: 'has a path or query; give only scheme, host and port' };
  }
  return { ok: true, url, protocol: protocol as ProxyProtocol };
}

/** Why the `proxy` setting cannot be used, or undefined when it is '' (the environment), `none` or a proxy URL. */
export function proxySettingProblem(value: string): string | undefined {
  if (value === '' || value === 'none') return undefined;
  if (/\s/.test(value)) return 'holds a space';
  const reading = readProxyUrl(value);
  return reading.ok ? undefined : reading.why;
}
