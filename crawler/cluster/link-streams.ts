import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { IncomingLink } from '../engine/engine-types.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../protocol/settings.ts';
import { LINK_GROUP, type ClusterKeys } from './cluster-keys.ts';
import { deflateMemory } from '../memory/deflate-memory.ts';
import { partitionOf } from './partition.ts';
import { foundBy, isKeyDamage, throwDamage, type DamageReport } from './redis-damage.ts';

/*
 * Links between partitions travel on Redis Streams, one stream per partition, read by its
 * owner through one consumer group. An entry is a batch of links, deflated: a link's URL,
 * anchor and context compress well together, and Redis keeps queued links in memory. The
 * owner acknowledges a batch only after its shard committed the links, so delivery is at
 * least once; a repeat is harmless, since the shard's seen test stops it. A new owner claims
 * what the previous one read and never acknowledged.
 *
 * An entry is untrusted input (anyone who can write to the Redis can add one): its size is
 * capped before it is inflated and while it is, and each link is checked against the
 * crawl's own bounds. A bad link is left out, a bad entry gives no links; either way the
 * entry is acknowledged like any other, and the reader is told what was dropped and why.
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
  /** Links of the entry left out, or 1 for an entry that could not be read at all. */
  dropped: number;
  /** Why the first of them was. */
  problem?: string;
}

/** What a link of a crawl may carry: the crawl's own bounds. */
export interface LinkLimits {
  /** The crawl's maxUrlLength: no longer URL is admitted anywhere. */
  maxUrlLength: number;
  /** The crawl's maxDepth: a link is at most one deeper than the deepest page fetched. */
  maxDepth: number;
}

export function linkLimitsOf(settings: Pick<CrawlSettings, 'maxUrlLength' | 'maxDepth'>): LinkLimits {
  return { maxUrlLength: settings.maxUrlLength, maxDepth: settings.maxDepth };
}

const DEFAULT_LINK_LIMITS = linkLimitsOf(DEFAULT_SETTINGS);

/** Entries of at most this many links: big enough to amortise a round trip, small enough to admit in one short transaction. */
export const LINKS_PER_ENTRY = 200;

/** An anchor on the wire: the bound the page extractor and the search index readers put on anchor text and titles. */
const MAX_WIRE_ANCHOR_CHARS = 1000;
/** Context on the wire: ten words either side of a link, one very long word cut (the sender cuts, the owner refuses longer). */
const MAX_WIRE_CONTEXT_CHARS = 2000;

/**
 * The most an entry's JSON may take. LINKS_PER_ENTRY links with a URL of the default
 * maxUrlLength (2,048), a full anchor and a full context take about 6 MB even with every
 * character written as JSON's six-byte \uXXXX; a sender splits an entry that would take
 * more (a crawl allowing far longer URLs), so an entry inflating past this is a bomb.
 */
export const MAX_ENTRY_JSON_BYTES = 8 * 1024 * 1024;
/** Deflate grows even incompressible input in small blocks by less than a seventh (zlib's deflateBound): a larger field is no entry a worker wrote. */
const MAX_ENTRY_DEFLATED_BYTES = MAX_ENTRY_JSON_BYTES + MAX_ENTRY_JSON_BYTES / 4;

type WireLink = [url: string, depth: number, anchor: string, context: string, seed: 0 | 1, relevance?: number];

function wireOf(link: SentLink): WireLink {
  const row: WireLink = [link.url, link.depth, cut(link.anchor, MAX_WIRE_ANCHOR_CHARS), cut(link.context, MAX_WIRE_CONTEXT_CHARS), link.isSeed ? 1 : 0];
  if (link.parentRelevance !== undefined) row.push(Math.round(link.parentRelevance * 1000) / 1000);
  return row;
}

/** The text's first `max` characters, never half of a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function deflate(json: Buffer): Buffer {
  // The fastest level: an entry is small, and most of what it saves comes from the first pass.
  return deflateRawSync(json, { level: 1, ...deflateMemory(json.length) });
}

export function encodeLinks(links: readonly SentLink[]): Buffer {
  return deflate(Buffer.from(JSON.stringify(links.map(wireOf))));
}

/** The links as entries an owner takes: one, or halves of it until each fits MAX_ENTRY_JSON_BYTES. */
function entriesOf(links: readonly SentLink[]): { count: number; data: Buffer }[] {
  const json = Buffer.from(JSON.stringify(links.map(wireOf)));
  if (json.length <= MAX_ENTRY_JSON_BYTES || links.length === 1) return [{ count: links.length, data: deflate(json) }];
  const half = Math.ceil(links.length / 2);
  return [...entriesOf(links.slice(0, half)), ...entriesOf(links.slice(half))];
}

/**
 * A batch as sent, each link checked against `limits`; `onDropped` hears why each link left
 * out was. A damaged entry (too large, not deflate, not JSON, not a list) decodes to
 * undefined, with one word to `onDropped`: it is acknowledged and reported, never retried forever.
 */
export function decodeLinks(data: Buffer, limits: LinkLimits = DEFAULT_LINK_LIMITS, onDropped: (why: string) => void = () => {}): SentLink[] | undefined {
  const rows = rowsOf(data);
  if (typeof rows === 'string') {
    onDropped(rows);
    return undefined;
  }
  const links: SentLink[] = [];
  for (const row of rows) {
    const link = linkOfRow(row, limits);
    if (typeof link === 'string') onDropped(link);
    else links.push(link);
  }
  return links;
}

/** An entry's rows, or why it cannot be read; its size is capped before inflating, and what it inflates to while it does. */
function rowsOf(data: Buffer): unknown[] | string {
  if (data.length > MAX_ENTRY_DEFLATED_BYTES) return `an entry of ${data.length} deflated bytes, more than ${MAX_ENTRY_DEFLATED_BYTES}`;
  let json: Buffer;
  try {
    json = inflateRawSync(data, { maxOutputLength: MAX_ENTRY_JSON_BYTES });
  } catch (err) {
    const tooLarge = (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    return tooLarge ? `an entry that inflates past ${MAX_ENTRY_JSON_BYTES} bytes (a deflate bomb?)` : 'an entry that is not deflated data';
  }
  let rows: unknown;
  try {
    rows = JSON.parse(json.toString('utf8'));
  } catch {
    return 'an entry that is not JSON';
  }
  return Array.isArray(rows) ? rows : 'an entry that is not a list of links';
}

function linkOfRow(row: unknown, limits: LinkLimits): SentLink | string {
  if (!Array.isArray(row) || row.length < 5 || row.length > 6) return 'a link that is not [url, depth, anchor, context, seed, relevance?]';
  const [url, depth, anchor, context, seed, relevance] = row as unknown[];
  if (seed !== 0 && seed !== 1) return `seed flag ${shown(seed)} is neither 0 nor 1`;
  const link = { url, depth, anchor, context, isSeed: seed === 1, ...(row.length === 6 ? { parentRelevance: relevance } : {}) };
  return linkProblem(link, limits) ?? (link as SentLink);
}

/**
 * Why a link may not be admitted, or undefined when it may: an http(s) URL no longer than
 * the crawl's bound, a depth that is a whole number from 0 to one past the crawl's maxDepth,
 * anchor and context texts within the wire's bounds, a relevance (if any) in [0, 1].
 */
export function linkProblem(link: Readonly<Partial<Record<keyof SentLink, unknown>>>, limits: LinkLimits): string | undefined {
  const { url, depth, anchor, context, isSeed, parentRelevance } = link;
  if (typeof url !== 'string' || url.length > limits.maxUrlLength || !isHttpUrl(url)) return `url ${shown(url)} is not an http(s) URL of at most ${limits.maxUrlLength} characters`;
  const deepest = limits.maxDepth + 1;
  if (typeof depth !== 'number' || !Number.isSafeInteger(depth) || depth < 0 || depth > deepest) return `depth ${shown(depth)} is not a whole number from 0 to ${deepest}`;
  if (typeof anchor !== 'string' || anchor.length > MAX_WIRE_ANCHOR_CHARS) return `anchor ${shown(anchor)} is not a text of at most ${MAX_WIRE_ANCHOR_CHARS} characters`;
  if (typeof context !== 'string' || context.length > MAX_WIRE_CONTEXT_CHARS) return `context ${shown(context)} is not a text of at most ${MAX_WIRE_CONTEXT_CHARS} characters`;
  if (typeof isSeed !== 'boolean') return `seed flag ${shown(isSeed)} is not a flag`;
  if (parentRelevance !== undefined && !(typeof parentRelevance === 'number' && parentRelevance >= 0 && parentRelevance <= 1)) return `relevance ${shown(parentRelevance)} is not a number from 0 to 1`;
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** A value read from Redis, short enough for a log line. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

export interface LinkStreamOptions {
  /** The crawl's bounds on a link (default: the default settings'). */
  limits?: LinkLimits;
  /**
   * Told of a damaged stream (a key holding another type, a missing consumer group); the
   * other partitions' streams are read and written meanwhile. Default: a ClusterError.
   */
  onDamage?: DamageReport;
}

type StreamReply = [key: Buffer, entries: [id: Buffer, fields: Buffer[] | null][]][] | null;

export class LinkStreams {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #limits: LinkLimits;
  readonly #onDamage: DamageReport;

  constructor(redis: Redis, keys: ClusterKeys, options: LinkStreamOptions = {}) {
    this.#redis = redis;
    this.#keys = keys;
    this.#limits = options.limits ?? DEFAULT_LINK_LIMITS;
    this.#onDamage = options.onDamage ?? throwDamage(keys.name);
  }

  /**
   * Sends links to their partitions' streams (in one round trip). Returns each of those streams' length now, in entries, for the sender to hold back what a full one would get next.
   * The links for a damaged stream are dropped (and reported): no owner could read them.
   */
  async send(links: readonly SentLink[], partitionOfLink: (url: string) => number = partitionOf): Promise<Map<number, number>> {
    if (links.length === 0) return new Map();
    const byPartition = new Map<number, SentLink[]>();
    for (const link of links) {
      const p = partitionOfLink(link.url);
      let list = byPartition.get(p);
      if (list === undefined) byPartition.set(p, (list = []));
      list.push(link);
    }
    const pipeline = this.#redis.pipeline();
    const sentTo: number[] = [];
    for (const [partition, list] of byPartition) {
      for (let i = 0; i < list.length; i += LINKS_PER_ENTRY) {
        for (const entry of entriesOf(list.slice(i, i + LINKS_PER_ENTRY))) {
          pipeline.xadd(this.#keys.links(partition), '*', 'n', String(entry.count), 'd', entry.data);
          sentTo.push(partition);
        }
      }
    }
    for (const partition of byPartition.keys()) pipeline.xlen(this.#keys.links(partition));
    const replies = (await pipeline.exec()) ?? [];
    const refused = new Set<number>();
    for (const [i, partition] of sentTo.entries()) {
      const [err] = replies[i] ?? [null];
      if (err === null || refused.has(partition)) continue;
      this.#failedOn(partition, err, `the ${byPartition.get(partition)?.length ?? 0} link(s) sent to it just now were dropped`);
      refused.add(partition);
    }
    return this.#lengthsOf([...byPartition.keys()], replies.slice(sentTo.length));
  }

  /** The partitions' stream lengths, in entries, in one round trip; a damaged stream is reported and left out. */
  async lengths(partitions: readonly number[]): Promise<Map<number, number>> {
    if (partitions.length === 0) return new Map();
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) pipeline.xlen(this.#keys.links(p));
    const replies = (await pipeline.exec()) ?? [];
    for (const [i, [err]] of replies.entries()) if (err !== null) this.#failedOn(partitions[i] as number, err, 'links sent to this partition are not read, and how full its stream is cannot be told');
    return this.#lengthsOf(partitions, replies);
  }

  #lengthsOf(partitions: readonly number[], replies: [Error | null, unknown][]): Map<number, number> {
    const lengths = new Map<number, number>();
    for (const [i, partition] of partitions.entries()) {
      const [err, length] = replies[i] ?? [null, 0];
      if (err === null) lengths.set(partition, Number(length));
    }
    return lengths;
  }

  /**
   * What a new owner does first with its partitions' streams, in one round trip: makes each
   * consumer group, claims what the previous owner left unacknowledged, and reads until when
   * the previous owner asked for quiet. Returns those times (0: none), or null for a partition
   * whose stream is damaged.
   */
  async prepareOwnership(partitions: readonly number[], consumer: string, quietKey: (partition: number) => string): Promise<(number | null)[]> {
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) {
      pipeline.xgroup('CREATE', this.#keys.links(p), LINK_GROUP, '0', 'MKSTREAM');
      pipeline.xautoclaim(this.#keys.links(p), LINK_GROUP, consumer, 0, '0-0', 'COUNT', 500, 'JUSTID');
      pipeline.get(quietKey(p));
    }
    const replies = (await pipeline.exec()) ?? [];
    const quiet: (number | null)[] = [];
    for (const [i, partition] of partitions.entries()) {
      const [groupError] = replies[i * 3] ?? [null];
      const [claimError, claim] = replies[i * 3 + 1] ?? [null, ['0-0', []]];
      const streamError = groupError !== null && !groupError.message.startsWith('BUSYGROUP') ? groupError : claimError;
      if (streamError !== null) {
        this.#failedOn(partition, streamError, 'links sent to this partition are not read');
        quiet.push(null);
        continue;
      }
      if ((claim as [string, string[]])[0] !== '0-0') await this.claimPending(partition, consumer);
      const [quietError, until] = replies[i * 3 + 2] ?? [null, null];
      quiet.push(this.#quietUntil(quietKey(partition), quietError, until));
    }
    return quiet;
  }

  /** A partition's quiet time as read: a time in ms, else 0 (no previous owner asked for quiet, or its key is damaged). */
  #quietUntil(key: string, err: Error | null, until: unknown): number {
    if (err === null && (until === null || until === undefined)) return 0;
    if (err === null && typeof until === 'string' && /^\d{1,15}$/.test(until)) return Number(until);
    if (err !== null && !isKeyDamage(err)) throw err;
    this.#onDamage({
      key,
      expected: 'a time in milliseconds',
      found: err === null ? `it holds ${shown(until)}` : foundBy(err),
      meanwhile: 'the partition\'s hosts may be asked without waiting for its previous owner\'s last requests',
      repair: `delete it (redis-cli DEL ${key})`,
    });
    return 0;
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
   * given partitions' streams, without blocking. A damaged stream is reported and the others read.
   */
  async read(partitions: readonly number[], consumer: string, count: number, pending = false): Promise<LinkBatch[]> {
    if (partitions.length === 0) return [];
    const keys = partitions.map((p) => this.#keys.links(p));
    const ids = partitions.map(() => (pending ? '0' : '>'));
    let replies: StreamReply[];
    try {
      replies = [(await this.#redis.xreadgroupBuffer('GROUP', LINK_GROUP, consumer, 'COUNT', count, 'STREAMS', ...keys, ...ids)) as StreamReply];
    } catch (err) {
      if (!isKeyDamage(err)) throw err;
      replies = await this.#readEach(partitions, consumer, count, pending);
    }
    const batches: LinkBatch[] = [];
    for (const reply of replies) {
      for (const [key, entries] of reply ?? []) {
        const partition = Number(key.toString().slice(key.toString().lastIndexOf(':') + 1));
        // A pending entry that was deleted meanwhile comes back with no fields.
        for (const [id, fields] of entries) batches.push(this.#batchOf(partition, id.toString(), fieldOf(fields, 'd')));
      }
    }
    return batches;
  }

  /** One damaged stream fails a read of them all: each read on its own, the damaged ones reported. */
  async #readEach(partitions: readonly number[], consumer: string, count: number, pending: boolean): Promise<StreamReply[]> {
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) pipeline.xreadgroupBuffer('GROUP', LINK_GROUP, consumer, 'COUNT', count, 'STREAMS', this.#keys.links(p), pending ? '0' : '>');
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([err, reply], i) => {
      if (err === null) return reply as StreamReply;
      this.#failedOn(partitions[i] as number, err, 'links sent to this partition are not read');
      return null;
    });
  }

  #batchOf(partition: number, id: string, data: Buffer | undefined): LinkBatch {
    if (data === undefined) return { partition, id, links: [], dropped: 0 };
    let dropped = 0;
    let problem: string | undefined;
    const links = decodeLinks(data, this.#limits, (why) => {
      dropped++;
      problem ??= why;
    });
    return { partition, id, links: links ?? [], dropped, ...(problem === undefined ? {} : { problem }) };
  }

  /** The batches were committed to their shards: acknowledged and deleted from their streams, in one round trip. */
  async ack(byPartition: ReadonlyMap<number, readonly LinkBatch[]>): Promise<void> {
    if (byPartition.size === 0) return;
    const pipeline = this.#redis.pipeline();
    const acked: number[] = [];
    for (const [partition, batches] of byPartition) {
      const ids = batches.map((b) => b.id);
      if (ids.length === 0) continue;
      pipeline.xack(this.#keys.links(partition), LINK_GROUP, ...ids);
      // A stream keeps acknowledged entries until they are deleted; nothing reads them again.
      pipeline.xdel(this.#keys.links(partition), ...ids);
      acked.push(partition, partition);
    }
    const replies = (await pipeline.exec()) ?? [];
    const refused = new Set<number>();
    for (const [i, [err]] of replies.entries()) {
      const partition = acked[i] as number;
      if (err === null || refused.has(partition)) continue;
      this.#failedOn(partition, err, 'links sent to this partition are not read');
      refused.add(partition);
    }
  }

  /**
   * claimPending over many partitions in one round trip: returns the partitions where
   * something was claimed (a partition with more than a page of them is finished one by one).
   */
  async claimStale(partitions: readonly number[], consumer: string, minIdleMs: number): Promise<number[]> {
    if (partitions.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const p of partitions) pipeline.xautoclaim(this.#keys.links(p), LINK_GROUP, consumer, minIdleMs, '0-0', 'COUNT', 500, 'JUSTID');
    const replies = (await pipeline.exec()) ?? [];
    const claimed: number[] = [];
    for (const [i, [err, reply]] of replies.entries()) {
      const partition = partitions[i] as number;
      if (err !== null) {
        this.#failedOn(partition, err, 'links sent to this partition are not read');
        continue;
      }
      const [cursor, ids] = reply as [string, string[]];
      if (ids.length > 0) claimed.push(partition);
      if (cursor !== '0-0') await this.claimPending(partition, consumer, minIdleMs);
    }
    return claimed;
  }

  /** Entries waiting in the partitions' streams (sent and not yet acknowledged), in all; a damaged stream counts as one waiting. */
  async backlog(partitions: number): Promise<number> {
    const pipeline = this.#redis.pipeline();
    for (let p = 0; p < partitions; p++) pipeline.xlen(this.#keys.links(p));
    const replies = (await pipeline.exec()) ?? [];
    let waiting = 0;
    for (const [p, [err, length]] of replies.entries()) {
      if (err === null) {
        waiting += Number(length);
        continue;
      }
      // Whatever it should hold is not known to be done: the crawl is not over while it is damaged.
      this.#failedOn(p, err, 'the crawl does not finish');
      waiting++;
    }
    return waiting;
  }

  /** A command on a partition's stream failed: damage of that stream is reported, anything else (Redis away) thrown. */
  #failedOn(partition: number, err: Error, meanwhile: string): void {
    if (!isKeyDamage(err)) throw err;
    const key = this.#keys.links(partition);
    this.#onDamage({
      key,
      partition,
      expected: `a stream of links with the consumer group "${LINK_GROUP}"`,
      found: foundBy(err),
      meanwhile,
      repair: `delete it (redis-cli DEL ${key}), and the partition's owner makes it again`,
    });
  }
}

function fieldOf(fields: Buffer[] | null, name: string): Buffer | undefined {
  if (fields === null) return undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) if ((fields[i] as Buffer).toString() === name) return fields[i + 1];
  return undefined;
}
