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

export interface RunTotals {
  pages: number;
  bytes: number;
  seconds: number;
  seenLookups: number;
  seenHits: number;
}

export function runTotals(db: Db): RunTotals {
  const row = db
    .prepare(
      `SELECT coalesce(sum(pages), 0) AS pages, coalesce(sum(bytes), 0) AS bytes,
              coalesce(sum(max(coalesce(ended_at, started_at) - started_at, 0)), 0) / 1000.0 AS seconds,
              coalesce(sum(seen_lookups), 0) AS seenLookups, coalesce(sum(seen_hits), 0) AS seenHits FROM runs`,
    )
    .get() as RunTotals;
  return row;
}
