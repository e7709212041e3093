import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/*
 * Debian's real redis-server for tests: a loopback port of its own, a temporary directory,
 * no config file. The server dies with the test process: it is started under
 * `setpriv --pdeathsig KILL` (the kernel kills it when its parent dies, even of SIGKILL) and
 * an exit handler kills any server still running when the process exits.
 */

export const REDIS_SERVER_BIN = '/usr/bin/redis-server';
const SETPRIV_BIN = '/usr/bin/setpriv';

export interface RedisServerOptions {
  /** Append-only file on or off. Default false. */
  appendonly?: boolean;
  /** appendfsync when appendonly is on. Default 'everysec' (Redis's); 'always' loses nothing to kill -9. */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** RDB save points, as `--save` takes them ("900 1 300 10"). Default '' (none). */
  save?: string;
  /** Data directory; default a fresh temporary one, removed by close(). */
  dir?: string;
  /** Port; default a free one. */
  port?: number;
  /** More `--name value` arguments for redis-server. */
  extraArgs?: readonly string[];
  /** How long to wait for PING to answer. Default 10 s. */
  startTimeoutMs?: number;
}

export interface RedisServer {
  /** "redis://127.0.0.1:PORT" */
  url: string;
  port: number;
  dir: string;
  /** The server's pid, or undefined when it is not running. */
  pid(): number | undefined;
  running(): boolean;
  /** The server's own output so far (its log), for failure messages. */
  output(): string;
  /** A new ioredis client of this server (the caller quits it). */
  client(): Redis;
  /** SIGTERM (Redis saves what it is configured to save and exits) and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
  /** stop() when running, then start again on the same port and dir (an append-only file is loaded again). */
  restart(): Promise<void>;
  /** INFO memory's used_memory. */
  memoryUsedBytes(): Promise<number>;
  /** INFO SECTION as Redis prints it (every section when omitted). */
  info(section?: string): Promise<string>;
  /** stop(), then remove the dir if this helper made it. */
  close(): Promise<void>;
}

/** Every server still running, killed when this process exits. */
const live = new Set<ChildProcess>();
/** Directories this helper made, removed when this process exits. */
const madeDirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
    for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
  });
}

/** A port nobody listens on now (the system's choice for an ephemeral bind). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `fn` with a client that fails fast instead of queueing or reconnecting. */
async function withClient<T>(port: number, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts redis-server and resolves once it answers PING. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER_BIN)) {
    throw new Error(`${REDIS_SERVER_BIN} is missing: install Debian's Redis with \`apt-get install -y redis-server\``);
  }
  installExitHook();
  const madeDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'forager-redis-'));
  if (madeDir) madeDirs.add(dir);

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const args = (port: number): string[] => [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--protected-mode', 'yes',
    '--dir', dir,
    '--save', options.save ?? '',
    '--appendonly', options.appendonly === true ? 'yes' : 'no',
    '--appendfsync', options.appendfsync ?? 'everysec',
    '--daemonize', 'no',
    '--logfile', '',
    ...(options.extraArgs ?? []),
  ];

  /** Spawns the server on `port`; resolves when it answers PING, rejects when it exits first or times out. */
  const launch = async (port: number): Promise<void> => {
    const useSetpriv = existsSync(SETPRIV_BIN);
    const [command, commandArgs] = useSetpriv ? [SETPRIV_BIN, ['--pdeathsig', 'KILL', '--', REDIS_SERVER_BIN, ...args(port)]] : [REDIS_SERVER_BIN, args(port)];
    const started = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    live.add(started);
    let running = true;
    exited = new Promise<void>((resolve) => {
      started.once('exit', () => {
        running = false;
        live.delete(started);
        if (child === started) child = undefined;
        resolve();
      });
    });
    started.once('error', (err) => {
      output += `spawn failed: ${err.message}\n`;
    });
    for (const stream of [started.stdout, started.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        output = (output + chunk).slice(-64_000);
      });
    }
    const deadline = Date.now() + (options.startTimeoutMs ?? 10_000);
    for (;;) {
      if (!running) throw new Error(`redis-server exited before it answered PING:\n${output.slice(-4000)}`);
      try {
        const reply = await withClient(port, (client) => client.ping());
        if (reply === 'PONG') break;
      } catch {
        // Not listening yet, or still loading its data (a LOADING error).
      }
      if (Date.now() > deadline) {
        started.kill('SIGKILL');
        await exited;
        throw new Error(`redis-server did not answer PING within ${options.startTimeoutMs ?? 10_000} ms:\n${output.slice(-4000)}`);
      }
      await delay(20);
    }
    // A server the tests forget must not keep the test process alive (the exit hook kills it).
    started.unref();
    (started.stdout as Socket | null)?.unref();
    (started.stderr as Socket | null)?.unref();
  };

  const signal = async (name: NodeJS.Signals): Promise<void> => {
    const current = child;
    if (current === undefined) return;
    // Hold the event loop open until the exit is seen.
    current.ref();
    const hold = setInterval(() => {}, 1000);
    try {
      current.kill(name);
      await exited;
    } finally {
      clearInterval(hold);
    }
  };

  let port = options.port ?? 0;
  if (options.port !== undefined) {
    await launch(port);
  } else {
    // The free port can be taken between the probe and redis's bind: then try another.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await launch(port);
        break;
      } catch (err) {
        if (attempt >= 5 || !/Address already in use/i.test(output)) throw err;
        output = '';
      }
    }
  }

  const stop = (): Promise<void> => signal('SIGTERM');
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    pid: () => child?.pid,
    running: () => child !== undefined,
    output: () => output,
    client: () => new Redis(port, '127.0.0.1'),
    stop,
    kill: () => signal('SIGKILL'),
    restart: async () => {
      await stop();
      // The old server's socket is gone when it has exited; retry a moment if the port is still busy.
      for (let attempt = 1; ; attempt++) {
        try {
          await launch(port);
          return;
        } catch (err) {
          if (attempt >= 20 || !/Address already in use/i.test(output)) throw err;
          await delay(100);
        }
      }
    },
    memoryUsedBytes: async () => {
      const text = await server.info('memory');
      const match = /^used_memory:(\d+)\r?$/m.exec(text);
      if (match === null) throw new Error(`INFO memory has no used_memory:\n${text}`);
      return Number(match[1]);
    },
    info: (section) => withClient(port, (client) => (section === undefined ? client.info() : client.info(section))),
    close: async () => {
      await stop();
      if (madeDir) {
        rmSync(dir, { recursive: true, force: true });
        madeDirs.delete(dir);
      }
    },
  };
  return server;
}
