/**
 * Serves static document trees over loopback with a private nginx instance, so that
 * benchmarks crawl a real HTTP server (keep-alive, gzip, sendfile) rather than a toy.
 * Everything nginx writes (config, pid, logs, temp files) lives in one temp dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, lstatSync, mkdtempSync, openSync, readFileSync, readlinkSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForagerError } from '../../crawler/errors.ts';

export const NGINX_BINARY = '/usr/sbin/nginx';

export interface SiteSpec {
  name: string;
  root: string;
  port?: number;
  /** Path of the entry page relative to the root; found from index.html when omitted. */
  entry?: string;
}

export interface ServedSite {
  name: string;
  origin: string;
  seed: string;
}

export interface RunningSites {
  sites: ServedSite[];
  /** nginx's access log: combined lines, or transfer lines with `transferLog`. */
  accessLog: string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const LOG_SETTLE_MS = 50;

export interface SitesOptions {
  /**
   * Log what each response cost rather than combined lines, unbuffered, so that a benchmark
   * can read the log between runs (transferLogReader).
   */
  transferLog?: boolean;
}

/** What nginx wrote, summed over transfer log lines. */
export interface TransferTraffic {
  requests: number;
  /** $bytes_sent: status lines, headers and bodies. */
  bytes: number;
  /** $body_bytes_sent: bodies alone, as sent (gzipped when nginx gzipped them). */
  bodyBytes: number;
  byStatus: Record<string, number>;
  bytesByStatus: Record<string, number>;
}

/**
 * Returns a function that sums the transfer log's lines written since it was last called.
 * nginx logs a request once it has handed the response to the kernel, which can be just after
 * the client read it, so each call first waits for the log to stop growing.
 */
export function transferLogReader(path: string): () => Promise<TransferTraffic> {
  let offset = 0;
  return async () => {
    let size = statSync(path).size;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, LOG_SETTLE_MS));
      const now = statSync(path).size;
      if (now === size) break;
      size = now;
    }
    const chunk = Buffer.alloc(size - offset);
    const fd = openSync(path, 'r');
    try {
      readSync(fd, chunk, 0, chunk.length, offset);
    } finally {
      closeSync(fd);
    }
    // A line nginx is still writing is left for the next call.
    const end = chunk.lastIndexOf(0x0a) + 1;
    offset += end;
    const traffic: TransferTraffic = { requests: 0, bytes: 0, bodyBytes: 0, byStatus: {}, bytesByStatus: {} };
    for (const line of chunk.subarray(0, end).toString('latin1').split('\n')) {
      if (line === '') continue;
      const [status, bytesSent, bodyBytesSent] = line.split(' ');
      const bytes = Number(bytesSent);
      const bodyBytes = Number(bodyBytesSent);
      if (status === undefined || !Number.isInteger(bytes) || !Number.isInteger(bodyBytes)) {
        throw new ForagerError('BENCH_SETUP', `${path}: not a transfer log line: ${line}`, { path, line });
      }
      traffic.requests++;
      traffic.bytes += bytes;
      traffic.bodyBytes += bodyBytes;
      traffic.byStatus[status] = (traffic.byStatus[status] ?? 0) + 1;
      traffic.bytesByStatus[status] = (traffic.bytesByStatus[status] ?? 0) + bytes;
    }
    return traffic;
  };
}

/**
 * The page a visitor lands on. When index.html is a symlink to a sibling page (git-doc's
 * index.html -> git.html) the sibling is the page other pages link to, so seeding with it
 * avoids counting the same document twice under two URLs.
 */
export function naturalEntry(root: string): string {
  const index = join(root, 'index.html');
  if (!existsSync(index)) {
    throw new ForagerError('BENCH_SETUP', `No index.html in ${root}; pass an explicit entry page`, { root });
  }
  if (lstatSync(index).isSymbolicLink()) {
    const target = readlinkSync(index);
    if (!target.includes('/')) return target;
  }
  return 'index.html';
}

async function freeLoopbackPorts(count: number): Promise<number[]> {
  // Hold every probe socket open until all are bound so the ports are distinct.
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server));
      }),
    ),
  );
  const ports = servers.map((server) => {
    const address = server.address();
    if (address === null || typeof address === 'string') {
      throw new ForagerError('BENCH_SETUP', 'Could not read the probe socket address');
    }
    return address.port;
  });
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}

function nginxQuote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

function renderConfig(dir: string, sites: { name: string; root: string; port: number }[], options: SitesOptions): string {
  const servers = sites
    .map(
      (site) => `
    server {
        listen 127.0.0.1:${site.port};
        server_name ${nginxQuote(site.name)};
        root ${nginxQuote(site.root)};
        index index.html;
        disable_symlinks off;
        autoindex off;
        location / {
            try_files $uri $uri/ =404;
        }
    }`,
    )
    .join('\n');
  // One worker: the machine under test has 2 cores and the crawler needs them more.
  return `daemon off;
master_process on;
worker_processes 1;
pid ${nginxQuote(join(dir, 'nginx.pid'))};
error_log ${nginxQuote(join(dir, 'error.log'))} warn;

events {
    worker_connections 1024;
}

http {
    types {
        text/html html htm;
        text/css css;
        text/plain txt;
        application/javascript js;
        application/json json;
        image/png png;
        image/jpeg jpg jpeg;
        image/gif gif;
        image/svg+xml svg;
        image/x-icon ico;
        application/zip zip;
        application/x-bzip2 bz2;
        application/gzip gz;
        application/pdf pdf;
        font/woff woff;
        font/woff2 woff2;
    }
    default_type application/octet-stream;
    charset utf-8;

    # Read by transferLogReader. $bytes_sent counts the status line and headers too,
    # $body_bytes_sent the body alone; the URI, last, may hold spaces.
    log_format transfer '$status $bytes_sent $body_bytes_sent $request_method $request_uri';
    access_log ${nginxQuote(join(dir, 'access.log'))} ${options.transferLog === true ? 'transfer' : 'combined buffer=64k flush=1s'};

    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000;

    gzip on;
    gzip_vary on;
    gzip_min_length 256;
    gzip_types text/css text/plain application/javascript application/json image/svg+xml;

    client_body_temp_path ${nginxQuote(join(dir, 'client_body'))};
    proxy_temp_path ${nginxQuote(join(dir, 'proxy'))};
    fastcgi_temp_path ${nginxQuote(join(dir, 'fastcgi'))};
    uwsgi_temp_path ${nginxQuote(join(dir, 'uwsgi'))};
    scgi_temp_path ${nginxQuote(join(dir, 'scgi'))};
${servers}
}
`;
}

function probe(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'HEAD', timeout: 1_000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode !== undefined);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

function readErrorLog(dir: string): string {
  const path = join(dir, 'error.log');
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Starts one nginx master serving every site on its own loopback port. The returned
 * stop() must be awaited; should the process die first, exit handlers still kill nginx.
 */
export async function startSites(specs: SiteSpec[], options: SitesOptions = {}): Promise<RunningSites> {
  if (!existsSync(NGINX_BINARY)) {
    throw new ForagerError('BENCH_SETUP', `${NGINX_BINARY} not found`, { binary: NGINX_BINARY });
  }
  const entries = specs.map((spec) => spec.entry ?? naturalEntry(spec.root));
  const missingPorts = specs.filter((spec) => spec.port === undefined).length;
  const freePorts = await freeLoopbackPorts(missingPorts);
  const resolved = specs.map((spec) => ({ name: spec.name, root: spec.root, port: spec.port ?? (freePorts.shift() as number) }));

  const dir = mkdtempSync(join(tmpdir(), 'forager-nginx-'));
  // Workers drop to an unprivileged user when we run as root and must reach their temp dirs.
  chmodSync(dir, 0o755);
  const configPath = join(dir, 'nginx.conf');
  writeFileSync(configPath, renderConfig(dir, resolved, options));

  const child = spawn(NGINX_BINARY, ['-p', dir, '-c', configPath, '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });

  let stopped = false;
  const killNow = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    killNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('exit', killNow);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killNow);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      if (!(await waitForExit(child, STOP_TIMEOUT_MS))) {
        child.kill('SIGKILL');
        await waitForExit(child, STOP_TIMEOUT_MS);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const sites = resolved.map((site, i) => {
    const origin = `http://127.0.0.1:${site.port}`;
    return { name: site.name, origin, seed: `${origin}/${entries[i]}` };
  });

  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (const site of sites) {
      while (!(await probe(site.seed))) {
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
          throw new ForagerError('BENCH_SETUP', `nginx did not start serving ${site.origin}`, {
            exitCode: child.exitCode,
            signal: child.signalCode,
            stderr: stderr.trim(),
            errorLog: readErrorLog(dir),
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return { sites, accessLog: join(dir, 'access.log'), stop };
}
