import { z } from 'zod';
import { ForagerError } from '../errors.ts';
import { requireStrategy } from '../ordering/registry.ts';
import { DEFAULT_SETTINGS, validateSettings, type CrawlSettings } from '../settings.ts';
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

/** The types of every setting; unknown keys (from a newer Forager) are dropped, defaults fill the missing ones. */
const storedSettings = z.object({
  query: z.string(),
  seeds: z.array(z.string()),
  maxPages: z.number().optional(),
  strategy: z.string().optional(),
  delayMs: z.number().optional(),
  delayFactor: z.number().optional(),
  maxCrawlDelayMs: z.number().optional(),
  concurrency: z.number().optional(),
  scope: z.enum(['hosts', 'domains', 'any']).optional(),
  allowPrivate: z.boolean().optional(),
  userAgent: z.string().optional(),
  maxDepth: z.number().optional(),
  maxPagesPerHost: z.number().optional(),
  maxUrlLength: z.number().optional(),
  maxBodyBytes: z.number().optional(),
  maxDecodedBytes: z.number().optional(),
  connectTimeoutMs: z.number().optional(),
  headersTimeoutMs: z.number().optional(),
  bodyIdleTimeoutMs: z.number().optional(),
  totalTimeoutMs: z.number().optional(),
  maxRetries: z.number().optional(),
  robotsRetryMs: z.number().optional(),
  robotsMaxAttempts: z.number().optional(),
  maxLinksPerPage: z.number().optional(),
  randomSeed: z.number().optional(),
  hotPredicate: z.string().nullable().optional(),
  hotThreshold: z.number().nullable().optional(),
});

function checked(settings: CrawlSettings, waczPath: string): CrawlSettings {
  try {
    requireStrategy(settings.strategy);
    return validateSettings(settings);
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

/**
 * The collection's settings: x-forager-settings when present (checked like stored settings);
 * otherwise the defaults with x-forager-query and the first page as the seed, so that the
 * collection can still be searched and resumed.
 */
export function importedSettings(info: ForagerInfo, firstPageUrl: string | undefined, waczPath: string): CrawlSettings {
  const raw = info.settingsJson === null ? null : parseSettingsJson(info.settingsJson, waczPath);
  // A collection exported before it had settings says "null".
  if (raw !== null) {
    const parsed = storedSettings.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ImportError(`the crawl settings in ${waczPath} are not usable: ${issue?.path.join('.') || 'settings'}: ${issue?.message ?? 'invalid'}`, { path: waczPath });
    }
    const stored = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
    return checked({ ...DEFAULT_SETTINGS, ...stored } as CrawlSettings, waczPath);
  }
  if (info.query === null) {
    throw new ImportError(`${waczPath} was not written by Forager: its warcinfo names no x-forager-query, and import rebuilds Forager's own collections only`, { path: waczPath });
  }
  if (firstPageUrl === undefined) throw new ImportError(`${waczPath} holds no pages and no crawl settings: nothing to import`, { path: waczPath });
  return checked({ ...DEFAULT_SETTINGS, query: info.query, seeds: [firstPageUrl] }, waczPath);
}
