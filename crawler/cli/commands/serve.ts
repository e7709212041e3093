import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkClusterName } from '../../cluster/cluster-definition.ts';
import { isRedisUrl } from '../../cluster/redis-connection.ts';
import { UsageError } from '../../errors.ts';
import { createServeStoredPages, storedPagesFrom } from '../../serve/stored-pages.ts';
import { startServer, type StoredPagesFactory } from '../../serve/server.ts';
import type { ServedApi } from '../../service/served-api.ts';
import { ShardService } from '../../service/shard-service.ts';
import type { ClusterTarget } from '../../service/cluster-watch.ts';
import { ForagerService } from '../../service/service.ts';
import { integerOption, parseCommandArgs } from '../args.ts';
import { writeOut } from '../terminal-text.ts';
import { redactUrl } from '../../url/redact.ts';

export const SERVE_USAGE = `serve   [--dir DIR | --db FILE | --shards DIR] [--port N] [--redis URL --cluster NAME]
          the app in a browser, on 127.0.0.1 (default --dir: ~/.local/share/forager/collections);
          with --redis and --cluster it also shows that crawl cluster's live status (read-only);
          --shards DIR shows a crawl cluster's shards (forager worker --dir DIR) as one
          collection, read-only and without a merge, while the workers may still write them
          (with --redis and --cluster, beside that cluster's live status)`;

/** Where collections live unless --dir or --db says otherwise (XDG data directory). */
export function defaultCollectionsDir(): string {
  const data = process.env.XDG_DATA_HOME !== undefined && process.env.XDG_DATA_HOME !== '' ? process.env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(data, 'forager', 'collections');
}

/**
 * The cluster to watch, checked before serving: both flags or neither. Redis itself is not
 * asked here: it may come up later, and the Cluster screen says when it cannot be reached.
 */
function clusterTarget(redis: string | undefined, cluster: string | undefined): ClusterTarget | undefined {
  if (redis === undefined && cluster === undefined) return undefined;
  if (redis === undefined || cluster === undefined) throw new UsageError('serve: give --redis URL and --cluster NAME together', { option: redis === undefined ? 'redis' : 'cluster' });
  if (!isRedisUrl(redis)) throw new UsageError(`--redis ${redactUrl(redis)} is not a Redis URL (expected redis://HOST:PORT)`, { option: 'redis' });
  return { redis, name: checkClusterName(cluster) };
}

/** The service to serve and its stored pages: a cluster's shards read in place, or collections. */
function served(values: { db?: string; dir?: string; shards?: string }, cluster: ClusterTarget | undefined): { service: ServedApi; storedPages: StoredPagesFactory } {
  if (values.shards !== undefined) {
    const shards = new ShardService(values.shards, cluster);
    return { service: shards, storedPages: storedPagesFrom(shards.pageSource()) };
  }
  const service = new ForagerService({
    ...(values.db !== undefined ? { db: values.db } : { dir: values.dir ?? defaultCollectionsDir() }),
    ...(cluster === undefined ? {} : { cluster }),
  });
  return { service, storedPages: createServeStoredPages(service) };
}

/** `forager serve`: the desktop UI in a browser, over loopback, until SIGINT or SIGTERM. */
export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('serve', argv, {
    db: { type: 'string' },
    dir: { type: 'string' },
    port: { type: 'string' },
    redis: { type: 'string' },
    cluster: { type: 'string' },
    shards: { type: 'string' },
  });
  const given = (['db', 'dir', 'shards'] as const).filter((name) => values[name] !== undefined).map((name) => `--${name} ${name === 'db' ? 'FILE' : 'DIR'}`);
  if (given.length > 1) throw new UsageError(`serve: give one of --dir DIR, --db FILE or --shards DIR, not ${given.join(' and ')}`, {});
  const port = integerOption('port', values.port, { min: 0, max: 65_535 }) ?? 0;
  const cluster = clusterTarget(values.redis, values.cluster);
  const { service, storedPages } = served(values, cluster);
  const running = await startServer({ service, storedPages, port }).catch(async (err: unknown) => {
    await service.close();
    throw new UsageError(`cannot listen on 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`, { port });
  });
  const watching = cluster === undefined ? '' : `Showing crawl cluster "${cluster.name}" (Cluster screen)\n`;
  writeOut(`Forager is serving ${(await service.info()).location}\n${watching}Open ${running.url}\nPress Ctrl+C to stop.\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await service.close();
  await running.close();
  return 0;
}
