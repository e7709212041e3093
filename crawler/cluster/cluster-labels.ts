import type { Redis } from 'ioredis';
import { ClusterError } from '../errors.ts';
import type { Label } from '../store/label-store.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import type { ClusterKeys } from './cluster-keys.ts';

/*
 * A user's labels on a cluster's pages. They are kept in Redis by canonical URL (a hash),
 * with a version that rises on every change; each worker reads them when the version moves
 * and applies those of its partitions in their shards, as `forager label` does in a
 * collection: the page's verdict becomes the label and the shard's ordering learns from it.
 */

export type ClusterLabel = Label | 'clear';

export async function putClusterLabel(redis: Redis, keys: ClusterKeys, rawUrl: string, label: ClusterLabel): Promise<string> {
  const canon = tryCanonicalize(rawUrl, rawUrl);
  if (!canon.ok) throw new ClusterError(`"${rawUrl}" is not a URL Forager can label`, { url: rawUrl });
  await redis.pipeline().hset(keys.labels, canon.url, label).incr(keys.labelsVersion).exec();
  return canon.url;
}

/** The labels, when their version differs from `seen`. */
export async function changedLabels(redis: Redis, keys: ClusterKeys, seen: string | null): Promise<{ version: string; labels: Map<string, ClusterLabel> } | undefined> {
  const version = await redis.get(keys.labelsVersion);
  if (version === null || version === seen) return undefined;
  const all = await redis.hgetall(keys.labels);
  return { version, labels: new Map(Object.entries(all) as [string, ClusterLabel][]) };
}
