import { mkdirSync, statSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../cluster/cluster-keys.ts';
import { checkClusterName, createCluster, DEFAULT_LEASE_MS, deleteCluster, loadCluster, MAX_LEASE_MS, MIN_LEASE_MS, setClusterState } from '../../cluster/cluster-definition.ts';
import { putClusterLabel } from '../../cluster/cluster-labels.ts';
import { formatClusterStatus, readClusterStatus } from '../../cluster/cluster-status.ts';
import { ClusterWorker, type WorkerEnd } from '../../cluster/cluster-worker.ts';
import { connectForCommand, connectForWorker, isRedisFailure, redactRedis, redisFailure, redisHost, type WorkerConnection } from '../../cluster/redis-connection.ts';
import { ClusterError, UsageError } from '../../errors.ts';
import { DEFAULT_SETTINGS, readDuration } from '../../protocol/settings.ts';
import { readCookiesTxt } from '../../net/cookies-txt.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';
import { applyFlags, CRAWL_OPTIONS, stringFlag, type CrawlFlags } from '../crawl-options.ts';
import { seedsOfFlags } from '../seeds-file.ts';
import { writeErr, writeOut } from '../terminal-text.ts';

const CONNECTION = {
  redis: { type: 'string' },
  name: { type: 'string' },
} as const;

/** Parse threads a worker may start: more than a machine has cores only contend for them. */
const MAX_PARSE_WORKERS = 64;

export const CLUSTER_USAGE = `cluster create --redis URL --name NAME --query TEXT --seed URL… [every crawl option] [--lease-ms ${MIN_LEASE_MS}-${MAX_LEASE_MS}]
  cluster status|pause|resume|stop|delete --redis URL --name NAME [--json]
  cluster label --redis URL --name NAME --url URL --relevant|--irrelevant|--clear
  worker  --redis URL --name NAME --dir DATA [--home NAME] [--parse-workers 0-${MAX_PARSE_WORKERS}] [--dormant-after DURATION] [--json]   one worker of a cluster's crawl
          (a shard idle for --dormant-after, default 2m, is closed until links or revisits come for it);
          SIGINT or SIGTERM: it leaves (exit 0; exit 1 when Redis could not hear it leave), a second one cancels requests in flight and drops Redis`;

/** Output of a cluster command: control characters from Redis made harmless, and never the Redis password. */
export function say(redisUrl: string, text: string): void {
  writeOut(redactRedis(text, redisUrl));
}

/** Runs `work` on a command's connection; what Redis fails is a ClusterError in words, not a stack. */
export async function withRedis<T>(url: string, doing: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connectForCommand(url);
  try {
    return await work(redis);
  } catch (err) {
    throw isRedisFailure(err) ? redisFailure(url, doing, err) : err;
  } finally {
    redis.disconnect();
  }
}

/** `forager cluster <verb>`: define a crawl on Redis, watch it, pause, resume or stop every worker. */
export async function clusterCommand(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  switch (verb) {
    case 'create':
      return createCommand(rest);
    case 'label':
      return labelCommand(rest);
    case 'status':
    case 'pause':
    case 'resume':
    case 'stop':
    case 'delete':
      return controlCommand(verb, rest);
    default:
      throw new UsageError(`cluster: say what to do: create, status, label, pause, resume, stop or delete (got ${verb === undefined ? 'nothing' : `"${verb}"`})`, { verb });
  }
}

async function createCommand(argv: string[]): Promise<number> {
  const values: CrawlFlags = parseCommandArgs('cluster create', argv, { ...CRAWL_OPTIONS, ...CONNECTION, 'lease-ms': { type: 'string' } }).values;
  if (values.db !== undefined) throw new UsageError('cluster create: a cluster has no --db; each worker keeps its shards in its --dir', { option: 'db' });
  const redisUrl = requireOption('cluster create', 'redis', stringFlag(values, 'redis'));
  const name = checkClusterName(requireOption('cluster create', 'name', stringFlag(values, 'name')));
  const query = requireOption('cluster create', 'query', stringFlag(values, 'query'));
  const seeds = seedsOfFlags(values);
  if (seeds.length === 0) throw new UsageError('cluster create: at least one --seed URL (or a --seeds-file) is required', { option: 'seed' });
  const leaseMs = integerOption('lease-ms', stringFlag(values, 'lease-ms'), { min: MIN_LEASE_MS, max: MAX_LEASE_MS }) ?? DEFAULT_LEASE_MS;
  const settings = applyFlags({ ...DEFAULT_SETTINGS, query, seeds }, values);
  const cookiesFile = stringFlag(values, 'cookies');
  const cookies = cookiesFile === undefined ? [] : readCookiesTxt(cookiesFile);
  await withRedis(redisUrl, 'creating the cluster', (redis) => createCluster(redis, name, settings, leaseMs, cookies));
  // say() masks the URL's password.
  const revisits = settings.revisitAfter === '' ? '' : `, each page revisited ${settings.revisitAfter} after its last check (it runs until stopped)`;
  say(redisUrl, `cluster "${name}" created: ${seeds.length} seed(s), budget ${settings.maxPages} pages${revisits}. Start workers with: forager worker --redis ${redisUrl} --name ${name} --dir DATA\n`);
  return 0;
}

async function labelCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('cluster label', argv, { ...CONNECTION, url: { type: 'string' }, relevant: { type: 'boolean' }, irrelevant: { type: 'boolean' }, clear: { type: 'boolean' } });
  const redisUrl = requireOption('cluster label', 'redis', values.redis);
  const name = checkClusterName(requireOption('cluster label', 'name', values.name));
  const url = requireOption('cluster label', 'url', values.url);
  const chosen = [values.relevant, values.irrelevant, values.clear].filter((v) => v === true).length;
  if (chosen !== 1) throw new UsageError('cluster label: give exactly one of --relevant, --irrelevant and --clear', { command: 'cluster label' });
  const label = values.clear === true ? 'clear' : values.relevant === true ? 'relevant' : 'irrelevant';
  const stored = await withRedis(redisUrl, 'labelling the page', async (redis) => {
    await loadCluster(redis, name);
    return putClusterLabel(redis, new ClusterKeys(name), url, label);
  });
  say(redisUrl, `${stored}: ${label === 'clear' ? 'label cleared' : `labelled ${label === 'relevant' ? 'relevant' : 'not relevant'}`}; the worker that owns it applies it within a second\n`);
  return 0;
}

type ControlVerb = 'status' | 'pause' | 'resume' | 'stop' | 'delete';

async function controlCommand(verb: ControlVerb, argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(`cluster ${verb}`, argv, { ...CONNECTION, json: { type: 'boolean' } });
  const redisUrl = requireOption(`cluster ${verb}`, 'redis', values.redis);
  const name = checkClusterName(requireOption(`cluster ${verb}`, 'name', values.name));
  const text = await withRedis(redisUrl, `running cluster ${verb}`, (redis) => control(redis, verb, name, values.json === true));
  say(redisUrl, text);
  return 0;
}

/** What one control verb does, and the text it answers. */
async function control(redis: Redis, verb: ControlVerb, name: string, json: boolean): Promise<string> {
  if (verb === 'status') {
    const status = await readClusterStatus(redis, name);
    return json ? `${JSON.stringify(status)}\n` : formatClusterStatus(status);
  }
  // Whatever is there goes, a damaged definition included: delete is how a damaged cluster is removed.
  if (verb === 'delete') return `cluster "${name}" deleted from Redis (${await deleteCluster(redis, name)} keys); the shards in the workers' --dir stay\n`;
  // The cluster must exist: a typo in --name is an error, not a new key.
  await loadCluster(redis, name);
  const state = await setClusterState(redis, new ClusterKeys(name), verb === 'pause' ? 'paused' : verb === 'resume' ? 'running' : 'stopped');
  return `cluster "${name}" is ${state}; every worker follows within a second\n`;
}

/** `forager worker`: one worker of a cluster's crawl, until the crawl finishes or stops, or a signal. */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('worker', argv, { ...CONNECTION, dir: { type: 'string' }, home: { type: 'string' }, 'parse-workers': { type: 'string' }, 'dormant-after': { type: 'string' }, json: { type: 'boolean' } });
  const redisUrl = requireOption('worker', 'redis', values.redis);
  const name = checkClusterName(requireOption('worker', 'name', values.name));
  const dir = requireOption('worker', 'dir', values.dir);
  const parseWorkers = integerOption('parse-workers', values['parse-workers'], { min: 0, max: MAX_PARSE_WORKERS });
  const dormantAfterMs = dormantAfterOption(values['dormant-after']);
  prepareDataDir(dir);
  const log = workerLog(redisUrl);
  const host = redisHost(redisUrl);
  const connection = connectForWorker(redisUrl, {
    lost: (why) => log(`Redis at ${host} is unreachable (${why}); waiting for it, nothing stored is lost`),
    back: () => log(`Redis at ${host} answers again`),
  });
  const worker = new ClusterWorker({ redis: connection.redis, name, dir, log, ...(values.home === undefined ? {} : { home: values.home }), ...(parseWorkers === undefined ? {} : { parseWorkers }), ...(dormantAfterMs === undefined ? {} : { dormantAfterMs }) });
  const signals = leaveOnSignals(worker, connection, log);
  try {
    const end = await worker.run().catch((err: unknown) => {
      throw workerFailure(err, redisUrl, signals.received());
    });
    if (connection.ended) {
      throw new ClusterError(`left the crawl without telling Redis at ${host}: the partitions this worker held pass to others when their leases expire`, { redis: host });
    }
    log(end === 'finished' ? 'the crawl is finished' : end === 'stopped' ? 'the crawl was stopped' : 'left the crawl');
    if (values.json === true) writeOut(`${JSON.stringify(workerSummary(worker, end))}\n`);
    return 0;
  } finally {
    signals.dispose();
    connection.close();
  }
}

/** `worker --dormant-after`: a duration of at least a second (a shard that sleeps sooner only reopens). */
function dormantAfterOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const reading = readDuration(text);
  if (!reading.ok || reading.ms < 1000) throw new UsageError(`worker: --dormant-after must be a duration of at least 1s, such as 30s, 2m or 1h (got "${text}")`, { option: 'dormant-after' });
  return reading.ms;
}

/** The worker's --dir, made when missing: one that cannot be is an error before the worker joins. */
function prepareDataDir(dir: string): void {
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) throw new ClusterError(`--dir ${dir} is a file, not a directory`, { dir });
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new ClusterError(`cannot make the data directory --dir ${dir} (${err instanceof Error ? err.message : String(err)})`, { dir }, { cause: err });
  }
}

/** The worker's news on stderr: what it quotes from Redis or ioredis shown harmless, and never the Redis password. */
function workerLog(redisUrl: string): (line: string) => void {
  return (line) => writeErr(`forager worker: ${redactRedis(line, redisUrl)}\n`);
}

/** Why the worker could not run: what Redis failed is said in one line, not as a stack. */
function workerFailure(err: unknown, redisUrl: string, signal: NodeJS.Signals | undefined): unknown {
  if (!isRedisFailure(err)) return err;
  // The signal gave up on Redis: that is why its command failed.
  if (signal !== undefined) return new ClusterError(`stopped by ${signal} while waiting for Redis at ${redisHost(redisUrl)}`, { redis: redisHost(redisUrl) }, { cause: err });
  return redisFailure(redisUrl, 'joining the cluster', err);
}

/**
 * SIGINT and SIGTERM make the worker leave. From the first, an unreachable Redis is waited for
 * no longer (it could be waited for forever); a second cancels requests in flight and drops the
 * connection, whatever Redis is doing, so that no signal is ignored.
 */
function leaveOnSignals(worker: ClusterWorker, connection: WorkerConnection, log: (line: string) => void): { received(): NodeJS.Signals | undefined; dispose(): void } {
  let first: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (first === undefined) {
      first = signal;
      log(`${signal}: leaving the crawl (a second signal cancels requests in flight)`);
      worker.leave(false);
      connection.stopWaiting();
      return;
    }
    log(`${signal}: cancelling requests in flight and dropping Redis`);
    worker.leave(true);
    connection.cut();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    received: () => first,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** What `worker --json` prints at the end: the benchmarks read it. */
function workerSummary(worker: ClusterWorker, end: WorkerEnd): Record<string, unknown> {
  const usage = process.resourceUsage();
  return {
    end,
    worker: worker.id,
    pagesStored: worker.pagesStored,
    cpuUserMs: usage.userCPUTime / 1000,
    cpuSystemMs: usage.systemCPUTime / 1000,
    peakRssBytes: usage.maxRSS * 1024,
    shardsOpened: worker.shardTime.opened,
    shardOpenMs: Math.round(worker.shardTime.openMs),
    shardCloseMs: Math.round(worker.shardTime.closeMs),
  };
}
