import { ForagerError } from '../errors.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../protocol/settings.ts';
import { parseSettings } from '../settings.ts';
import { ImportError } from './import-error.ts';

/** What Forager writes in its warcinfo record: the driving query and the crawl settings as JSON. */
export interface ForagerInfo {
  query: string | null;
  settingsJson: string | null;
}

/** Reads an application/warc-fields block: one "name: value" per line. */
export function parseWarcFields(block: Buffer): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of block.toString('utf8').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
  }
  return fields;
}

export function foragerInfo(block: Buffer): ForagerInfo {
  const fields = parseWarcFields(block);
  return { query: fields.get('x-forager-query') || null, settingsJson: fields.get('x-forager-settings') || null };
}

/**
 * Checks settings read from an archive with the settings schema (protocol/settings.ts):
 * types and limits as for stored settings, unknown keys (from a newer Forager) dropped,
 * defaults for the missing ones, and a known strategy.
 */
function checked(settings: unknown, waczPath: string): CrawlSettings {
  try {
    return parseSettings(settings);
  } catch (err) {
    if (!(err instanceof ForagerError)) throw err;
    throw new ImportError(`the crawl settings in ${waczPath} are not usable: ${err.message}`, { path: waczPath }, { cause: err });
  }
}

function parseSettingsJson(json: string, waczPath: string): unknown {
  try {
    return JSON.parse(json);
  } catch (err) {
    throw new ImportError(`the crawl settings in ${waczPath} are not valid JSON`, { path: waczPath }, { cause: err });
  }
}

/** Settings read from an archive, and the names of those made stricter than the archive said. */
export interface ImportedSettings {
  settings: CrawlSettings;
  tightened: (keyof CrawlSettings)[];
}

/**
 * An archive is not the user's word: whoever wrote it could ask a later resume to crawl
 * private addresses, hammer hosts, inflate bombs, or run a program of its choosing as the
 * browser. So private addresses are never allowed from an archive (the user turns them on
 * again knowingly), politeness is never below this machine's defaults, size caps never above
 * them, and the browser and the hosts a render may reach are this machine's own choice.
 */
function distrusted(settings: CrawlSettings): ImportedSettings {
  const safer: CrawlSettings = {
    ...settings,
    allowPrivate: false,
    delayMs: Math.max(settings.delayMs, DEFAULT_SETTINGS.delayMs),
    delayFactor: Math.max(settings.delayFactor, DEFAULT_SETTINGS.delayFactor),
    concurrency: Math.min(settings.concurrency, DEFAULT_SETTINGS.concurrency),
    maxBodyBytes: Math.min(settings.maxBodyBytes, DEFAULT_SETTINGS.maxBodyBytes),
    maxDecodedBytes: Math.min(settings.maxDecodedBytes, DEFAULT_SETTINGS.maxDecodedBytes),
    browserPath: DEFAULT_SETTINGS.browserPath,
    renderAllowHosts: settings.renderAllowHosts.length === 0 ? settings.renderAllowHosts : DEFAULT_SETTINGS.renderAllowHosts,
  };
  const tightened = (Object.keys(safer) as (keyof CrawlSettings)[]).filter((key) => safer[key] !== settings[key]);
  return { settings: safer, tightened };
}

/**
 * The collection's settings: x-forager-settings when present (checked like stored settings,
 * then made no less safe than this machine's defaults); otherwise the defaults with
 * x-forager-query and the first page as the seed, so that the collection can still be
 * searched and resumed.
 */
export function importedSettings(info: ForagerInfo, firstPageUrl: string | undefined, waczPath: string): ImportedSettings {
  const raw = info.settingsJson === null ? null : parseSettingsJson(info.settingsJson, waczPath);
  // A collection exported before it had settings says "null".
  if (raw !== null) {
    return distrusted(checked(raw, waczPath));
  }
  if (info.query === null) {
    throw new ImportError(`${waczPath} was not written by Forager: its warcinfo names no x-forager-query, and import rebuilds Forager's own collections only`, { path: waczPath });
  }
  if (firstPageUrl === undefined) throw new ImportError(`${waczPath} holds no pages and no crawl settings: nothing to import`, { path: waczPath });
  return { settings: checked({ ...DEFAULT_SETTINGS, query: info.query, seeds: [firstPageUrl] }, waczPath), tightened: [] };
}
