/*
 * One cluster run: a fresh redis-server, a fresh cluster name and data directory, `forager
 * cluster create` with the plain crawl's flags, then N `forager worker --json` processes
 * started together, each pinned to its core, until the crawl finishes. Redis's INFO is read
 * before the workers start and after the last one exits; the stream backlog is sampled
 * meanwhile. Then `forager merge` makes the shards one collection, whose page count is the
 * run's (checked against the plain crawl's by the caller).
 *
 * `cluster create` and `merge` are set-up and tidy-up, each a Node process of its own: their
 * CPU is not the crawl's (merge's time is printed beside it).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ClusterKeys } from '../../crawler/cluster/cluster-keys.ts';
import { ForagerError } from '../../crawler/errors.ts';
import { startRedisServer } from '../../test/support/redis-server.ts';
import { BacklogSampler } from './backlog-sampler.ts';
import { crawlFlags } from './crawl-flags.ts';
import { numberField, runForagerJson, startForager, type ForagerResult } from './forager-process.ts';
import { callsBetween, redisSnapshot } from './redis-figures.ts';
import { measured, type RunContext, type RunResult } from './run-result.ts';
import { notableLines } from './worker-log.ts';

export interface ClusterRunOptions {
  /** One core per worker (undefined: not pinned). */
  cores: (number | undefined)[];
  /** Redis's core, or undefined to let it float. */
  redisCore: number | undefined;
  /** Unique within the bench: names the cluster and its directories. */
  tag: string;
  /** Reads the run's shards and merged collection before they are removed (shard-reading.ts). */
  readShards?: (dir: string, merged: string) => Promise<void>;
}

function workerFigures(result: ForagerResult, label: string): { pages: number; cpuSeconds: number; peakRssBytes: number; shardsOpened: number; shardSeconds: number } {
  const json = result.json;
  if (json === undefined) throw new ForagerError('BENCH_CHILD', `${label}: printed no JSON line at exit (is this a worker with --json?)`, { stderrTail: result.stderr.slice(-4000) });
  if (json.end !== 'finished') throw new ForagerError('BENCH_CHILD', `${label}: ended "${String(json.end)}", not with the crawl finished`, { output: json, stderrTail: result.stderr.slice(-4000) });
  return {
    pages: numberField(json, 'pagesStored', label),
    cpuSeconds: (numberField(json, 'cpuUserMs', label) + numberField(json, 'cpuSystemMs', label)) / 1000,
    // exit-usage.ts's VmHWM: the JSON's peakRssBytes comes from maxRSS, which counts the bench's own RSS at the fork.
    peakRssBytes: result.usage.peakRssBytes,
    shardsOpened: numberField(json, 'shardsOpened', label),
    shardSeconds: (numberField(json, 'shardOpenMs', label) + numberField(json, 'shardCloseMs', label)) / 1000,
  };
}

export async function runCluster(context: RunContext, options: ClusterRunOptions): Promise<RunResult> {
  const workers = options.cores.length;
  const label = `${workers} worker${workers === 1 ? '' : 's'}`;
  const name = `bench-${options.tag}`;
  const dir = join(context.tmp, `shards-${options.tag}`);
  const out = join(context.tmp, `merged-${options.tag}.forager`);
  const redis = await startRedisServer();
  const redisPid = redis.pid();
  // All of Redis's threads (-a), so that its background ones stay off the workers' cores too.
  if (options.redisCore !== undefined && redisPid !== undefined) execFileSync('taskset', ['-a', '-p', '-c', String(options.redisCore), String(redisPid)], { stdio: 'ignore' });
  const client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  const forager = { bin: context.foragerBin, timeoutMs: context.timeoutMs, usageDir: context.usageDir };
  try {
    // create prints a sentence, not JSON: it only has to succeed.
    await startForager(['cluster', 'create', '--redis', redis.url, '--name', name, ...crawlFlags(context.shape)], { ...forager, label: 'cluster create' }).done;
    const run = await measured(context, async () => {
      const before = await redisSnapshot(client);
      const sampler = new BacklogSampler(client, name, context.sampleMs);
      const running = options.cores.map((core, i) =>
        startForager(['worker', '--redis', redis.url, '--name', name, '--dir', dir, '--json'], { ...forager, core, label: `worker ${i + 1} of ${workers}` }),
      );
      let results: ForagerResult[];
      try {
        results = await Promise.all(running.map((r) => r.done));
      } catch (error) {
        for (const r of running) r.kill();
        throw error;
      } finally {
        await sampler.stop();
      }
      const after = await redisSnapshot(client);
      const errors = await client.lrange(new ClusterKeys(name).errors, 0, 49);
      const figures = results.map((r, i) => workerFigures(r, `worker ${i + 1} of ${workers}`));
      const own = new Map(sampler.ownCalls);
      // The first snapshot's INFO is counted after it answered; the last one's is not yet.
      own.set('info', (own.get('info') ?? 0) + 1);
      const ownTotal = [...own.values()].reduce((a, b) => a + b, 0);
      return {
        label,
        workers,
        cores: options.cores.filter((c): c is number => c !== undefined),
        pages: figures.reduce((n, f) => n + f.pages, 0),
        wallSeconds: (Math.max(...results.map((r) => r.endedAt)) - Math.min(...results.map((r) => r.startedAt))) / 1000,
        from: Math.min(...results.map((r) => r.startedAt)),
        to: Math.max(...results.map((r) => r.endedAt)),
        crawlerCpuSeconds: figures.reduce((n, f) => n + f.cpuSeconds, 0),
        peakRssBytes: figures.map((f) => f.peakRssBytes),
        cluster: {
          redisCpuSeconds: after.cpuSeconds - before.cpuSeconds,
          redisCommands: after.commands - before.commands - ownTotal,
          redisUsedMemoryPeak: after.usedMemoryPeak,
          redisCalls: callsBetween(before, after, own),
          backlog: sampler.samples,
          pagesPerWorker: figures.map((f) => f.pages),
          shardsOpened: figures.reduce((n, f) => n + f.shardsOpened, 0),
          shardSeconds: figures.reduce((n, f) => n + f.shardSeconds, 0),
          problems: [...notableLines(results.map((r) => r.stderr)), ...errors.map((e) => `cluster error list: ${e}`)],
          mergeSeconds: 0,
          mergedPages: 0,
        },
      };
    });
    const merged = await runForagerJson(['merge', '--dir', dir, '--db', out, '--json'], { ...forager, label: 'forager merge' });
    await options.readShards?.(dir, out);
    const cluster = run.cluster as NonNullable<RunResult['cluster']>;
    return {
      ...run,
      pages: numberField(merged.json, 'pages', 'forager merge'),
      cluster: { ...cluster, mergedPages: numberField(merged.json, 'pages', 'forager merge'), mergeSeconds: merged.wallMs / 1000 },
    };
  } finally {
    client.disconnect();
    await redis.close();
    // A full bench makes a dozen of these: they go as soon as they are counted.
    rmSync(dir, { recursive: true, force: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(out + suffix, { force: true });
  }
}
