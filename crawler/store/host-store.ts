import type { Db } from './database.ts';

export interface HostRow {
  id: number;
  origin: string;
  robotsStatus: number | null;
  robotsFetchedAt: number | null;
  robotsFailures: number;
  pagesFetched: number;
  soft404Probed: number;
  /** The soft-404 simhash as decimal text (an exact 64-bit integer): null when there is none. */
  soft404Simhash: string | null;
}

/**
 * The origin every out-of-scope URL is filed under. Such URLs are recorded (as skipped, so
 * the seen test knows them) but never fetched, so their origins get no row of their own: a
 * page linking to ten thousand sites adds one row, not ten thousand.
 */
export const OUT_OF_SCOPE_ORIGIN = 'out-of-scope:';

/** The hosts table. Politeness and robots.txt are kept per origin (scheme, host and port). */
export class HostStore {
  readonly #db: Db;
  readonly #byOrigin;
  readonly #insert;
  readonly #all;
  readonly #saveRobots;
  readonly #countPage;
  readonly #robotsBody;
  readonly #saveSoft404;
  readonly #idCache = new Map<string, number>();

  constructor(db: Db) {
    this.#db = db;
    this.#byOrigin = db.prepare('SELECT id FROM hosts WHERE origin = ?').pluck();
    this.#insert = db.prepare('INSERT INTO hosts (origin) VALUES (?)');
    this.#all = db.prepare(
      `SELECT id, origin, robots_status AS robotsStatus, robots_fetched_at AS robotsFetchedAt,
              robots_failures AS robotsFailures, pages_fetched AS pagesFetched,
              soft404_probed AS soft404Probed, CAST(soft404_simhash AS TEXT) AS soft404Simhash FROM hosts`,
    );
    this.#saveRobots = db.prepare('UPDATE hosts SET robots_status = ?, robots_body = ?, robots_fetched_at = ?, robots_failures = ? WHERE id = ?');
    this.#countPage = db.prepare('UPDATE hosts SET pages_fetched = pages_fetched + 1 WHERE id = ?');
    this.#robotsBody = db.prepare('SELECT robots_body FROM hosts WHERE id = ?').pluck();
    this.#saveSoft404 = db.prepare('UPDATE hosts SET soft404_probed = 1, soft404_simhash = ? WHERE id = ?');
  }

  idFor(origin: string): number {
    const cached = this.#idCache.get(origin);
    if (cached !== undefined) return cached;
    const id = (this.#byOrigin.get(origin) as number | undefined) ?? Number(this.#insert.run(origin).lastInsertRowid);
    this.#idCache.set(origin, id);
    return id;
  }

  /** The row every out-of-scope URL is filed under. */
  outOfScopeId(): number {
    return this.idFor(OUT_OF_SCOPE_ORIGIN);
  }

  /** The id of a known origin, without creating one. */
  find(origin: string): number | undefined {
    return this.#idCache.get(origin) ?? (this.#byOrigin.get(origin) as number | undefined);
  }

  /** Records the outcome of the host's soft-404 probe. */
  saveSoft404(id: number, simhash: bigint | null): void {
    this.#saveSoft404.run(simhash, id);
  }

  /** A host's stored robots.txt, read when the host first needs it rather than with every host at a run's start. */
  robotsBody(id: number): Buffer | null {
    return (this.#robotsBody.get(id) as Buffer | null | undefined) ?? null;
  }

  /** Every host that may be crawled, without its robots.txt body. */
  all(): HostRow[] {
    return (this.#all.all() as HostRow[]).filter((row) => row.origin !== OUT_OF_SCOPE_ORIGIN);
  }

  saveRobots(id: number, status: number | null, body: Buffer | null, fetchedAt: number, failures: number): void {
    this.#saveRobots.run(status, body, fetchedAt, failures, id);
  }

  /** Runs fn in one transaction (nested: a savepoint), so that what it writes is stored together. */
  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  countPageFetched(id: number): void {
    this.#countPage.run(id);
  }
}
