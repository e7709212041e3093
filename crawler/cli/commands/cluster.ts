import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../cluster/cluster-keys.ts';
import { checkClusterName, createCluster, DEFAULT_LEASE_MS, loadCluster, setClusterState } from '../../cluster/cluster-definition.ts';
import { putClusterLabel } from '../../cluster/cluster-labels.ts';
import { formatClusterStatus, readClusterStatus } from '../../cluster/cluster-status.ts';
import { ClusterWorker } from '../../cluster/cluster-worker.ts';
import { connectForCommand, connectForWorker } from '../../cluster/redis-connection.ts';
import { UsageError } from '../../errors.ts';
import { DEFAULT_SETTINGS } from '../../protocol/settings.ts';
import { canonicalSeeds } from '../../settings.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';
import { applyFlags, CRAWL_OPTIONS, stringFlag, stringsFlag, type CrawlFlags } from '../crawl-options.ts';

const CONNECTION = {
  redis: { type: 'string' },
  name: { type: 'string' },
} as const;

export const CLUSTER_USAGE = `cluster create --redis URL --name NAME --query TEXT --seed URL… [every crawl option] [--lease-ms N]
  cluster status|pause|resume|stop|delete --redis URL --name NAME [--json]
  cluster label --redis URL --name NAME --url URL --relevant|--irrelevant|--clear
  worker  --redis URL --name NAME --dir DATA [--home NAME] [--parse-workers N] [--json]   one worker of a cluster's crawl`;

async function withRedis<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connectForCommand(url);
  try {
    return await work(redis);
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
  const seeds = canonicalSeeds(stringsFlag(values, 'seed') ?? []);
  if (seeds.length === 0) throw new UsageError('cluster create: at least one --seed URL is required', { option: 'seed' });
  const leaseMs = integerOption('lease-ms', stringFlag(values, 'lease-ms')) ?? DEFAULT_LEASE_MS;
  if (leaseMs < 500 || leaseMs > 600_000) throw new UsageError(`--lease-ms must be between 500 and 600000, got ${leaseMs}`, { option: 'lease-ms' });
  const settings = applyFlags({ ...DEFAULT_SETTINGS, query, seeds }, values);
  // Shards would revisit, but merge does not carry versions yet, and a cluster that never idles never finishes.
  if (settings.revisitAfter !== '') throw new UsageError('cluster create: a cluster does not revisit pages yet; refresh the merged collection with forager refresh', { option: 'revisit-after' });
  await withRedis(redisUrl, (redis) => createCluster(redis, name, settings, leaseMs));
  process.stdout.write(`cluster "${name}" created: ${seeds.length} seed(s), budget ${settings.maxPages} pages. Start workers with: forager worker --redis ${redisUrl} --name ${name} --dir DATA\n`);
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
  const stored = await withRedis(redisUrl, async (redis) => {
    await loadCluster(redis, name);
    return putClusterLabel(redis, new ClusterKeys(name), url, label);
  });
  process.stdout.write(`${stored}: ${label === 'clear' ? 'label cleared' : `labelled ${label === 'relevant' ? 'relevant' : 'not relevant'}`}; the worker that owns it applies it within a second\n`);
  return 0;
}

async function controlCommand(verb: 'status' | 'pause' | 'resume' | 'stop' | 'delete', argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(`cluster ${verb}`, argv, { ...CONNECTION, json: { type: 'boolean' } });
  const redisUrl = requireOption(`cluster ${verb}`, 'redis', values.redis);
  const name = checkClusterName(requireOption(`cluster ${verb}`, 'name', values.name));
  return withRedis(redisUrl, async (redis) => {
    const keys = new ClusterKeys(name);
    if (verb === 'status') {
      const status = await readClusterStatus(redis, name);
      process.stdout.write(values.json === true ? `${JSON.stringify(status)}\n` : formatClusterStatus(status));
      return 0;
    }
    // The cluster must exist: a typo in --name is an error, not a new key.
    await readClusterStatus(redis, name);
    if (verb === 'delete') {
      let removed = 0;
      for await (const batch of redis.scanStream({ match: keys.pattern, count: 500 }) as AsyncIterable<string[]>) {
        if (batch.length > 0) removed += await redis.del(...batch);
      }
      process.stdout.write(`cluster "${name}" deleted from Redis (${removed} keys); the shards in the workers' --dir stay\n`);
      return 0;
    }
    const state = await setClusterState(redis, keys, verb === 'pause' ? 'paused' : verb === 'resume' ? 'running' : 'stopped');
    process.stdout.write(`cluster "${name}" is ${state}; every worker follows within a second\n`);
    return 0;
  });
}

/** `forager worker`: one worker of a cluster's crawl, until the crawl finishes or stops, or a signal. */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('worker', argv, { ...CONNECTION, dir: { type: 'string' }, home: { type: 'string' }, 'parse-workers': { type: 'string' }, json: { type: 'boolean' } });
  const redisUrl = requireOption('worker', 'redis', values.redis);
  const name = checkClusterName(requireOption('worker', 'name', values.name));
  const dir = requireOption('worker', 'dir', values.dir);
  const parseWorkers = integerOption('parse-workers', values['parse-workers']);
  const log = (line: string): void => void process.stderr.write(`forager worker: ${line}\n`);
  const redis = connectForWorker(redisUrl, {
    lost: (why) => log(`Redis at ${redisUrl} is unreachable (${why}); waiting for it, nothing stored is lost`),
    back: () => log(`Redis at ${redisUrl} answers again`),
  });
  const worker = new ClusterWorker({ redis, name, dir, log, ...(values.home === undefined ? {} : { home: values.home }), ...(parseWorkers === undefined ? {} : { parseWorkers }) });
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    worker.leave(signals > 1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const end = await worker.run();
    log(end === 'finished' ? 'the crawl is finished' : end === 'stopped' ? 'the crawl was stopped' : 'left the crawl');
    if (values.json === true) {
      const usage = process.resourceUsage();
      process.stdout.write(`${JSON.stringify({ end, worker: worker.id, pagesStored: worker.pagesStored, cpuUserMs: usage.userCPUTime / 1000, cpuSystemMs: usage.systemCPUTime / 1000, peakRssBytes: usage.maxRSS * 1024, shardsOpened: worker.shardTime.opened, shardOpenMs: Math.round(worker.shardTime.openMs), shardCloseMs: Math.round(worker.shardTime.closeMs) })}\n`);
    }
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // Closing it ourselves is no outage.
    redis.removeAllListeners('close');
    redis.disconnect();
  }
}
