import type { ForeignLink } from '../engine/run-policy.ts';
import type { Db } from '../store/database.ts';
import type { SentLink } from './link-streams.ts';

/*
 * A shard's outbox of links to other partitions. A link is written, with its destination
 * partition, in the transaction that stores the page it is on, and sent to Redis afterwards;
 * a worker killed in between sends it when the partition is opened again, by whichever
 * worker. Sent rows are deleted only after Redis took them, so a link is sent at least once.
 * Links for a destination that cannot take them (its stream is full) wait here, on disk,
 * while the links for every other destination are sent.
 */

export interface OutboxBatch {
  links: SentLink[];
  /** The rows read, to delete once sent: rows held for a blocked destination may lie between them. */
  ids: number[];
}

/** Destinations to hold links for: none. */
const NONE: ReadonlySet<number> = new Set();

const LINK_COLUMNS = 'o.id, o.url, o.depth, o.anchor, o.context, p.relevance';

type OutboxRow = { id: number; url: string; depth: number; anchor: string; context: string; relevance: number | null };

export class ShardOutbox {
  readonly #insert;
  readonly #readOldest;
  readonly #readAllowed;
  readonly #delete;
  readonly #count;
  readonly #countHeld;
  readonly #destinationOf: (url: string) => number;
  /** Rows may be waiting: set by add() (and at open, for rows a killed worker left), cleared once a read finds none. */
  #mayHaveRows = true;
  /** The blocked destinations (as a key) with which the last read found nothing to send: every row waiting is held for them. Cleared by add(). */
  #onlyHeldFor: string | undefined;

  /** `db` is a shard: its cluster_outbox table is made by store/migrations.ts. */
  constructor(db: Db, destinationOf: (url: string) => number) {
    this.#destinationOf = destinationOf;
    this.#insert = db.prepare('INSERT INTO cluster_outbox (url, parent_id, depth, anchor, context, destination) VALUES (?, ?, ?, ?, ?, ?)');
    // The parent page's relevance travels with the link: it is in the shard by the time the page's transaction commits.
    this.#readOldest = db.prepare(`SELECT ${LINK_COLUMNS} FROM cluster_outbox o LEFT JOIN pages p ON p.url_id = o.parent_id ORDER BY o.id LIMIT :limit`);
    // The destinations present, found by skipping along the destination index (one seek each); for each that is not
    // blocked, its oldest rows (at most `limit`); and the oldest of those: the rows held for blocked destinations are
    // never read, however many they are.
    this.#readAllowed = db.prepare(`WITH RECURSIVE present(d) AS (
        SELECT min(destination) FROM cluster_outbox
        UNION ALL SELECT (SELECT min(destination) FROM cluster_outbox WHERE destination > present.d) FROM present WHERE present.d IS NOT NULL
      )
      SELECT ${LINK_COLUMNS} FROM present
      CROSS JOIN cluster_outbox o ON o.id IN (SELECT id FROM cluster_outbox WHERE destination = present.d ORDER BY id LIMIT :limit)
      LEFT JOIN pages p ON p.url_id = o.parent_id
      WHERE present.d NOT IN (SELECT value FROM json_each(:blocked)) ORDER BY o.id LIMIT :limit`);
    this.#delete = db.prepare('DELETE FROM cluster_outbox WHERE id IN (SELECT value FROM json_each(?))');
    this.#count = db.prepare('SELECT count(*) FROM cluster_outbox').pluck();
    this.#countHeld = db.prepare('SELECT destination, count(*) AS links FROM cluster_outbox WHERE destination IN (SELECT value FROM json_each(?)) GROUP BY destination');
    this.#fillDestinations(db);
  }

  /** Rows written before the outbox knew destinations (schema 11) get theirs, once, as the shard opens. */
  #fillDestinations(db: Db): void {
    const rows = db.prepare('SELECT id, url FROM cluster_outbox WHERE destination IS NULL').all() as { id: number; url: string }[];
    if (rows.length === 0) return;
    const update = db.prepare('UPDATE cluster_outbox SET destination = ? WHERE id = ?');
    db.transaction(() => {
      for (const row of rows) update.run(this.#destinationOf(row.url), row.id);
    })();
  }

  /** Called in the page's write transaction. */
  add(link: ForeignLink): void {
    this.#insert.run(link.url, link.parentId, link.depth, link.anchor, link.context, this.#destinationOf(link.url));
    this.#mayHaveRows = true;
    this.#onlyHeldFor = undefined;
  }

  /** The oldest links waiting for destinations not `blocked`, or undefined when there are none. */
  next(limit: number, blocked: ReadonlySet<number> = NONE): OutboxBatch | undefined {
    // Asked every tick for every open shard: most have sent everything already.
    if (!this.#mayHaveRows) return undefined;
    const key = blocked.size === 0 ? undefined : keyOf(blocked);
    if (key !== undefined && key === this.#onlyHeldFor) return undefined;
    const rows = (key === undefined ? this.#readOldest.all({ limit }) : this.#readAllowed.all({ limit, blocked: JSON.stringify([...blocked]) })) as OutboxRow[];
    if (rows.length === 0) {
      if (key === undefined) this.#mayHaveRows = false;
      else this.#onlyHeldFor = key;
      return undefined;
    }
    return {
      links: rows.map((r) => ({ url: r.url, depth: r.depth, anchor: r.anchor, context: r.context, isSeed: false, ...(r.relevance === null ? {} : { parentRelevance: r.relevance }) })),
      ids: rows.map((r) => r.id),
    };
  }

  /** Redis has the batch's links: its rows go, and only those. */
  sent(batch: OutboxBatch): void {
    this.#delete.run(JSON.stringify(batch.ids));
  }

  get size(): number {
    return this.#mayHaveRows ? (this.#count.get() as number) : 0;
  }

  /** Links waiting for each of the `blocked` destinations that has some. */
  held(blocked: ReadonlySet<number>): Map<number, number> {
    if (blocked.size === 0 || !this.#mayHaveRows) return new Map();
    const rows = this.#countHeld.all(JSON.stringify([...blocked])) as { destination: number; links: number }[];
    return new Map(rows.map((r) => [r.destination, r.links]));
  }
}

function keyOf(blocked: ReadonlySet<number>): string {
  return [...blocked].sort((a, b) => a - b).join(',');
}
