import { finishRefresh, startRefresh } from '../../engine/refresh-run.ts';
import { RefreshPolicy } from '../../engine/run-policy.ts';
import { UsageError } from '../../errors.ts';
import { validateSettings } from '../../settings.ts';
import { openCollection } from '../../store/database.ts';
import { loadSettings } from '../../store/settings-store.ts';
import { withWriterLock } from '../../store/writer-lock.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';
import { runEngine } from './crawl.ts';
import { say, withRedis } from './cluster.ts';
import { ClusterKeys } from '../../cluster/cluster-keys.ts';
import { checkClusterName, clusterState, loadCluster } from '../../cluster/cluster-definition.ts';
import { requestRefresh } from '../../cluster/cluster-refresh.ts';

const REFRESH_OPTIONS = {
  db: { type: 'string' },
  cluster: { type: 'string' },
  redis: { type: 'string' },
  'max-pages': { type: 'string' },
  host: { type: 'string', multiple: true },
  'allow-private': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export const REFRESH_USAGE = `refresh --db FILE [--max-pages N] [--host HOST]… [--allow-private] [--json]
  refresh --cluster NAME --redis URL [--max-pages N] [--json]   (every shard of a cluster, one budget for all)`;

/** New pages a refresh may fetch besides its revisits, by default: a tenth as many, and at least this many (as refresh-run.ts). */
const MIN_NEW_PAGES = 50;

/**
 * `forager refresh`: revisits a collection's stored pages with conditional requests, most
 * likely changed and most relevant first, storing new versions, marking pages gone, and
 * fetching the new pages changed ones link to. A stopped or killed refresh goes on where it was.
 */
export async function refreshCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('refresh', argv, REFRESH_OPTIONS);
  // The app's refresh takes the same range.
  const maxFetches = integerOption('max-pages', values['max-pages'], { min: 1, max: 100_000_000 });
  if (values.cluster !== undefined) return clusterRefresh(values, maxFetches);
  if (values.redis !== undefined) throw new UsageError('refresh: --redis goes with --cluster NAME (a cluster\'s refresh); a collection is refreshed with --db FILE', { option: 'redis' });
  const dbPath = requireOption('refresh', 'db', values.db);
  const writer = 'forager refresh (command line)';
  // The lock first: a refused refresh must not leave its start behind for the next one to "continue".
  return withWriterLock(dbPath, writer, async () => {
    const db = openCollection(dbPath, { create: false });
    try {
      const stored = loadSettings(db);
      if (stored === undefined) throw new UsageError(`${dbPath} holds no crawl to refresh; start one with forager crawl`, { path: dbPath });
      const settings = validateSettings({ ...stored, allowPrivate: values['allow-private'] ?? stored.allowPrivate });
      const refresh = startRefresh(db, { ...(maxFetches === undefined ? {} : { maxFetches }), ...(values.host === undefined ? {} : { hosts: values.host }) });
      if (refresh.resumed && values.json !== true) process.stderr.write(`forager: continuing the refresh begun ${new Date(refresh.since).toISOString()}\n`);
      return await runEngine(db, dbPath, settings, values.json ?? false, { policy: new RefreshPolicy(refresh, { locksCollection: false }), writer }, (outcome) => finishRefresh(db, outcome));
    } finally {
      db.close();
    }
  });
}

/**
 * `forager refresh --cluster NAME`: asks the cluster's workers to refresh every shard (see
 * cluster/cluster-refresh.ts), and returns at once; `cluster status` shows how far it came.
 * By default the budget is every stored page once and a tenth as many new pages, as a
 * collection's refresh. A finished crawl is set running again: its workers, started again,
 * apply it.
 */
async function clusterRefresh(values: { cluster?: string; redis?: string; db?: string; host?: string[]; 'allow-private'?: boolean; json?: boolean }, maxFetches: number | undefined): Promise<number> {
  if (values.db !== undefined) throw new UsageError('refresh: give --db FILE (a collection) or --cluster NAME (a cluster), not both', { option: 'db' });
  if (values.host !== undefined) throw new UsageError('refresh --cluster: --host is for a collection; a cluster refreshes every host', { option: 'host' });
  if (values['allow-private'] !== undefined) throw new UsageError('refresh --cluster: the cluster\'s settings (cluster create --allow-private) decide', { option: 'allow-private' });
  const redisUrl = requireOption('refresh --cluster', 'redis', values.redis);
  const name = checkClusterName(values.cluster as string);
  const refresh = await withRedis(redisUrl, 'asking for a refresh', async (redis) => {
    const definition = await loadCluster(redis, name);
    const keys = new ClusterKeys(name);
    const stored = Number((await redis.get(keys.pagesStored)) ?? 0);
    const pages = Number.isSafeInteger(stored) && stored > 0 ? stored : 0;
    const budget = maxFetches ?? pages + Math.max(MIN_NEW_PAGES, Math.ceil(pages / 10));
    const asked = await requestRefresh(redis, keys, { since: Date.now(), maxFetches: budget });
    return { ...asked, partitions: definition.partitions, state: await clusterState(redis, keys) };
  });
  if (values.json === true) {
    say(redisUrl, `${JSON.stringify(refresh)}\n`);
    return 0;
  }
  const state = refresh.state === 'running' ? 'its workers start on it within a second' : `the cluster is ${refresh.state}: its workers start on it once it runs (forager cluster resume)`;
  say(redisUrl, `refresh ${refresh.id} of cluster "${name}" asked for: the pages of its ${refresh.partitions} partitions last checked before now, at most ${refresh.maxFetches} fetches in all; ${state}. forager cluster status shows its progress\n`);
  return 0;
}
