import type { ForeignLink } from '../engine/run-policy.ts';
import type { Db } from '../store/database.ts';
import type { SentLink } from './link-streams.ts';

/*
 * A shard's outbox of links to other partitions. A link is written in the transaction that
 * stores the page it is on, and sent to Redis afterwards; a worker killed in between sends it
 * when the partition is opened again, by whichever worker. Sent rows are deleted only after
 * Redis took them, so a link is sent at least once.
 */

export interface OutboxBatch {
  links: SentLink[];
  /** The last row read: delete up to it once sent. */
  lastId: number;
}

export class ShardOutbox {
  readonly #insert;
  readonly #read;
  readonly #delete;
  readonly #count;
  /** Rows may be waiting: set by add() (and at open, for rows a killed worker left), cleared once a read finds none. */
  #mayHaveRows = true;

  /** `db` is a shard: its cluster_outbox table is made by store/migrations.ts. */
  constructor(db: Db) {
    this.#insert = db.prepare('INSERT INTO cluster_outbox (url, parent_id, depth, anchor, context) VALUES (?, ?, ?, ?, ?)');
    // The parent page's relevance travels with the link: it is in the shard by the time the page's transaction commits.
    this.#read = db.prepare(`SELECT o.id, o.url, o.depth, o.anchor, o.context, p.relevance
      FROM cluster_outbox o LEFT JOIN pages p ON p.url_id = o.parent_id ORDER BY o.id LIMIT ?`);
    this.#delete = db.prepare('DELETE FROM cluster_outbox WHERE id <= ?');
    this.#count = db.prepare('SELECT count(*) FROM cluster_outbox').pluck();
  }

  /** Called in the page's write transaction. */
  add(link: ForeignLink): void {
    this.#insert.run(link.url, link.parentId, link.depth, link.anchor, link.context);
    this.#mayHaveRows = true;
  }

  /** The oldest links waiting, or undefined when there are none. */
  next(limit: number): OutboxBatch | undefined {
    // Asked every tick for every open shard: most have sent everything already.
    if (!this.#mayHaveRows) return undefined;
    const rows = this.#read.all(limit) as { id: number; url: string; depth: number; anchor: string; context: string; relevance: number | null }[];
    if (rows.length === 0) {
      this.#mayHaveRows = false;
      return undefined;
    }
    return {
      links: rows.map((r) => ({ url: r.url, depth: r.depth, anchor: r.anchor, context: r.context, isSeed: false, ...(r.relevance === null ? {} : { parentRelevance: r.relevance }) })),
      lastId: (rows[rows.length - 1] as { id: number }).id,
    };
  }

  sent(batch: OutboxBatch): void {
    this.#delete.run(batch.lastId);
  }

  get size(): number {
    return this.#mayHaveRows ? (this.#count.get() as number) : 0;
  }
}
