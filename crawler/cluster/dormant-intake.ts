import { join } from 'node:path';
import { admitIncoming } from '../engine/incoming-links.ts';
import type { HostState } from '../engine/host-state.ts';
import { pickSettings } from '../engine/pick-settings.ts';
import { RobotsGate } from '../engine/robots-gate.ts';
import { threadCpuMs } from '../engine/time-slices.ts';
import { UrlAdmission } from '../engine/url-admission.ts';
import { ClusterError } from '../errors.ts';
import { newFrontierHost } from '../frontier/frontier-host.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { Db } from '../store/database.ts';
import { HostStore } from '../store/host-store.ts';
import { shardFileName } from '../store/shard-names.ts';
import { UrlStore } from '../store/url-store.ts';
import { createScope } from '../url/scope.ts';
import { linkLimitsOf, linkProblem, type LinkBatch, type LinkLimits, type SentLink } from './link-streams.ts';
import { partitionReason, type PartitionMap } from './partition.ts';
import { openShardFile } from './shard-file.ts';

/*
 * Links for a partition whose shard sleeps (closed after idling, shard-pool.ts) are stored
 * in it without an engine: the shard is opened under the lease's epoch, the links admitted
 * as a running engine admits them (engine/incoming-links.ts: the same seen test, scope,
 * rules, trap and depth checks, robots verdicts and stubs for other partitions' URLs), and
 * the shard closed. The engine, and the replay of the shard's history, come only when the
 * pool wakes the shard to crawl what it holds.
 */

/** Seen-cache entries of an intake: one batch's links, the shard's index answers the rest. */
const INTAKE_SEEN_CACHE = 1024;

/**
 * The links of a partition's batches that may be stored: a link out of the crawl's bounds is
 * left out (the stream's reader checks them, and every shard's intake checks again, so that
 * nothing but a sound link is ever stored). `refused` counts those left out.
 */
export function soundLinks(batches: readonly LinkBatch[], limits: LinkLimits): { links: SentLink[]; refused: number } {
  const links: SentLink[] = [];
  let refused = 0;
  for (const link of batches.flatMap((b) => b.links)) {
    if (linkProblem(link, limits) === undefined) links.push(link);
    else refused++;
  }
  return { links, refused };
}

/** Why a URL is another partition's ('partition:17'), or null when it is this partition's. */
export function elsewhereOf(partitions: PartitionMap, partition: number): (url: string) => string | null {
  return (url) => {
    const owner = partitions.of(url);
    return owner === partition ? null : partitionReason(owner);
  };
}

export interface IntakeContext {
  dir: string;
  /** The crawl's settings, as its shards' engines run them. */
  settings: CrawlSettings;
  partitions: PartitionMap;
}

/** What an intake stored. */
export interface IntakeOutcome {
  /** New URLs stored as queued: work the shard holds for its next open. */
  queued: number;
  /** Links left out as out of the crawl's bounds. */
  refused: number;
  /** CPU milliseconds the intake took (opening and closing the shard included). */
  cpuMs: number;
}

/**
 * Stores a dormant partition's incoming links in its shard, with no engine. Throws the
 * fence's error when a later owner has written to the shard, and ShardLockedError when
 * another process holds its write lock; nothing is stored then.
 */
export function admitToDormantShard(partition: number, epoch: number, context: IntakeContext, batches: readonly LinkBatch[]): IntakeOutcome {
  const started = threadCpuMs();
  const { links, refused } = soundLinks(batches, linkLimitsOf(context.settings));
  let queued = 0;
  if (links.length > 0) {
    const db = openShardFile(join(context.dir, shardFileName(partition)), partition, epoch);
    try {
      queued = admitIncoming(db, shardAdmission(db, context.settings, elsewhereOf(context.partitions, partition)), undefined, links).queued;
    } finally {
      db.close();
    }
  }
  return { queued, refused, cpuMs: threadCpuMs() - started };
}

/**
 * The admission a shard's engine makes (engine.ts), without the engine: the ordering learns
 * of the stored URLs when the shard next opens and replays its history.
 */
function shardAdmission(db: Db, settings: CrawlSettings, elsewhere: (url: string) => string | null): UrlAdmission {
  const urls = new UrlStore(db);
  const hosts = new HostStore(db);
  return new UrlAdmission(
    pickSettings(settings, 'maxUrlLength', 'maxDepth', 'include', 'exclude'),
    { urls, hosts },
    createScope(settings.scope, settings.seeds),
    { robotsBlockReason: storedRobots(settings, hosts), linked: () => undefined, elsewhere },
    INTAKE_SEEN_CACHE,
  );
}

/**
 * Robots verdicts as a shard's engine has them when it opens: each host's as stored (rules
 * read when first needed), none for a host not asked yet. Nothing is fetched here.
 */
function storedRobots(settings: CrawlSettings, hosts: HostStore): (hostId: number, origin: string, url: string) => string | null {
  const gate = new RobotsGate(pickSettings(settings, 'userAgent', 'robotsRetryMs', 'robotsMaxAttempts'), hosts, () => {
    throw new ClusterError('a dormant shard\'s intake fetches no robots.txt');
  });
  let known: Map<number, HostState> | undefined;
  return (hostId, _origin, url) => {
    known ??= new Map(hosts.all().map((row) => [row.id, { ...newFrontierHost(row.id, row.origin), robots: gate.restore(row) }]));
    const host = known.get(hostId);
    return host === undefined ? null : gate.blockReason(host, url);
  };
}
