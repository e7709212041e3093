/*
 * A crawl cluster's data directory holds one collection per partition that had work, named by
 * its partition number. The workers write these names and `forager merge` reads them back, so
 * the count and the name live here, below both.
 */

/** A cluster's fixed number of virtual partitions; a URL's partition is in cluster/partition.ts. */
export const PARTITIONS = 256;

const SHARD_NAME = /^shard-(\d{3})\.forager$/;

/** A shard's file name in the crawl's data directory. */
export function shardFileName(partition: number): string {
  return `shard-${String(partition).padStart(3, '0')}.forager`;
}

/** The partition a file name is the shard of, or undefined for any other file (a shard's -wal and -shm files, or a number past the last partition). */
export function shardPartition(name: string): number | undefined {
  const match = SHARD_NAME.exec(name);
  if (match === null) return undefined;
  const partition = Number(match[1]);
  return partition < PARTITIONS ? partition : undefined;
}
