/**
 * undici `connect` function that opens each connection through a SOCKS5 proxy with the
 * `socks` package. socks5:// resolves the target's name here (curl's meaning) and passes the
 * SSRF guard's address to the proxy; socks5h:// passes the name, after the guard has refused
 * any IP literal, or name resolving here, to a refused address. HTTPS targets get TLS over the
 * tunnel from undici's own connector (its session cache, its checks).
 */
import net from 'node:net';
import { SocksClient } from 'socks';
import { buildConnector } from 'undici';
import type { ProxyEndpoint } from './proxy-config.ts';
import { proxyError } from './proxy-failure.ts';
import type { SsrfGuard } from './ssrf-guard.ts';

export function socksConnector(proxy: ProxyEndpoint, guard: SsrfGuard, connectTimeoutMs: number): buildConnector.connector {
  const openTls = buildConnector({ timeout: connectTimeoutMs, allowH2: false });
  return (target, callback) => {
    const port = Number(target.port === '' || target.port === undefined ? (target.protocol === 'https:' ? 443 : 80) : target.port);
    destinationOf(target.hostname, proxy, guard)
      .then((host) => tunnel(proxy, host, port, connectTimeoutMs))
      .then(
        (socket) => {
          if (target.protocol === 'https:') openTls({ ...target, httpSocket: socket }, callback);
          else callback(null, socket);
        },
        (err: Error) => callback(err, null),
      );
  };
}

/** The host the proxy is asked to connect to, once the SSRF guard has let it through. */
async function destinationOf(hostname: string, proxy: ProxyEndpoint, guard: SsrfGuard): Promise<string> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (proxy.protocol === 'socks5' && net.isIP(host) === 0) return ((await guard.allowedAddresses(host))[0] as { address: string }).address;
  if (proxy.protocol === 'socks5') {
    const refusal = guard.checkIpLiteral(host);
    if (refusal !== undefined) throw refusal;
    return host;
  }
  await guard.checkProxiedTarget(host);
  return host;
}

async function tunnel(proxy: ProxyEndpoint, host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  const socket = await connectToProxy(proxy, timeoutMs);
  const { url } = proxy;
  try {
    const { socket: tunnelled } = await SocksClient.createConnection({
      proxy: {
        host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: proxyPort(url),
        type: 5,
        ...(url.username !== '' && { userId: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }),
      },
      command: 'connect',
      destination: { host, port },
      timeout: timeoutMs,
      existing_socket: socket,
    });
    return tunnelled;
  } catch (err) {
    socket.destroy();
    throw handshakeFailure(proxy, err);
  }
}

function proxyPort(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : 1080) : Number(url.port);
}

function connectToProxy(proxy: ProxyEndpoint, timeoutMs: number): Promise<net.Socket> {
  const { url } = proxy;
  return new Promise((resolve, reject) => {
    // No Nagle delay: a request's head and the proxy's small writes would otherwise wait for delayed ACKs (40 ms each).
    const socket = net.connect({ host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname, port: proxyPort(url), noDelay: true, keepAlive: true });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(proxyError('proxy:timeout', proxy, `no connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(proxyError('proxy:refused', proxy, err.message, err));
    });
  });
}

/** The socks package reports a failed handshake by message alone. */
function handshakeFailure(proxy: ProxyEndpoint, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (/Authentication failed|no accepted authentication/i.test(message)) return proxyError('proxy:auth', proxy, message, err);
  if (/timed out/i.test(message)) return proxyError('proxy:timeout', proxy, message, err);
  const rejected = /rejected connection - (\w+)/.exec(message);
  if (rejected?.[1] === 'NotAllowed') return proxyError('proxy:denied', proxy, message, err);
  if (rejected !== null) return proxyError('proxy:bad-gateway', proxy, message, err);
  return proxyError('proxy:refused', proxy, message, err);
}
