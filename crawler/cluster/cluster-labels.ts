import type { Redis } from 'ioredis';
import { ClusterError } from '../errors.ts';
import type { Label } from '../store/label-store.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { foundBy, isKeyDamage, throwDamage, type DamageReport } from './redis-damage.ts';

/*
 * A user's labels on a cluster's pages. They are kept in Redis by canonical URL (a hash),
 * with a version that rises on every change; each worker reads them when the version moves
 * and applies those of its partitions in their shards, as `forager label` does in a
 * collection: the page's verdict becomes the label and the shard's ordering learns from it.
 * A worker takes only what putClusterLabel writes: a canonical URL and one of the labels.
 */

const VALUES: readonly string[] = ['relevant', 'irrelevant', 'clear'] satisfies ClusterLabel[];

/** The labels as read: those a worker may apply, and how many entries were not labels. */
export interface ReadLabels {
  version: string;
  labels: Map<string, ClusterLabel>;
  dropped: number;
  /** What the first entry dropped was. */
  problem?: string;
}

export type ClusterLabel = Label | 'clear';

export async function putClusterLabel(redis: Redis, keys: ClusterKeys, rawUrl: string, label: ClusterLabel): Promise<string> {
  const canon = tryCanonicalize(rawUrl, rawUrl);
  if (!canon.ok) throw new ClusterError(`"${rawUrl}" is not a URL Forager can label`, { url: rawUrl });
  await redis.pipeline().hset(keys.labels, canon.url, label).incr(keys.labelsVersion).exec();
  return canon.url;
}

/**
 * The labels, when their version differs from `seen`. A damaged key is told to `onDamage`
 * (default: a ClusterError) and reads as no change: the labels known so far stay.
 */
export async function changedLabels(redis: Redis, keys: ClusterKeys, seen: string | null, onDamage: DamageReport = throwDamage(keys.name)): Promise<ReadLabels | undefined> {
  const read = async <T>(key: string, expected: string, command: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await command();
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      const repair = `delete both (redis-cli DEL ${keys.labels} ${keys.labelsVersion}) and label the pages again`;
      onDamage({ key, expected, found: foundBy(err), meanwhile: 'labels given since are not applied', repair });
      return undefined;
    }
  };
  const version = await read(keys.labelsVersion, 'the labels\' version, a number', () => redis.get(keys.labelsVersion));
  if (version === undefined || version === null || version === seen) return undefined;
  const all = await read(keys.labels, 'the labels, a hash of URL to label', () => redis.hgetall(keys.labels));
  return all === undefined ? undefined : { version, ...checkedLabels(all) };
}

function checkedLabels(all: Record<string, string>): Omit<ReadLabels, 'version'> {
  const labels = new Map<string, ClusterLabel>();
  let dropped = 0;
  let problem: string | undefined;
  for (const [url, label] of Object.entries(all)) {
    const canon = tryCanonicalize(url, url);
    if (canon.ok && canon.url === url && VALUES.includes(label)) {
      labels.set(url, label as ClusterLabel);
      continue;
    }
    dropped++;
    problem ??= `${JSON.stringify(url.slice(0, 80))} → ${JSON.stringify(label.slice(0, 40))} is not a canonical URL with relevant, irrelevant or clear`;
  }
  return { labels, dropped, ...(problem === undefined ? {} : { problem }) };
}
