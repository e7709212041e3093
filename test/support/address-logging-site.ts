/**
 * A loopback site that logs each request's path and remote address: with a proxy that binds
 * its outgoing connections to another loopback address (proxy-servers.ts), the log tells the
 * requests that came through the proxy from any that bypassed it.
 */
import { createServer, type Server } from 'node:http';

export interface LoggedRequest {
  path: string;
  /** The remote address of the connection it came on. */
  from: string;
}

export interface AddressLoggingSite {
  origin: string;
  port: number;
  requests: LoggedRequest[];
  close(): Promise<void>;
}

/** Serves `pages` (path → [content type, body]) on `host`; any other path is a 404. */
export async function startAddressLoggingSite(host: string, pages: Readonly<Record<string, readonly [string, string]>>): Promise<AddressLoggingSite> {
  const requests: LoggedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, from: req.socket.remoteAddress ?? '' });
    const page = pages[path];
    if (page === undefined) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else res.writeHead(200, { 'content-type': page[0] }).end(page[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://${host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
