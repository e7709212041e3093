import { CollectionError } from '../errors.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../protocol/settings.ts';
import { validateSettings } from '../settings.ts';
import type { Db, ReadonlyDb } from './database.ts';

const KEY = 'crawl';

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
  return validateSettings({ ...DEFAULT_SETTINGS, ...(parsed as Partial<CrawlSettings>) } as CrawlSettings);
}

export function saveSettings(db: Db, settings: CrawlSettings): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    KEY,
    JSON.stringify(settings),
  );
}
