/*
 * `forager cluster …` and `forager worker …` facing what a real Redis may hold or do: damaged
 * definitions and worker statuses, a cluster to delete whose definition is damaged, a Redis
 * that is away or never answers while a signal comes, a password in the --redis URL, escape
 * sequences in what Redis holds, and absurd numeric options. Every case runs the real CLI
 * (for the app, the real service) against a real redis-server, but one: a server that accepts
 * connections and never answers. Tests are numbered after the items of issue 35.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { createCluster } from '../../crawler/cluster/cluster-definition.ts';
import { ClusterKeys } from '../../crawler/cluster/cluster-keys.ts';
import type { WorkerStatus } from '../../crawler/cluster/worker-registry.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../../crawler/protocol/settings.ts';
import { errorBody, ForagerService } from '../../crawler/service/service.ts';
import { runCli, spawnCli, type CliResult, type RunningCli } from '../support/cli.ts';
import { tempDir } from '../support/crawl-harness.ts';
import { freePort, REDIS_SERVER_BIN, startRedisServer, type RedisServer } from '../support/redis-server.ts';

const skip = !existsSync(REDIS_SERVER_BIN) && process.env.CI === undefined ? `no redis-server at ${REDIS_SERVER_BIN} (apt-get install -y redis-server)` : false;

/** Every control character a terminal would obey (tab and newline aside), as terminal-text.ts lists them. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** What a hostile value in Redis carries: a title-setting OSC, a colour, a C1 CSI and a right-to-left override. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[31mred\u009b2J\u202eevil';

const SETTINGS: CrawlSettings = { ...DEFAULT_SETTINGS, query: 'write ahead log', seeds: ['http://127.0.0.1:9/'], maxPages: 50 };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A failure as the CLI must report it: a non-zero exit and one line on stderr, no stack. */
function assertOneLineFailure(result: CliResult, what: string): void {
  assert.equal(result.timedOut, false, `${what}: still running when killed`);
  assert.ok(result.code !== null && result.code !== 0, `${what}: exit ${result.code} (${result.signal ?? ''}), stderr ${result.stderr}`);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `${what}: more than one line on stderr:\n${result.stderr}`);
  assert.match(lines[0] as string, /^forager: /, what);
  assert.doesNotMatch(result.stderr, /\bat .*:\d+:\d+\)?$|unexpected error/m, `${what}: a stack trace`);
}

/** Resolves when the running command's stderr matches `pattern`; rejects after `timeoutMs`. */
async function stderrMatches(cli: RunningCli, pattern: RegExp, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!pattern.test(cli.stderr())) {
    if (Date.now() - started > timeoutMs) throw new Error(`stderr never matched ${pattern}:\n${cli.stderr()}`);
    await sleep(50);
  }
}

/** Sends `signal` and returns the result and how long the process took to exit after it. */
async function exitAfter(cli: RunningCli, signal: NodeJS.Signals): Promise<{ result: CliResult; ms: number }> {
  const sent = Date.now();
  cli.child.kill(signal);
  const result = await cli.done;
  return { result, ms: Date.now() - sent };
}

function workerStatus(id: string): WorkerStatus {
  return {
    id, seq: 3, activity: 10, host: 'machine', home: 'machine:/data', pid: 4242, startedAt: Date.now(),
    partitions: 256, shards: 2, pagesStored: 10, pagesPerSecond: 1.5, queued: 7, inProgress: 0, outbox: 0,
    idle: false, allowance: 8, budgetSpent: false, paused: false, errors: 0,
  };
}

/** Puts worker statuses in Redis as live workers (heartbeats a minute ahead), each key holding its text as given. */
async function putWorkers(client: Redis, keys: ClusterKeys, statuses: Record<string, string>): Promise<void> {
  const [seconds] = await client.time();
  const expires = Number(seconds) * 1000 + 60_000;
  for (const [id, text] of Object.entries(statuses)) {
    await client.zadd(keys.workers, expires, id);
    await client.set(keys.workerStatus(id), text);
  }
}

describe('cluster commands and workers facing a hostile Redis', { skip, timeout: 120_000 }, () => {
  let redis: RedisServer;
  let client: Redis;
  const dir = tempDir('forager-cluster-hostile-');

  before(async () => {
    redis = await startRedisServer();
    client = redis.client();
  });

  after(async () => {
    client?.disconnect();
    await redis?.close();
    dir.cleanup();
  });

  const cli = (...args: string[]): Promise<CliResult> => runCli(args, { timeoutMs: 20_000 });

  test('1a. worker --dir naming a regular file: one line, no stack', async () => {
    await createCluster(client, 'dirfile', SETTINGS);
    const file = join(dir.dir, 'a-file');
    writeFileSync(file, 'not a directory');
    for (const target of [file, join(file, 'below')]) {
      const result = await cli('worker', '--redis', redis.url, '--name', 'dirfile', '--dir', target, '--parse-workers', '0');
      assertOneLineFailure(result, `--dir ${target}`);
      assert.match(result.stderr, /--dir/);
    }
  });

  test('1b. a damaged definition: status, worker (and pause) say so in one line', async () => {
    const valid = { name: 'x', settings: SETTINGS, partitions: 256, leaseMs: 10_000, createdAt: 1 };
    const damaged: Record<string, string> = {
      'json-null': 'null',
      'json-array': '[]',
      'json-object': '{}',
      'json-string': '"x"',
      'not-json': '{"name":',
      'bad-settings': JSON.stringify({ ...valid, settings: { ...SETTINGS, maxPages: 'lots' } }),
      'settings-null': JSON.stringify({ ...valid, settings: null }),
      'bad-lease': JSON.stringify({ ...valid, leaseMs: 0 }),
    };
    for (const [name, text] of Object.entries(damaged)) await client.set(new ClusterKeys(name).definition, text);
    await client.hset(new ClusterKeys('wrong-type').definition, 'settings', '{}');
    for (const name of [...Object.keys(damaged), 'wrong-type']) {
      const [status, worker] = await Promise.all([
        cli('cluster', 'status', '--redis', redis.url, '--name', name),
        cli('worker', '--redis', redis.url, '--name', name, '--dir', join(dir.dir, `shards-${name}`), '--parse-workers', '0'),
      ]);
      assertOneLineFailure(status, `cluster status of ${name}`);
      assertOneLineFailure(worker, `worker of ${name}`);
      assert.match(status.stderr, name === 'wrong-type' ? /WRONGTYPE/ : /definition of cluster/, status.stderr);
    }
    assertOneLineFailure(await cli('cluster', 'pause', '--redis', redis.url, '--name', 'json-null'), 'cluster pause of a damaged definition');
  });

  test('1c. damaged worker statuses are left out and counted; cluster status still answers', async () => {
    await createCluster(client, 'statuses', SETTINGS);
    const keys = new ClusterKeys('statuses');
    await putWorkers(client, keys, {
      good: JSON.stringify(workerStatus('good')),
      'not-json': '{"id": "not-json", ',
      'json-null': 'null',
      'strings-for-numbers': JSON.stringify({ ...workerStatus('strings-for-numbers'), pagesPerSecond: 'fast', queued: '7' }),
      'missing-fields': JSON.stringify({ id: 'missing-fields' }),
      'another-id': JSON.stringify(workerStatus('someone-else')),
    });
    const text = await cli('cluster', 'status', '--redis', redis.url, '--name', 'statuses');
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stderr, '');
    assert.match(text.stdout, /1 worker\(s\):\n {2}good {2}partitions 256/);
    assert.match(text.stdout, /5 live worker\(s\) left out: their status in Redis is damaged/);
    const json = await cli('cluster', 'status', '--redis', redis.url, '--name', 'statuses', '--json');
    assert.equal(json.code, 0, json.stderr);
    const status = JSON.parse(json.stdout) as { workers: { id: string }[]; unreadableWorkers: number; queued: number; pagesPerSecond: number };
    assert.deepEqual(status.workers.map((w) => w.id), ['good']);
    assert.equal(status.unreadableWorkers, 5);
    assert.equal(status.queued, 7);
    assert.equal(status.pagesPerSecond, 1.5);
  });

  test('2. cluster delete removes a cluster whose definition is damaged, or missing, and refuses a name with nothing', async () => {
    const broken = new ClusterKeys('broken');
    await client.set(broken.definition, 'null');
    await client.set(broken.state, 'running');
    await client.set(broken.budgetUsed, 'many');
    const remnant = new ClusterKeys('remnant');
    await client.set(remnant.pagesStored, '12');
    await client.lpush(remnant.errors, 'an error');
    const bystander = new ClusterKeys('bystander');
    await client.set(bystander.state, 'running');

    const deleted = await cli('cluster', 'delete', '--redis', redis.url, '--name', 'broken');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /cluster "broken" deleted from Redis \(3 keys\)/);
    assert.deepEqual(await client.keys(broken.pattern), []);

    const remnantDeleted = await cli('cluster', 'delete', '--redis', redis.url, '--name', 'remnant');
    assert.equal(remnantDeleted.code, 0, remnantDeleted.stderr);
    assert.deepEqual(await client.keys(remnant.pattern), []);

    const nothing = await cli('cluster', 'delete', '--redis', redis.url, '--name', 'never-was');
    assertOneLineFailure(nothing, 'cluster delete of a name with no keys');
    assert.match(nothing.stderr, /no cluster named "never-was"/);
    assert.equal(await client.get(bystander.state), 'running', 'another cluster\'s keys stay');
  });

  describe('3. signals', () => {
    test('a worker waiting for a Redis nobody listens on exits within 10 s of SIGTERM, and of SIGINT, in one line', async () => {
      const nowhere = `redis://127.0.0.1:${await freePort()}`;
      const workers = (['SIGTERM', 'SIGINT'] as const).map((signal) => ({
        signal,
        cli: spawnCli(['worker', '--redis', nowhere, '--name', 'away', '--dir', join(dir.dir, `away-${signal}`), '--parse-workers', '0'], { timeoutMs: 30_000 }),
      }));
      await Promise.all(workers.map((w) => stderrMatches(w.cli, /is unreachable/)));
      // Waiting a little longer puts each worker between two reconnection attempts.
      await sleep(1500);
      const ended = await Promise.all(workers.map((w) => exitAfter(w.cli, w.signal)));
      for (const [i, { result, ms }] of ended.entries()) {
        const signal = workers[i]?.signal as string;
        assert.ok(ms < 10_000, `${signal}: exited ${ms} ms after the signal`);
        assert.equal(result.signal, null, `${signal}: killed by ${result.signal}, not exited`);
        assert.equal(result.code, 1, result.stderr);
        const last = result.stderr.trimEnd().split('\n').at(-1) as string;
        assert.match(last, new RegExp(`^forager: stopped by ${signal} while waiting for Redis at 127\\.0\\.0\\.1:\\d+$`));
        assert.doesNotMatch(result.stderr, /\bat .*:\d+:\d+\)?$/m);
      }
    });

    test('workers whose Redis went away while they crawled exit within 10 s of SIGTERM and of SIGINT', async () => {
      const lost = await startRedisServer();
      try {
        const setup = lost.client();
        await createCluster(setup, 'lost', SETTINGS, 2000);
        setup.disconnect();
        const workers = (['SIGTERM', 'SIGINT'] as const).map((signal) => ({
          signal,
          cli: spawnCli(['worker', '--redis', lost.url, '--name', 'lost', '--dir', join(dir.dir, `lost-${signal}`), '--parse-workers', '0'], { timeoutMs: 40_000 }),
        }));
        await Promise.all(workers.map((w) => stderrMatches(w.cli, /took \d+ partition/)));
        await lost.stop();
        await Promise.all(workers.map((w) => stderrMatches(w.cli, /is unreachable/)));
        const ended = await Promise.all(workers.map((w) => exitAfter(w.cli, w.signal)));
        for (const [i, { result, ms }] of ended.entries()) {
          const signal = workers[i]?.signal as string;
          assert.ok(ms < 10_000, `${signal}: exited ${ms} ms after the signal`);
          assert.equal(result.signal, null, `${signal}: killed by ${result.signal}, not exited`);
          assert.equal(result.code, 1, result.stderr);
          assert.match(result.stderr.trimEnd().split('\n').at(-1) as string, /^forager: left the crawl without telling Redis at 127\.0\.0\.1:\d+/);
        }
      } finally {
        await lost.close();
      }
    });

    test('a worker whose Redis stays connected but stops answering exits within 10 s of one SIGTERM', async () => {
      const frozen = await startRedisServer();
      const pid = frozen.pid() as number;
      try {
        const setup = frozen.client();
        await createCluster(setup, 'frozen', SETTINGS, 2000);
        setup.disconnect();
        const worker = spawnCli(['worker', '--redis', frozen.url, '--name', 'frozen', '--dir', join(dir.dir, 'frozen'), '--parse-workers', '0'], { timeoutMs: 40_000 });
        await stderrMatches(worker, /took \d+ partition/);
        process.kill(pid, 'SIGSTOP');
        await sleep(500);
        const { result, ms } = await exitAfter(worker, 'SIGTERM');
        assert.ok(ms < 10_000, `exited ${ms} ms after the signal`);
        assert.equal(result.code, 1, result.stderr);
        assert.match(result.stderr.trimEnd().split('\n').at(-1) as string, /^forager: left the crawl without telling Redis/);
      } finally {
        process.kill(pid, 'SIGCONT');
        await frozen.close();
      }
    });

    test('a command facing a server that accepts and never answers gives up in seconds', async () => {
      const sockets = new Set<Socket>();
      const silent: Server = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as { port: number };
      try {
        const started = Date.now();
        const result = await runCli(['cluster', 'status', '--redis', `redis://127.0.0.1:${port}`, '--name', 'silent'], { timeoutMs: 15_000 });
        assertOneLineFailure(result, 'cluster status against a silent server');
        assert.match(result.stderr, /cannot reach Redis at 127\.0\.0\.1:\d+ \(no answer within/);
        assert.ok(Date.now() - started < 10_000);
      } finally {
        for (const socket of sockets) socket.destroy();
        silent.close();
      }
    });
  });

  describe('4. the Redis password', () => {
    const PASSWORD = 'Pa55-w0rd-xyzzy';
    let locked: RedisServer;
    let url: string;

    /** The helper's start-up PING has no password, so the password is set once the server answers. */
    const requirePassword = async (): Promise<void> => {
      const admin = locked.client();
      try {
        await admin.config('SET', 'requirepass', PASSWORD);
      } finally {
        admin.disconnect();
      }
    };
    const restartLocked = async (): Promise<void> => {
      await locked.restart();
      await requirePassword();
    };

    before(async () => {
      locked = await startRedisServer();
      await requirePassword();
      url = `redis://:${PASSWORD}@127.0.0.1:${locked.port}`;
    });
    after(async () => locked?.close());

    const assertNoPassword = (text: string, what: string): void => assert.ok(!text.includes(PASSWORD), `${what} shows the password:\n${text}`);

    test('never reaches the output of create, status, the worker, or an error', async () => {
      const created = await cli('cluster', 'create', '--redis', url, '--name', 'locked', '--query', 'write ahead log', '--seed', 'http://127.0.0.1:9/', '--allow-private', '--lease-ms', '2000');
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /Start workers with: forager worker --redis redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ --name locked/);
      assertNoPassword(created.stdout + created.stderr, 'cluster create');

      // A worker quoting its URL in an error reaches every reader of the errors list.
      const admin = new Redis(url);
      await admin.lpush(new ClusterKeys('locked').errors, `worker-1: could not reach ${url}`);
      admin.disconnect();
      for (const args of [[], ['--json']]) {
        const status = await cli('cluster', 'status', '--redis', url, '--name', 'locked', ...args);
        assert.equal(status.code, 0, status.stderr);
        assert.match(status.stdout, /could not reach/);
        assertNoPassword(status.stdout + status.stderr, `cluster status ${args.join(' ')}`);
      }

      const notRedis = await cli('cluster', 'status', '--redis', `http://:${PASSWORD}@127.0.0.1:${locked.port}`, '--name', 'locked');
      assertOneLineFailure(notRedis, 'a URL that is not a Redis URL');
      assert.match(notRedis.stderr, /is not a Redis URL/);
      assertNoPassword(notRedis.stderr, 'the "not a Redis URL" error');

      const typo = await cli('cluster', 'status', '--redis', `redis//:${PASSWORD}@127.0.0.1:${locked.port}`, '--name', 'locked');
      assertOneLineFailure(typo, 'a mistyped Redis URL');
      assertNoPassword(typo.stderr, 'the mistyped URL\'s error');

      const refused = await cli('cluster', 'status', '--redis', `redis://:${PASSWORD}-not@127.0.0.1:${locked.port}`, '--name', 'locked');
      assertOneLineFailure(refused, 'a wrong password');
      assert.match(refused.stderr, /WRONGPASS/);
      assertNoPassword(refused.stderr, 'the wrong password\'s error');

      const worker = spawnCli(['worker', '--redis', url, '--name', 'locked', '--dir', join(dir.dir, 'locked'), '--parse-workers', '0'], { timeoutMs: 30_000 });
      await stderrMatches(worker, /took \d+ partition/);
      await locked.stop();
      await stderrMatches(worker, /is unreachable/);
      const { result } = await exitAfter(worker, 'SIGTERM');
      assertNoPassword(result.stdout + result.stderr, 'the worker\'s log');
      assert.match(result.stderr, /Redis at 127\.0\.0\.1:\d+ is unreachable/);
      await restartLocked();
    });

    test('never reaches the app through forager serve\'s view of the cluster', async () => {
      const admin = new Redis(url);
      await createCluster(admin, 'served', SETTINGS);
      const keys = new ClusterKeys('served');
      await putWorkers(admin, keys, { w1: JSON.stringify({ ...workerStatus('w1'), errors: 1, lastError: `lost ${url}` }) });
      await admin.lpush(keys.errors, `w1: lost ${url}`);
      admin.disconnect();
      const service = new ForagerService({ dir: dir.dir, cluster: { redis: url, name: 'served' } });
      try {
        const answer = await service.clusterStatus();
        assert.ok(answer.configured);
        assert.equal(answer.status.workers[0]?.lastError?.startsWith('lost '), true);
        assertNoPassword(JSON.stringify(answer), 'the cluster status the app is sent');
        await locked.stop();
        let message = '';
        try {
          await service.clusterStatus();
        } catch (err) {
          message = errorBody(err).message;
        }
        assert.match(message, /Redis at 127\.0\.0\.1:\d+/);
        assertNoPassword(message, 'the error the app is sent');
      } finally {
        await service.close();
        await restartLocked();
      }
    });
  });

  test('5. cluster status shows no control character that came from Redis, as text or JSON', async () => {
    await createCluster(client, 'escapes', { ...SETTINGS, query: `write ahead log ${HOSTILE}` });
    const keys = new ClusterKeys('escapes');
    const id = `worker${HOSTILE}\n  fake-worker  partitions 256`;
    await putWorkers(client, keys, { [id]: JSON.stringify({ ...workerStatus(id), host: `host${HOSTILE}`, lastError: HOSTILE }) });
    await client.lpush(keys.errors, `2026-01-01T00:00:00Z ${HOSTILE}\nforged line`);
    for (const args of [[], ['--json']]) {
      const status = await cli('cluster', 'status', '--redis', redis.url, '--name', 'escapes', ...args);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, /evil/);
      assert.doesNotMatch(status.stdout, CONTROL, `cluster status ${args.join(' ')} wrote a control character`);
      if (args.length === 0) assert.doesNotMatch(status.stdout, /^ {2}fake-worker|^forged line/m, 'a newline from Redis made a line of its own');
    }
  });

  test('6. numeric options are bounded, each with a clear message', async () => {
    const nowhere = `redis://127.0.0.1:${await freePort()}`;
    const cases: [string[], RegExp][] = [
      [['worker', '--redis', nowhere, '--name', 'n', '--dir', join(dir.dir, 'n'), '--parse-workers', '100000'], /--parse-workers must be a whole number from 0 to 64, got "100000"/],
      [['worker', '--redis', nowhere, '--name', 'n', '--dir', join(dir.dir, 'n'), '--parse-workers', '65'], /--parse-workers must be a whole number from 0 to 64/],
      [['cluster', 'create', '--redis', nowhere, '--name', 'n', '--query', 'write ahead log', '--seed', 'http://127.0.0.1:9/', '--lease-ms', '100'], /--lease-ms must be a whole number from 500 to 600000/],
      [['cluster', 'create', '--redis', nowhere, '--name', 'n', '--query', 'write ahead log', '--seed', 'http://127.0.0.1:9/', '--lease-ms', '99999999999999999999'], /--lease-ms must be a whole number from 500 to 600000/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, { timeoutMs: 10_000 })));
    for (const [i, result] of results.entries()) {
      const [args, message] = cases[i] as [string[], RegExp];
      assertOneLineFailure(result, args.join(' '));
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    }
  });
});
