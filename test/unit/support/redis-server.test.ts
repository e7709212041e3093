import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../support/redis-server.ts';

const SUPPORT = new URL('../../support/redis-server.ts', import.meta.url).href;

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** True while `pid` is a process that is not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(condition: () => Promise<boolean> | boolean, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

function client(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  return redis;
}

describe('startRedisServer', () => {
  test('starts a loopback server without persistence that answers SET/GET; stop() ends it', async () => {
    const server = await startRedisServer();
    try {
      assert.match(server.url, /^redis:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(server.url, `redis://127.0.0.1:${server.port}`);
      const redis = client(server.url);
      assert.equal(await redis.set('k', 'v'), 'OK');
      assert.equal(await redis.get('k'), 'v');
      assert.deepEqual(await redis.config('GET', 'bind'), ['bind', '127.0.0.1']);
      assert.deepEqual(await redis.config('GET', 'save'), ['save', '']);
      assert.deepEqual(await redis.config('GET', 'appendonly'), ['appendonly', 'no']);
      assert.deepEqual(await redis.config('GET', 'protected-mode'), ['protected-mode', 'yes']);
      assert.deepEqual(await redis.config('GET', 'dir'), ['dir', server.dir]);
      redis.disconnect();

      assert.match(await server.info('server'), /redis_version:\d+\./);
      const before = await server.memoryUsedBytes();
      const fill = client(server.url);
      await fill.set('big', 'x'.repeat(1_000_000));
      fill.disconnect();
      assert.ok((await server.memoryUsedBytes()) > before + 900_000);

      const pid = server.pid() as number;
      await server.stop();
      assert.equal(server.running(), false);
      assert.equal(alive(pid), false);
      assert.equal(await listening(server.port), false);
      await server.stop(); // twice is harmless
    } finally {
      await server.close();
    }
  });

  test('restart() keeps the port and dir, and with appendonly yes the data', async () => {
    const server = await startRedisServer({ appendonly: true });
    try {
      const redis = client(server.url);
      await redis.set('kept', 'yes');
      await redis.xadd('stream', '*', 'url', 'http://127.0.0.1:1/');
      redis.disconnect();
      const { port, dir } = server;
      const oldPid = server.pid();
      await server.restart();
      assert.equal(server.port, port);
      assert.equal(server.dir, dir);
      assert.notEqual(server.pid(), oldPid);
      const again = client(server.url);
      assert.equal(await again.get('kept'), 'yes');
      assert.equal(await again.xlen('stream'), 1);
      again.disconnect();
    } finally {
      await server.close();
    }
  });

  test('without appendonly a restart starts empty', async () => {
    const server = await startRedisServer();
    try {
      const redis = client(server.url);
      await redis.set('gone', 'soon');
      redis.disconnect();
      await server.restart();
      const again = client(server.url);
      assert.equal(await again.get('gone'), null);
      again.disconnect();
    } finally {
      await server.close();
    }
  });

  test('kill() is a SIGKILL: the server is gone at once and a client sees the connection drop', async () => {
    const server = await startRedisServer({ appendonly: true, appendfsync: 'always' });
    try {
      const redis = client(server.url);
      await redis.set('durable', '1');
      const dropped = new Promise<void>((resolve) => redis.once('close', () => resolve()));
      const pid = server.pid() as number;
      await server.kill();
      await dropped;
      assert.equal(alive(pid), false);
      assert.equal(await listening(server.port), false);
      await assert.rejects(server.info('memory'));
      redis.disconnect();
      // appendfsync always: what was acknowledged survives kill -9.
      await server.restart();
      const again = client(server.url);
      assert.equal(await again.get('durable'), '1');
      again.disconnect();
    } finally {
      await server.close();
    }
  });

  test('a server never outlives its test process, whether it exits or is killed', async () => {
    for (const ending of ['exit', 'SIGKILL'] as const) {
      const script = `
        import { startRedisServer } from ${JSON.stringify(SUPPORT)};
        const server = await startRedisServer();
        process.stdout.write(JSON.stringify({ pid: server.pid(), port: server.port, dir: server.dir }) + '\\n');
        ${ending === 'exit' ? "process.stdin.once('data', () => process.exit(0));" : 'setInterval(() => {}, 1000);'}
      `;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', () => reject(new Error(`the child exited early: ${out}`)));
      });
      const { pid, port, dir } = JSON.parse(line) as { pid: number; port: number; dir: string };
      assert.ok(alive(pid) && (await listening(port)), ending);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (ending === 'exit') child.stdin.write('\n');
      else child.kill('SIGKILL');
      await exited;
      const gone = await until(async () => !alive(pid) && !(await listening(port)));
      // The exit hook removes the dir on a normal exit; after SIGKILL nobody can.
      assert.equal(existsSync(dir), ending === 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      assert.ok(gone, `redis-server outlived its parent (${ending})`);
    }
  });
});
