import type { Db } from './database.ts';

export interface RunCounters {
  pages: number;
  bytes: number;
  seenLookups: number;
  seenHits: number;
}

/** The runs table: one row per engine run, updated as it goes so that a killed run still counts. */
export class RunStore {
  readonly #update;
  readonly #finish;
  readonly id: number;

  constructor(db: Db, startedAt: number) {
    this.id = Number(db.prepare('INSERT INTO runs (started_at) VALUES (?)').run(startedAt).lastInsertRowid);
    this.#update = db.prepare('UPDATE runs SET ended_at = ?, pages = ?, bytes = ?, seen_lookups = ?, seen_hits = ? WHERE id = ?');
    this.#finish = db.prepare('UPDATE runs SET outcome = ? WHERE id = ?');
  }

  update(now: number, c: RunCounters): void {
    this.#update.run(now, c.pages, c.bytes, c.seenLookups, c.seenHits, this.id);
  }

  finish(outcome: string): void {
    this.#finish.run(outcome, this.id);
  }
}
