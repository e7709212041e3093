import { SessionJar, type CookieJarSink } from '../net/cookie-jar.ts';
import type { ImportedCookie } from '../net/cookies-txt.ts';
import { writeTransaction, type Db, type ReadonlyDb } from './database.ts';

/** The collection's cookie jar (table `cookies`): each cookie as the jar serialised it, written as the jar changes. */
export class CookieStore implements CookieJarSink {
  readonly #put;
  readonly #remove;

  constructor(db: Db) {
    this.#put = db.prepare('INSERT INTO cookies (domain, path, name, cookie) VALUES (?, ?, ?, ?) ON CONFLICT (domain, path, name) DO UPDATE SET cookie = excluded.cookie');
    this.#remove = db.prepare('DELETE FROM cookies WHERE domain = ? AND path = ? AND name = ?');
  }

  put(domain: string, path: string, name: string, serialized: string): void {
    this.#put.run(domain, path, name, serialized);
  }

  remove(domain: string, path: string, name: string): void {
    this.#remove.run(domain, path, name);
  }
}

/** Every stored cookie, serialised, for a SessionJar to load. */
export function storedCookies(db: ReadonlyDb): string[] {
  return db.prepare('SELECT cookie FROM cookies').pluck().all() as string[];
}

/** Forgets the whole session; returns how many cookies it held. */
export function clearCookies(db: Db): number {
  return db.prepare('DELETE FROM cookies').run().changes;
}

/** Adds a cookies.txt's cookies to the collection's jar, all or none. */
export function importCookies(db: Db, cookies: readonly ImportedCookie[]): void {
  writeTransaction(db, () => new SessionJar(storedCookies(db), new CookieStore(db)).addImported(cookies));
}

/** The collection's session, read without writing (a jar loaded without a sink). */
export function storedSession(db: ReadonlyDb): SessionJar {
  return new SessionJar(storedCookies(db));
}
