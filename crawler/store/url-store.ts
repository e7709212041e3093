import type { Db } from './database.ts';
import { UrlState, type UrlStateValue } from './url-state.ts';

export interface NewUrl {
  fp: bigint;
  url: string;
  hostId: number;
  depth: number;
  state: UrlStateValue;
  priority: number;
  parentId: number | null;
  redirects: number;
  reason: string | null;
}

export interface QueuedUrl {
  id: number;
  url: string;
  hostId: number;
  depth: number;
  priority: number;
  redirects: number;
  attempts: number;
}

/** The urls table: the persistent seen set and the frontier's state. */
export class UrlStore {
  readonly #findByFp;
  readonly #insert;
  readonly #nextQueued;
  readonly #setState;
  readonly #requeue;
  readonly #get;
  readonly #resetInflight;
  readonly #queuedByHost;
  readonly #countByState;
  readonly #closeQueuedOfHost;

  constructor(db: Db) {
    this.#findByFp = db.prepare('SELECT id FROM urls WHERE fp = ?').pluck();
    this.#insert = db.prepare(
      'INSERT INTO urls (fp, url, host_id, depth, state, priority, parent_id, redirects, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#nextQueued = db.prepare(
      `SELECT id, url, host_id AS hostId, depth, priority, redirects, attempts FROM urls
       WHERE host_id = ? AND state = ${UrlState.queued} ORDER BY priority DESC, id LIMIT 1`,
    );
    this.#setState = db.prepare('UPDATE urls SET state = ?, reason = ? WHERE id = ?');
    this.#requeue = db.prepare(`UPDATE urls SET state = ${UrlState.queued}, attempts = attempts + 1, reason = ? WHERE id = ?`);
    this.#resetInflight = db.prepare(`UPDATE urls SET state = ${UrlState.queued} WHERE state = ${UrlState.inflight}`);
    this.#queuedByHost = db.prepare(`SELECT host_id AS hostId, count(*) AS n FROM urls WHERE state = ${UrlState.queued} GROUP BY host_id`);
    this.#countByState = db.prepare('SELECT state, count(*) AS n FROM urls GROUP BY state');
    this.#closeQueuedOfHost = db.prepare(`UPDATE urls SET state = ?, reason = ? WHERE host_id = ? AND state = ${UrlState.queued}`);
    this.#get = db.prepare('SELECT id, url, host_id AS hostId, depth, state, priority, parent_id AS parentId, redirects, attempts, reason FROM urls WHERE id = ?');
  }

  findIdByFingerprint(fp: bigint): number | undefined {
    return this.#findByFp.get(fp) as number | undefined;
  }

  insert(u: NewUrl): number {
    const info = this.#insert.run(u.fp, u.url, u.hostId, u.depth, u.state, u.priority, u.parentId, u.redirects, u.reason);
    return Number(info.lastInsertRowid);
  }

  nextQueued(hostId: number): QueuedUrl | undefined {
    return this.#nextQueued.get(hostId) as QueuedUrl | undefined;
  }

  setState(id: number, state: UrlStateValue, reason: string | null = null): void {
    this.#setState.run(state, reason, id);
  }

  /** Back to the queue after a transient failure, counting the attempt. */
  requeueAfterFailure(id: number, reason: string): void {
    this.#requeue.run(reason, id);
  }

  get(id: number): (QueuedUrl & { state: UrlStateValue; parentId: number | null; reason: string | null }) | undefined {
    return this.#get.get(id) as (QueuedUrl & { state: UrlStateValue; parentId: number | null; reason: string | null }) | undefined;
  }

  /** After a crash, URLs that were in flight go back to the queue. Returns how many. */
  resetInflight(): number {
    return this.#resetInflight.run().changes;
  }

  queuedCountsByHost(): Map<number, number> {
    const rows = this.#queuedByHost.all() as { hostId: number; n: number }[];
    return new Map(rows.map((r) => [r.hostId, r.n]));
  }

  countsByState(): Map<UrlStateValue, number> {
    const rows = this.#countByState.all() as { state: UrlStateValue; n: number }[];
    return new Map(rows.map((r) => [r.state, r.n]));
  }

  /** Ends every queued URL of a host at once (robots.txt unavailable, host budget spent). */
  closeQueuedOfHost(hostId: number, state: UrlStateValue, reason: string): number {
    return this.#closeQueuedOfHost.run(state, reason, hostId).changes;
  }
}
