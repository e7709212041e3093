import type { UrlKind } from '../parse/url-kind.ts';
import type { Db, ReadonlyDb } from './database.ts';
import { urlKindCode, urlKindOf } from './url-kind.ts';
import { UrlState, type UrlStateValue } from './url-state.ts';

export interface NewUrl {
  fp: bigint;
  url: string;
  hostId: number;
  depth: number;
  state: UrlStateValue;
  parentId: number | null;
  redirects: number;
  reason: string | null;
  /** Default 'page'. */
  kind?: UrlKind;
}

export interface QueuedUrl {
  id: number;
  url: string;
  hostId: number;
  depth: number;
  redirects: number;
  attempts: number;
  /** What the URL is expected to hold: it decides how the response is fetched and parsed. */
  kind: UrlKind;
  /** True when the URL has a stored page: its fetch is a revisit (set by queued(); absent means not known to be one). */
  revisit?: boolean;
}

/** A site resource that no page listed (a robots.txt Sitemap line, a seed host's /sitemap.xml). */
export interface RootResource {
  id: number;
  url: string;
  depth: number;
  kind: UrlKind;
}

/** Seeds are the URLs stored at depth 0 with no parent; ids give discovery order. */
const SEED_IDS = 'SELECT id FROM urls WHERE depth = 0 AND parent_id IS NULL ORDER BY id';
/** Site resources admitted outside any page (robots.txt Sitemap lines, a seed host's /sitemap.xml), in discovery order. */
const ROOT_RESOURCES = 'SELECT id, url, depth, kind FROM urls WHERE kind <> 0 AND parent_id IS NULL AND depth > 0 ORDER BY id';

/** The seeds' ids, for readers that may hold a collection of an older schema as it is (UrlStore needs the current one). */
export function storedSeedIds(db: ReadonlyDb): number[] {
  return db.prepare(SEED_IDS).pluck().all() as number[];
}

/** Site resources admitted outside any page, in discovery order, for readers (schema 3 and later). */
export function storedRootResources(db: ReadonlyDb): RootResource[] {
  return rootResourcesOf(db.prepare(ROOT_RESOURCES).all() as RootResourceRow[]);
}

type RootResourceRow = Omit<RootResource, 'kind'> & { kind: number };

function rootResourcesOf(rows: RootResourceRow[]): RootResource[] {
  return rows.map((r) => ({ ...r, kind: urlKindOf(r.kind) }));
}

export interface FrontierEntry {
  id: number;
  hostId: number;
}

/** The urls table: the persistent seen set and the frontier's state. */
export class UrlStore {
  readonly #findByFp;
  readonly #insert;
  readonly #queuedById;
  readonly #frontier;
  readonly #seedIds;
  readonly #setState;
  readonly #requeue;
  readonly #get;
  #tally: Map<UrlStateValue, number> | undefined;
  readonly #resetInflight;
  readonly #countByState;
  readonly #promoteKind;
  readonly #resourceKinds;
  readonly #rootResources;
  readonly #setDepth;

  constructor(db: Db) {
    this.#findByFp = db.prepare('SELECT id FROM urls WHERE host_id = ? AND fp = ?').pluck();
    this.#insert = db.prepare(
      'INSERT INTO urls (fp, url, host_id, depth, state, parent_id, redirects, reason, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#queuedById = db.prepare(
      `SELECT id, url, host_id AS hostId, depth, redirects, attempts, kind, EXISTS (SELECT 1 FROM pages p WHERE p.url_id = urls.id) AS revisit
       FROM urls WHERE id = ? AND state = ${UrlState.queued}`,
    );
    this.#seedIds = db.prepare(SEED_IDS).pluck();
    this.#frontier = db.prepare(`SELECT id, host_id AS hostId FROM urls WHERE state = ${UrlState.queued} AND id > ? ORDER BY id LIMIT ?`);
    this.#setState = db.prepare('UPDATE urls SET state = ?, reason = ? WHERE id = ?');
    this.#requeue = db.prepare(`UPDATE urls SET state = ${UrlState.queued}, attempts = attempts + 1, reason = ? WHERE id = ?`);
    this.#resetInflight = db.prepare(`UPDATE urls SET state = ${UrlState.queued} WHERE state = ${UrlState.inflight}`);
    this.#countByState = db.prepare('SELECT state, count(*) AS n FROM urls GROUP BY state');
    this.#get = db.prepare('SELECT id, url, host_id AS hostId, depth, state, parent_id AS parentId, redirects, attempts, reason, kind FROM urls WHERE id = ?');
    this.#promoteKind = db.prepare(`UPDATE urls SET kind = ? WHERE id = ? AND kind = 0 AND state = ${UrlState.queued}`);
    this.#resourceKinds = db.prepare('SELECT id, kind FROM urls WHERE kind <> 0').raw();
    this.#rootResources = db.prepare(ROOT_RESOURCES);
    this.#setDepth = db.prepare('UPDATE urls SET depth = ? WHERE id = ?');
  }

  findIdByFingerprint(hostId: number, fp: bigint): number | undefined {
    return this.#findByFp.get(hostId, fp) as number | undefined;
  }

  insert(u: NewUrl): number {
    const info = this.#insert.run(u.fp, u.url, u.hostId, u.depth, u.state, u.parentId, u.redirects, u.reason, urlKindCode(u.kind ?? 'page'));
    this.#count(u.state, 1);
    return Number(info.lastInsertRowid);
  }

  /** The URL with this id if it is still queued. */
  queued(id: number): QueuedUrl | undefined {
    const row = this.#queuedById.get(id) as (Omit<QueuedUrl, 'kind' | 'revisit'> & { kind: number; revisit: number }) | undefined;
    return row === undefined ? undefined : { ...row, kind: urlKindOf(row.kind), revisit: row.revisit === 1 };
  }

  /**
   * Makes a URL known as a page a site resource, while it is still waiting to be fetched (a
   * page linked to a sitemap before robots.txt named it). False when it was not changed.
   */
  promoteKind(id: number, kind: UrlKind): boolean {
    return this.#promoteKind.run(urlKindCode(kind), id).changes === 1;
  }

  /** The kind of every URL that is not an ordinary page (a few per site). */
  resourceKinds(): Map<number, UrlKind> {
    const rows = this.#resourceKinds.all() as [number, number][];
    return new Map(rows.map(([id, code]) => [id, urlKindOf(code)]));
  }

  /** Site resources admitted outside any page, in discovery order. */
  rootResources(): RootResource[] {
    return rootResourcesOf(this.#rootResources.all() as RootResourceRow[]);
  }

  /** The seeds' ids in discovery order: seeds are the URLs stored at depth 0 with no parent. */
  seedIds(): number[] {
    return this.#seedIds.all() as number[];
  }

  /** The next `limit` queued URLs after id `afterId`, in id order: the in-memory frontier is loaded a chunk at a time when a run starts. */
  frontierAfter(afterId: number, limit: number): FrontierEntry[] {
    return this.#frontier.all(afterId, limit) as FrontierEntry[];
  }

  /** Queued → in flight: the URL has been handed to the fetcher. */
  markInflight(id: number): void {
    this.#transition(id, UrlState.queued, UrlState.inflight, null);
  }

  /** In flight → its final state (fetched or failed). */
  finish(id: number, state: UrlStateValue, reason: string | null): void {
    this.#transition(id, UrlState.inflight, state, reason);
  }

  /** Queued → a state it ends in without being fetched (robots-blocked, skipped, failed). */
  passOver(id: number, state: UrlStateValue, reason: string): void {
    this.#transition(id, UrlState.queued, state, reason);
  }

  /** In flight → queued, when its request was cancelled. */
  returnToQueue(id: number): void {
    this.#transition(id, UrlState.inflight, UrlState.queued, null);
  }

  /** In flight → queued after a failure that was not the URL's (its proxy's): the reason is kept, no attempt counted. */
  requeueKeepingAttempts(id: number, reason: string): void {
    this.#transition(id, UrlState.inflight, UrlState.queued, reason);
  }

  /** In flight → queued after a transient failure, counting the attempt. */
  requeueAfterFailure(id: number, reason: string): void {
    this.#requeue.run(reason, id);
    this.#count(UrlState.inflight, -1);
    this.#count(UrlState.queued, 1);
  }

  /** Sets the depth a URL was found at (an import restores the crawl's own). */
  setDepth(id: number, depth: number): void {
    this.#setDepth.run(depth, id);
  }

  get(id: number): (QueuedUrl & { state: UrlStateValue; parentId: number | null; reason: string | null }) | undefined {
    const row = this.#get.get(id) as (Omit<QueuedUrl, 'kind'> & { kind: number; state: UrlStateValue; parentId: number | null; reason: string | null }) | undefined;
    return row === undefined ? undefined : { ...row, kind: urlKindOf(row.kind) };
  }

  /** After a crash, URLs that were in flight go back to the queue. Returns how many. */
  resetInflight(): number {
    const n = this.#resetInflight.run().changes;
    this.#count(UrlState.inflight, -n);
    this.#count(UrlState.queued, n);
    return n;
  }

  /** Other writers changed URL states in bulk (revisits queued or settled): the tally is counted again when next asked. */
  recount(): void {
    this.#tally = undefined;
  }

  /** URLs per state, counted from the table (a full scan). */
  countsByState(): Map<UrlStateValue, number> {
    const rows = this.#countByState.all() as { state: UrlStateValue; n: number }[];
    return new Map(rows.map((r) => [r.state, r.n]));
  }

  /** URLs per state, counted once and then kept up to date by this store's writes: cheap enough for live stats. */
  tally(): ReadonlyMap<UrlStateValue, number> {
    this.#tally ??= this.countsByState();
    return this.#tally;
  }

  #count(state: UrlStateValue, delta: number): void {
    if (this.#tally === undefined) return;
    this.#tally.set(state, (this.#tally.get(state) ?? 0) + delta);
  }

  #transition(id: number, from: UrlStateValue, to: UrlStateValue, reason: string | null): void {
    this.#setState.run(to, reason, id);
    this.#count(from, -1);
    this.#count(to, 1);
  }
}
