import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { IncomingLink } from '../engine/engine.ts';
import { LINK_GROUP, type ClusterKeys } from './cluster-keys.ts';
import { deflateMemory } from '../memory/deflate-memory.ts';
import { partitionOf } from './partition.ts';

/*
 * Links between partitions travel on Redis Streams, one stream per partition, read by its
 * owner through one consumer group. An entry is a batch of links, deflated: a link's URL,
 * anchor and context compress well together, and Redis keeps queued links in memory. The
 * owner acknowledges a batch only after its shard committed the links, so delivery is at
 * least once; a repeat is harmless, since the shard's seen test stops it. A new owner claims
 * what the previous one read and never acknowledged.
 */

/** A link on its way to its partition: what the owner's shard admits, and the sending page's relevance when known. */
export interface SentLink extends IncomingLink {
  parentRelevance?: number;
}

/** One entry read from a partition's stream. */
export interface LinkBatch {
  partition: number;
  id: string;
  links: SentLink[];
}

type WireLink = [url: string, depth: number, anchor: string, context: string, seed: 0 | 1, relevance?: number];

export function encodeLinks(links: readonly SentLink[]): Buffer {
  const wire = links.map((l): WireLink => {
    const row: WireLink = [l.url, l.depth, l.anchor, l.context, l.isSeed ? 1 : 0];
    if (l.parentRelevance !== undefined) row.push(Math.round(l.parentRelevance * 1000) / 1000);
    return row;
  });
  // The fastest level: an entry is small, and most of what it saves comes from the first pass.
  const json = Buffer.from(JSON.stringify(wire));
  return deflateRawSync(json, { level: 1, ...deflateMemory(json.length) });
}

/** A batch as sent; a damaged entry decodes to no links (it is acknowledged and reported, never retried forever). */
export function decodeLinks(data: Buffer): SentLink[] | undefined {
  let wire: unknown;
  try {
    wire = JSON.parse(inflateRawSync(data).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(wire)) return undefined;
  const links: SentLink[] = [];
  for (const row of wire as unknown[]) {
    if (!Array.isArray(row) || typeof row[0] !== 'string' || typeof row[1] !== 'number') return undefined;
    const [url, depth, anchor, context, seed, relevance] = row as WireLink;
    links.push({ url, depth, anchor: String(anchor ?? ''), context: String(context ?? ''), isSeed: seed === 1, ...(typeof relevance === 'number' ? { parentRelevance: relevance } : {}) });
  }
  return links;
}

/** Entries of at most this many links: big enough to amortise a round trip, small enough to admit in one short transaction. */
export const LINKS_PER_ENTRY = 200;

export class LinkStreams {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;

  constructor(redis: Redis, keys: ClusterKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /**
   * Sends links to their partitions' streams (in one round trip). Returns the longest of those streams now, in entries, for the sender to slow down.
   */
  async send(links: readonly SentLink[], partitionOfLink: (url: string) => number = partitionOf): Promise<number> {
    if (links.length === 0) return 0;
    const byPartition = new Map<number, SentLink[]>();
    for (const link of links) {
      const p = partitionOfLink(link.url);
      let list = byPartition.get(p);
      if (list === undefined) byPartition.set(p, (list = []));
      list.push(link);
    }
    const pipeline = this.#redis.pipeline();
    for (const [partition, list] of byPartition) {
      for (let i = 0; i < list.length; i += LINKS_PER_ENTRY) {
        const batch = list.slice(i, i + LINKS_PER_ENTRY);
        pipeline.xadd(this.#keys.links(partition), '*', 'n', String(batch.length), 'd', encodeLinks(batch));
      }
    }
    for (const partition of byPartition.keys()) pipeline.xlen(this.#keys.links(partition));
    const replies = await execOrThrow(pipeline);
    return replies.slice(-byPartition.size).reduce((longest: number, [, length]) => Math.max(longest, Number(length)), 0);
  }

  /**
   * What a new owner does first with its partitions' streams, in one round trip: makes each
   * consumer group, claims what the previous owner left unacknowledged, and reads until when
   * the previous owner asked for quiet. Returns those times (0: none).
   */
  async prepareOwnership(partitions: readonly number[], consumer: string, quietKey: (partition: number) => string): Promise<number[]> {
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) {
      pipeline.xgroup('CREATE', this.#keys.links(p), LINK_GROUP, '0', 'MKSTREAM');
      pipeline.xautoclaim(this.#keys.links(p), LINK_GROUP, consumer, 0, '0-0', 'COUNT', 500, 'JUSTID');
      pipeline.get(quietKey(p));
    }
    const replies = (await pipeline.exec()) ?? [];
    const quiet: number[] = [];
    for (const [i, partition] of partitions.entries()) {
      const [groupError] = replies[i * 3] ?? [null];
      if (groupError !== null && !groupError.message.startsWith('BUSYGROUP')) throw groupError;
      const [claimError, claim] = replies[i * 3 + 1] ?? [null, ['0-0', []]];
      if (claimError !== null) throw claimError;
      if ((claim as [string, string[]])[0] !== '0-0') await this.claimPending(partition, consumer);
      const [, until] = replies[i * 3 + 2] ?? [null, null];
      quiet.push(until === null || until === undefined ? 0 : Number(until));
    }
    return quiet;
  }

  /**
   * Takes over what a partition's previous owner read and never acknowledged: those batches
   * come back first, through `read` with `pending`.
   */
  async claimPending(partition: number, consumer: string, minIdleMs = 0): Promise<number> {
    let cursor = '0-0';
    let claimed = 0;
    do {
      const reply = (await this.#redis.xautoclaim(this.#keys.links(partition), LINK_GROUP, consumer, minIdleMs, cursor, 'COUNT', 500, 'JUSTID')) as [string, string[]];
      cursor = reply[0];
      claimed += reply[1].length;
    } while (cursor !== '0-0');
    return claimed;
  }

  /**
   * Reads new batches (or, with `pending`, this consumer's unacknowledged ones) from the
   * given partitions' streams, without blocking.
   */
  async read(partitions: readonly number[], consumer: string, count: number, pending = false): Promise<LinkBatch[]> {
    if (partitions.length === 0) return [];
    const keys = partitions.map((p) => this.#keys.links(p));
    const ids = partitions.map(() => (pending ? '0' : '>'));
    const reply = (await this.#redis.xreadgroupBuffer('GROUP', LINK_GROUP, consumer, 'COUNT', count, 'STREAMS', ...keys, ...ids)) as [Buffer, [Buffer, Buffer[]][]][] | null;
    if (reply === null) return [];
    const batches: LinkBatch[] = [];
    for (const [key, entries] of reply) {
      const partition = Number(key.toString().slice(key.toString().lastIndexOf(':') + 1));
      for (const [id, fields] of entries) {
        // A pending entry that was deleted meanwhile comes back with no fields.
        const data = fieldOf(fields, 'd');
        batches.push({ partition, id: id.toString(), links: data === undefined ? [] : (decodeLinks(data) ?? []) });
      }
    }
    return batches;
  }

  /** The batches were committed to their shards: acknowledged and deleted from their streams, in one round trip. */
  async ack(byPartition: ReadonlyMap<number, readonly LinkBatch[]>): Promise<void> {
    if (byPartition.size === 0) return;
    const pipeline = this.#redis.pipeline();
    for (const [partition, batches] of byPartition) {
      const ids = batches.map((b) => b.id);
      if (ids.length === 0) continue;
      pipeline.xack(this.#keys.links(partition), LINK_GROUP, ...ids);
      // A stream keeps acknowledged entries until they are deleted; nothing reads them again.
      pipeline.xdel(this.#keys.links(partition), ...ids);
    }
    await execOrThrow(pipeline);
  }

  /**
   * claimPending over many partitions in one round trip: returns the partitions where
   * something was claimed (a partition with more than a page of them is finished one by one).
   */
  async claimStale(partitions: readonly number[], consumer: string, minIdleMs: number): Promise<number[]> {
    if (partitions.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) pipeline.xautoclaim(this.#keys.links(p), LINK_GROUP, consumer, minIdleMs, '0-0', 'COUNT', 500, 'JUSTID');
    const replies = await execOrThrow(pipeline);
    const claimed: number[] = [];
    for (const [i, [, reply]] of replies.entries()) {
      const [cursor, ids] = reply as [string, string[]];
      const partition = partitions[i] as number;
      if (ids.length > 0) claimed.push(partition);
      if (cursor !== '0-0') await this.claimPending(partition, consumer, minIdleMs);
    }
    return claimed;
  }

  /** Entries waiting in the partitions' streams (sent and not yet acknowledged), in all. */
  async backlog(partitions: number): Promise<number> {
    const pipeline = this.#redis.pipeline();
    for (let p = 0; p < partitions; p++) pipeline.xlen(this.#keys.links(p));
    const replies = await execOrThrow(pipeline);
    return replies.reduce((n, [, length]) => n + Number(length), 0);
  }
}

function fieldOf(fields: Buffer[] | null, name: string): Buffer | undefined {
  if (fields === null) return undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) if ((fields[i] as Buffer).toString() === name) return fields[i + 1];
  return undefined;
}

/** Runs a pipeline; the first command error is thrown (ioredis returns them in the replies). */
async function execOrThrow(pipeline: ReturnType<Redis['pipeline']>): Promise<[Error | null, unknown][]> {
  const replies = (await pipeline.exec()) ?? [];
  for (const [err] of replies) if (err !== null) throw err;
  return replies;
}
