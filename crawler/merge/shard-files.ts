import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shardPartition } from '../store/shard-names.ts';
import { MergeError } from './merge-error.ts';

/** One partition's shard in a cluster's data directory. */
export interface ShardFile {
  partition: number;
  /** The file name (shard-007.forager), which every message about the shard uses. */
  name: string;
  path: string;
}

/**
 * The shards in `dir`, by partition number. Only partitions that had work have a file, so
 * gaps are normal; the -wal and -shm files beside a shard, and anything else, are not shards.
 */
export function findShards(dir: string): ShardFile[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new MergeError('no-dir', `${dir} is not a directory`, { dir });
    names = readdirSync(dir);
  } catch (err) {
    if (err instanceof MergeError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : `cannot be read (${(err as Error).message})`;
    throw new MergeError('no-dir', `the data directory ${dir} ${why}`, { dir, errno: code }, { cause: err });
  }
  const shards: ShardFile[] = [];
  for (const name of names) {
    const partition = shardPartition(name);
    if (partition === undefined) continue;
    shards.push({ partition, name, path: join(dir, name) });
  }
  if (shards.length === 0) throw new MergeError('no-shards', `${dir} holds no shards (files named shard-000.forager to shard-255.forager)`, { dir });
  return shards.sort((a, b) => a.partition - b.partition);
}
