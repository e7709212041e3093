import type { Db } from './database.ts';
import { UrlState } from './url-state.ts';

/** A stored page that may be revisited, with what the revisit policy reads. */
export interface RevisitCandidate {
  urlId: number;
  url: string;
  hostId: number;
  origin: string;
  /** urls.kind: 0 for a page, else a site resource. */
  kind: number;
  firstFetchedAt: number;
  checkedAt: number;
  revisits: number;
  changes: number;
  relevance: number | null;
  hot: number;
}

/** The URL states a stored page's URL may be revisited from: fetched, or failed with a response (a 5xx that ran out of retries). */
const REVISITABLE = `u.state IN (${UrlState.fetched}, ${UrlState.failed})`;
const CANDIDATE_COLUMNS = `u.id AS urlId, u.url, u.host_id AS hostId, h.origin, u.kind, coalesce(p.first_fetched_at, p.fetched_at) AS firstFetchedAt,
  coalesce(p.checked_at, p.fetched_at) AS checkedAt, p.revisit_count AS revisits, p.change_count AS changes, p.relevance, p.hot`;

/**
 * Which stored pages are due for a revisit, and their URLs' passage through the frontier. A
 * page waiting for its revisit is a queued URL that has a pages row: after a kill the next
 * run finds the revisits still to make as it finds any queued URL.
 */
export class RevisitStore {
  readonly #due;
  readonly #waiting;
  readonly #queue;
  readonly #unqueue;
  readonly #unqueueOne;
  readonly #nextDue;
  readonly #totals;

  constructor(db: Db) {
    this.#due = db.prepare(
      `SELECT ${CANDIDATE_COLUMNS} FROM pages p JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id
       WHERE coalesce(p.checked_at, p.fetched_at) < ? AND ${REVISITABLE}`,
    );
    this.#waiting = db.prepare(
      `SELECT ${CANDIDATE_COLUMNS} FROM pages p JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id WHERE u.state = ${UrlState.queued}`,
    );
    this.#queue = db.prepare(`UPDATE urls SET state = ${UrlState.queued}, attempts = 0 WHERE id = ?`);
    this.#unqueue = db.prepare(
      `UPDATE urls SET state = ${UrlState.fetched} WHERE state = ${UrlState.queued} AND id IN (SELECT url_id FROM pages)`,
    );
    this.#unqueueOne = db.prepare(`UPDATE urls SET state = ${UrlState.fetched} WHERE id = ? AND state = ${UrlState.queued} AND id IN (SELECT url_id FROM pages)`);
    this.#nextDue = db.prepare(`SELECT min(coalesce(p.checked_at, p.fetched_at)) FROM pages p JOIN urls u ON u.id = p.url_id WHERE ${REVISITABLE}`).pluck();
    this.#totals = db.prepare(
      `SELECT coalesce(sum(revisit_count), 0) AS checks, coalesce(sum(change_count), 0) AS changes,
              coalesce(sum(max(0, coalesce(checked_at, fetched_at) - coalesce(first_fetched_at, fetched_at))), 0) AS spanMs
         FROM pages WHERE revisit_count > 0`,
    );
  }

  /** Stored pages last checked before `before` whose URLs may be revisited (not robots-blocked, not waiting already). */
  due(before: number): RevisitCandidate[] {
    return this.#due.all(before) as RevisitCandidate[];
  }

  /** Stored pages already queued for a revisit (by a run that was stopped or killed). */
  waiting(): RevisitCandidate[] {
    return this.#waiting.all() as RevisitCandidate[];
  }

  /** Every revisit of the collection's pages added up, for its pooled change rate (revisit-policy.ts pooledRate). */
  totals(): { checks: number; changes: number; spanMs: number } {
    return this.#totals.get() as { checks: number; changes: number; spanMs: number };
  }

  /** The URL joins the queue for its revisit. The caller keeps the URL store's tally right (UrlStore.recount). */
  queue(urlId: number): void {
    this.#queue.run(urlId);
  }

  /** Revisits a refresh did not make go back to being fetched pages. Returns how many. */
  unqueueAll(): number {
    return this.#unqueue.run().changes;
  }

  /** One page's waiting revisit is called off (an exclude rule now refuses its URL). The caller keeps the URL store's tally right. */
  unqueue(urlId: number): void {
    this.#unqueueOne.run(urlId);
  }

  /** When the page checked longest ago was checked, or undefined without revisitable pages. */
  oldestCheck(): number | undefined {
    return (this.#nextDue.get() as number | null) ?? undefined;
  }
}
