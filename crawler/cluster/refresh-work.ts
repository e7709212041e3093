import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { RefreshRun } from '../engine/run-policy.ts';
import { ClusterError } from '../errors.ts';
import { openCollection, type ReadonlyDb } from '../store/database.ts';
import { shardFileName } from '../store/shard-names.ts';
import { UrlState } from '../store/url-state.ts';
import type { ClusterKeys } from './cluster-keys.ts';
import { giveBackFetches, markRefreshDone, readRefresh, refreshDonePartitions, takeFetches, type ClusterRefresh } from './cluster-refresh.ts';
import type { DamageReport } from './redis-damage.ts';

/*
 * A worker's part of a cluster's refresh (cluster-refresh.ts): for each partition it holds
 * that has not done the refresh, it counts the shard's due pages, takes a chunk of the shared
 * budget for them (and a tenth more for the new pages changed ones link to, as a refresh's
 * default budget has) and has the shard pool run the shard's refresh in place of its crawl.
 * When that run ends, what it did not spend goes back; a shard with nothing due left, or for
 * which the budget has nothing left, is marked done. A chunk taken by a worker that loses
 * the partition mid-refresh is not given back: the refresh falls short, never over.
 */

/** The request and the partitions done are read again this often. */
const READ_EVERY_MS = 500;
/** Shard refreshes started per tick at most (each opens a shard, as the pool's opens do). */
const STARTS_PER_TICK = 6;

/** How a shard's refresh run ended. */
export interface RefreshEnd {
  partition: number;
  /** The request it ran for. */
  id: string;
  /** Its chunk of the budget, and what it spent of it. */
  chunk: number;
  spent: number;
  /** True when it ended with nothing left to revisit; false when its chunk was spent, or it failed. */
  nothingDue: boolean;
}

export interface RefreshWorkParts {
  redis: Redis;
  keys: ClusterKeys;
  /** The worker's --dir, where the shards are. */
  dir: string;
  partitions: number;
  /** The partitions the worker holds now. */
  held: () => Iterable<number>;
  pool: {
    /** Runs a refresh on the partition's shard in place of its crawl. */
    refresh(partition: number, id: string, run: RefreshRun): void;
    /** Whether the partition's shard runs, or is about to run, a refresh. */
    refreshing(partition: number): boolean;
  };
  onDamage: DamageReport;
}

export class RefreshWork {
  readonly #p: RefreshWorkParts;
  #refresh: ClusterRefresh | undefined;
  #done = new Set<number>();
  readonly #ended: RefreshEnd[] = [];
  #nextRead = 0;

  constructor(parts: RefreshWorkParts) {
    this.#p = parts;
  }

  /** A refresh was asked for and some partition has not done it yet: the crawl is not over. */
  get inProgress(): boolean {
    return this.#refresh !== undefined && this.#done.size < this.#p.partitions;
  }

  /** A shard's refresh run ended (told by the shard pool); handled at the next tick. */
  ended(end: RefreshEnd): void {
    this.#ended.push(end);
  }

  /** Handles the runs that ended, and starts the shards' refreshes still to run. */
  async tick(now: number): Promise<void> {
    if (now >= this.#nextRead) {
      this.#nextRead = now + READ_EVERY_MS;
      await this.#read();
    }
    const refresh = this.#refresh;
    for (const end of this.#ended.splice(0)) {
      // A run of a request replaced since: its counter is gone, nothing goes back to the new one.
      if (refresh === undefined || end.id !== refresh.id) continue;
      await giveBackFetches(this.#p.redis, this.#p.keys, end.chunk - end.spent);
      if (end.nothingDue) await this.#markDone(end.partition);
    }
    if (refresh !== undefined) await this.#start(refresh);
  }

  async #read(): Promise<void> {
    const { redis, keys } = this.#p;
    const refresh = await this.#readRequest();
    if (refresh?.id !== this.#refresh?.id) this.#done = new Set();
    this.#refresh = refresh;
    if (refresh !== undefined) for (const partition of await refreshDonePartitions(redis, keys)) this.#done.add(partition);
  }

  /** The request; a damaged one is said (at the worker's bounded rate) and read as none, so that the crawl goes on. */
  async #readRequest(): Promise<ClusterRefresh | undefined> {
    const { redis, keys } = this.#p;
    try {
      return await readRefresh(redis, keys);
    } catch (err) {
      if (!(err instanceof ClusterError)) throw err;
      this.#p.onDamage({
        key: keys.refresh,
        expected: 'a refresh request (JSON: id, since, maxFetches, requestedAt)',
        found: 'something else',
        meanwhile: 'no shard starts a refresh; the crawl goes on',
        repair: `ask for the refresh again with forager refresh --cluster ${keys.name}`,
      });
      return undefined;
    }
  }

  async #start(refresh: ClusterRefresh): Promise<void> {
    const { pool, dir } = this.#p;
    let started = 0;
    for (const partition of this.#p.held()) {
      if (started >= STARTS_PER_TICK) return;
      if (this.#done.has(partition) || pool.refreshing(partition)) continue;
      const due = dueInShard(join(dir, shardFileName(partition)), refresh.since);
      // The shard could not be read just now: tried again at the next tick.
      if (due === undefined) continue;
      const chunk = due === 0 ? 0 : await this.#take(refresh, due + Math.ceil(due / 10));
      if (chunk === undefined) return;
      if (chunk === 0) {
        await this.#markDone(partition);
        continue;
      }
      pool.refresh(partition, refresh.id, { since: refresh.since, maxFetches: chunk });
      started++;
    }
  }

  /** A chunk of the refresh's budget; undefined when its counter is damaged (said, and nothing is taken). */
  async #take(refresh: ClusterRefresh, wanted: number): Promise<number | undefined> {
    const { redis, keys } = this.#p;
    const n = await takeFetches(redis, keys, refresh, wanted);
    if (n === undefined) {
      this.#p.onDamage({
        key: keys.refreshUsed,
        expected: "the whole number of the refresh's fetches handed out so far (0 or more)",
        found: 'something else',
        meanwhile: 'the refresh starts on no more shards',
        repair: `ask for the refresh again with forager refresh --cluster ${keys.name}`,
      });
    }
    return n;
  }

  async #markDone(partition: number): Promise<void> {
    this.#done.add(partition);
    await markRefreshDone(this.#p.redis, this.#p.keys, partition);
  }
}

/** Pages of a shard last checked before `since` that may be revisited (as revisit-store.ts's due); 0 without a shard, undefined when it cannot be read now. */
function dueInShard(path: string, since: number): number | undefined {
  if (!existsSync(path)) return 0;
  let db: ReadonlyDb | undefined;
  try {
    db = openCollection(path, { create: false, readonly: true, busyTimeoutMs: 50 });
    return db
      .prepare(
        `SELECT count(*) FROM pages p JOIN urls u ON u.id = p.url_id
          WHERE coalesce(p.checked_at, p.fetched_at) < ? AND u.state IN (${UrlState.fetched}, ${UrlState.failed})`,
      )
      .pluck()
      .get(since) as number;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
