/*
 * Redis memory per queued cross-partition link. A fresh redis-server, a cluster defined and
 * no worker running (so nothing reads the streams): N links go through LinkStreams.send, the
 * crawler's own path, spread over the partitions, and the figure is
 * (used_memory after − used_memory before) / N.
 *
 * How many links share a stream entry decides most of it (each entry is one deflated batch
 * with its own ID and fields), and that depends on how many links one send() carries: a
 * worker sends a shard's outbox, at most 2,000 links (ShardRunner's OUTBOX_BATCH) spread over
 * up to 256 partitions, but a shard that stored only a page or two since the last tick sends
 * a handful. So the measurement is made for each send size asked for.
 *
 * Every partition's stream and consumer group exist before the first reading, as they do in
 * a running cluster (each owner makes them when it takes the partition): the figure is what
 * one more queued link costs, not the 256 streams' own few hundred bytes each, which would
 * otherwise dominate a small N. The sender's connection is closed before the second reading:
 * Redis frees a client's query buffer lazily, and a buffer left from the last pipeline is
 * not queued links.
 */
import { Redis } from 'ioredis';
import { createCluster } from '../../crawler/cluster/cluster-definition.ts';
import { ClusterKeys, LINK_GROUP } from '../../crawler/cluster/cluster-keys.ts';
import { LinkStreams } from '../../crawler/cluster/link-streams.ts';
import { partitionOf } from '../../crawler/cluster/partition.ts';
import { PARTITIONS } from '../../crawler/store/shard-names.ts';
import { DEFAULT_SETTINGS } from '../../crawler/protocol/settings.ts';
import { validateSettings } from '../../crawler/settings.ts';
import { startRedisServer } from '../../test/support/redis-server.ts';
import { realisticLinks } from './realistic-links.ts';
import { infoField } from './redis-figures.ts';

export interface LinkMemoryResult {
  links: number;
  linksPerSend: number;
  /** Stream entries made (XLEN over the partitions): links per entry is links / entries. */
  entries: number;
  partitionsUsed: number;
  bytesPerLink: number;
  meanUrlChars: number;
}

async function usedMemory(client: Redis): Promise<number> {
  return infoField(await client.info('memory'), 'used_memory');
}

export async function measureLinkMemory(count: number, linksPerSend: number): Promise<LinkMemoryResult> {
  const links = realisticLinks(count);
  const server = await startRedisServer();
  const name = `link-memory-${linksPerSend}`;
  const keys = new ClusterKeys(name);
  const reader = new Redis(server.port, '127.0.0.1');
  try {
    const settings = validateSettings({ ...DEFAULT_SETTINGS, query: 'memory per link', seeds: ['https://example.org/'] });
    await createCluster(reader, name, settings);
    const groups = reader.pipeline();
    for (let p = 0; p < PARTITIONS; p++) groups.xgroup('CREATE', keys.links(p), LINK_GROUP, '0', 'MKSTREAM');
    await groups.exec();
    // Settle Redis's own lazily freed buffers before reading.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = await usedMemory(reader);
    const sender = new Redis(server.port, '127.0.0.1');
    try {
      const streams = new LinkStreams(sender, keys);
      for (let i = 0; i < links.length; i += linksPerSend) await streams.send(links.slice(i, i + linksPerSend));
    } finally {
      await sender.quit();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await usedMemory(reader);
    const pipeline = reader.pipeline();
    for (let p = 0; p < PARTITIONS; p++) pipeline.xlen(keys.links(p));
    const lengths = ((await pipeline.exec()) ?? []).map(([, n]) => Number(n ?? 0));
    // The seed's entry was there before the first reading.
    const entries = lengths.reduce((a, b) => a + b, 0) - 1;
    return {
      links: links.length,
      linksPerSend,
      entries,
      partitionsUsed: new Set(links.map((l) => partitionOf(l.url))).size,
      bytesPerLink: (after - before) / links.length,
      meanUrlChars: links.reduce((n, l) => n + l.url.length, 0) / links.length,
    };
  } finally {
    reader.disconnect();
    await server.close();
  }
}
