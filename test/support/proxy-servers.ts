/**
 * Real proxies for tests, started on loopback: tinyproxy (HTTP, with CONNECT) and microsocks
 * (SOCKS5). Each can bind its outgoing connections to another loopback address (127.0.0.3
 * by default), so a test site that logs each request's remote address tells the requests
 * that came through the proxy from any that bypassed it. Their own logs hold every request
 * they carried.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';

/** The address the proxies' outgoing connections come from. */
export const PROXY_SOURCE_ADDRESS = '127.0.0.3';

export interface RunningProxy {
  /** host:port, without scheme or credentials. */
  readonly address: string;
  readonly port: number;
  /** The proxy's log so far (tinyproxy's log file, microsocks' output). */
  log(): string;
  stop(): Promise<void>;
}

/** Why the proxy tests cannot run here, or undefined when both proxies are installed. */
export function proxiesMissing(): string | undefined {
  for (const tool of ['tinyproxy', 'microsocks']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (apt-get install ${tool})`;
  }
  return undefined;
}

/** A loopback port free now (tinyproxy cannot be given port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface TinyproxyOptions {
  /** A folder of the test's own for the config and the log. */
  dir: string;
  /** Credentials the proxy demands (tinyproxy's BasicAuth): without them it answers 407. */
  basicAuth?: { user: string; password: string };
  /** The port to listen on (to restart a proxy where a crawl expects it); a free one by default. */
  port?: number;
}

export async function startTinyproxy(options: TinyproxyOptions): Promise<RunningProxy> {
  const port = options.port ?? (await freePort());
  const logPath = join(options.dir, `tinyproxy-${port}.log`);
  // tinyproxy refuses to run as root: it drops to nobody, who must be able to write its log.
  chmodSync(options.dir, 0o755);
  if (!existsSync(logPath)) writeFileSync(logPath, '');
  chmodSync(logPath, 0o666);
  const asRoot = process.getuid?.() === 0;
  const config = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    `Bind ${PROXY_SOURCE_ADDRESS}`,
    'Timeout 10',
    `LogFile "${logPath}"`,
    'LogLevel Info',
    'MaxClients 64',
    'Allow 127.0.0.1',
    'DisableViaHeader Yes',
    ...(asRoot ? ['User nobody', `Group ${groupOfNobody()}`] : []),
    ...(options.basicAuth === undefined ? [] : [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`]),
  ];
  const configPath = join(options.dir, `tinyproxy-${port}.conf`);
  writeFileSync(configPath, `${config.join('\n')}\n`);
  const child = spawn('tinyproxy', ['-d', '-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  await waitForPort(port, child, () => stderr);
  return running(port, child, () => readFileSync(logPath, 'utf8'));
}

export interface MicrosocksOptions {
  auth?: { user: string; password: string };
  port?: number;
}

export async function startMicrosocks(options: MicrosocksOptions = {}): Promise<RunningProxy> {
  const port = options.port ?? (await freePort());
  const args = ['-i', '127.0.0.1', '-p', String(port), '-b', PROXY_SOURCE_ADDRESS];
  if (options.auth !== undefined) args.push('-u', options.auth.user, '-P', options.auth.password);
  const child = spawn('microsocks', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await waitForPort(port, child, () => output);
  return running(port, child, () => output);
}

function running(port: number, child: ChildProcess, log: () => string): RunningProxy {
  return {
    address: `127.0.0.1:${port}`,
    port,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function groupOfNobody(): string {
  const groups = readFileSync('/etc/group', 'utf8');
  return /^nogroup:/m.test(groups) ? 'nogroup' : 'nobody';
}

/** Resolves once the port accepts connections; rejects with the process's output if it exits first. */
async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the proxy exited (${child.exitCode}): ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`the proxy did not listen on ${port} within 5 s: ${output()}`);
}
