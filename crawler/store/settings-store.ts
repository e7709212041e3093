import { CollectionError } from '../errors.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../protocol/settings.ts';
import { validateSettings } from '../settings.ts';
import type { Db, ReadonlyDb } from './database.ts';

const KEY = 'crawl';

/**
 * What a collection saved before a setting existed did, where that differs from the new
 * default: such a crawl read no documents, and its resume and its lab replay go on so.
 */
const BEFORE_SETTING_EXISTED: Partial<CrawlSettings> = { documents: 'none' };

/** Reads the crawl settings stored in a collection, filling in defaults added since it was written. */
export function loadSettings(db: ReadonlyDb): CrawlSettings | undefined {
  const raw = db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(KEY) as string | undefined;
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new CollectionError('the stored crawl settings are corrupt', { key: KEY }, { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null) throw new CollectionError('the stored crawl settings are corrupt', { key: KEY });
  return validateSettings({ ...DEFAULT_SETTINGS, ...BEFORE_SETTING_EXISTED, ...(parsed as Partial<CrawlSettings>) } as CrawlSettings);
}

export function saveSettings(db: Db, settings: CrawlSettings): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    KEY,
    JSON.stringify(settings),
  );
}

/** The settings key of a refresh in progress: when it began, so that a refresh resumed after a stop or a kill goes on from there. */
const REFRESH_KEY = 'refresh_since';

/** When the refresh in progress began (epoch ms), or undefined when none is. */
export function refreshInProgress(db: ReadonlyDb): number | undefined {
  const raw = db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(REFRESH_KEY) as string | undefined;
  const since = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(since) ? since : undefined;
}

/** Notes a refresh beginning at `since`. */
export function beginRefresh(db: Db, since: number): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(REFRESH_KEY, String(since));
}

/** The refresh ended: the next one starts afresh. */
export function endRefresh(db: Db): void {
  db.prepare('DELETE FROM settings WHERE key = ?').run(REFRESH_KEY);
}
