import { existsSync, rmSync } from 'node:fs';
import { CrawlEngine, type EngineOptions, type RunOutcome } from '../../engine/engine.ts';
import { CrawlPolicy, RefreshPolicy } from '../../engine/run-policy.ts';
import type { CrawlStats } from '../../protocol/crawl-stats.ts';
import { UsageError } from '../../errors.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../../protocol/settings.ts';
import { validateSettings } from '../../settings.ts';
import { openCollection, type Db } from '../../store/database.ts';
import { loadSettings, saveSettings } from '../../store/settings-store.ts';
import { readCookiesTxt } from '../../net/cookies-txt.ts';
import { importCookies } from '../../store/cookie-store.ts';
import { withWriterLock } from '../../store/writer-lock.ts';
import { integerOption, parseCommandArgs, requireOption } from '../args.ts';
import { applyFlags, booleanFlag, parseCrawlArgs, stringFlag, type CrawlFlags } from '../crawl-options.ts';
import { ProgressBar } from '../progress.ts';
import { seedsOfFlags } from '../seeds-file.ts';

/** Who writes, as a second writer is told. */
const CRAWL_WRITER = 'forager crawl (command line)';

function settingsForCrawl(db: Db, f: CrawlFlags, seeds: string[]): CrawlSettings {
  const stored = loadSettings(db);
  if (stored === undefined) {
    const query = requireOption('crawl', 'query', stringFlag(f, 'query'));
    if (seeds.length === 0) throw new UsageError('crawl: at least one --seed URL (or a --seeds-file) is required', { option: 'seed' });
    return applyFlags({ ...DEFAULT_SETTINGS, query, seeds }, f);
  }
  const query = stringFlag(f, 'query');
  if (query !== undefined && query !== stored.query) {
    throw new UsageError(`this collection was made for the query "${stored.query}"; use a new --db for "${query}"`, { stored: stored.query });
  }
  return applyFlags({ ...stored, seeds: [...new Set([...stored.seeds, ...seeds])] }, f);
}

export async function crawlCommand(argv: string[]): Promise<number> {
  const values = parseCrawlArgs(argv);
  const dbPath = requireOption('crawl', 'db', stringFlag(values, 'db'));
  // Both files are read before the collection is opened: a bad line in either leaves no collection behind.
  const seeds = seedsOfFlags(values);
  const cookiesFile = stringFlag(values, 'cookies');
  const cookies = cookiesFile === undefined ? [] : readCookiesTxt(cookiesFile);
  return withWriterLock(dbPath, CRAWL_WRITER, async () => {
    const isNew = !existsSync(dbPath);
    const db = openCollection(dbPath, { create: true });
    let settings: CrawlSettings;
    try {
      settings = settingsForCrawl(db, values, seeds);
      saveSettings(db, settings);
      importCookies(db, cookies);
    } catch (err) {
      db.close();
      // A crawl refused for its arguments must not leave an empty collection behind.
      if (isNew) for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
      throw err;
    }
    try {
      return await runEngine(db, dbPath, settings, booleanFlag(values, 'json') ?? false, { writer: CRAWL_WRITER, policy: new CrawlPolicy(settings, { locksCollection: false }) });
    } finally {
      db.close();
    }
  });
}

const RESUME_OPTIONS = {
  db: { type: 'string' },
  'max-pages': { type: 'string' },
  /** Never stored by an import: the user says it again for the collection in hand. */
  'allow-private': { type: 'boolean' },
  /** Another proxy (or `none`) for the rest of the crawl, e.g. after one paused it. */
  proxy: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function resumeCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('resume', argv, RESUME_OPTIONS);
  const dbPath = requireOption('resume', 'db', values.db);
  const maxPages = integerOption('max-pages', values['max-pages'], { min: 1 });
  return withWriterLock(dbPath, 'forager resume (command line)', async () => {
    const db = openCollection(dbPath, { create: false });
    try {
      const stored = loadSettings(db);
      if (stored === undefined) throw new UsageError(`${dbPath} holds no crawl to resume; start one with forager crawl`, { path: dbPath });
      const settings = validateSettings({ ...stored, maxPages: maxPages ?? stored.maxPages, allowPrivate: values['allow-private'] ?? stored.allowPrivate, proxy: values.proxy ?? stored.proxy });
      saveSettings(db, settings);
      return await runEngine(db, dbPath, settings, values.json ?? false, { writer: 'forager resume (command line)', policy: new CrawlPolicy(settings, { locksCollection: false }) });
    } finally {
      db.close();
    }
  });
}

/**
 * Runs the engine with a progress bar on a terminal, pausing cleanly on SIGINT or SIGTERM.
 * Calls `ended` with the outcome before reporting (a refresh notes whether it is over). The
 * caller holds the collection's writer lock (the policy takes none).
 */
export async function runEngine(
  db: Db,
  dbPath: string,
  settings: CrawlSettings,
  json: boolean,
  options: EngineOptions = {},
  ended?: (outcome: RunOutcome) => void,
): Promise<number> {
  const engine = new CrawlEngine(db, settings, { writer: 'forager crawl (command line)', ...options });
  const noticeAtStart = engine.renderNotice;
  if (noticeAtStart !== undefined && !json) process.stderr.write(`forager: note: pages are not rendered: ${noticeAtStart}\n`);
  let signals = 0;
  const onSignal = (): void => {
    signals++;
    if (signals === 1) engine.stop();
    else engine.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = !json && process.stderr.isTTY ? new ProgressBar(process.stderr, settings.maxPages) : undefined;
  progress?.start(() => engine.stats());
  let outcome: RunOutcome;
  try {
    outcome = await engine.run();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (engine.storeError === undefined) ended?.(outcome);
  const stats = engine.stats();
  progress?.stop(stats);
  report(dbPath, outcome, stats, json, options.policy instanceof RefreshPolicy);
  // A browser that would not start is found out mid-crawl.
  if (stats.renderNotice !== undefined && stats.renderNotice !== noticeAtStart && !json) process.stderr.write(`forager: note: pages are not rendered: ${stats.renderNotice}\n`);
  if (engine.storeError !== undefined) {
    // One line on stderr, as for every expected failure; nothing was failed or lost.
    process.stderr.write(`forager: crawl paused: ${engine.storeError.message}. Nothing was lost; once the collection can be written again, run: forager resume --db ${dbPath}\n`);
    return STORE_ERROR_EXIT;
  }
  if (engine.proxyError !== undefined) {
    process.stderr.write(`forager: crawl paused: ${engine.proxyError.message}. Its URLs stay queued; once the proxy answers again (or with another --proxy), run: forager resume --db ${dbPath}\n`);
    return PROXY_UNREACHABLE_EXIT;
  }
  return 0;
}

/** The exit code of a crawl that paused because its collection could not be written. */
const STORE_ERROR_EXIT = 3;
/** The exit code of a crawl that paused because its proxy failed every request. */
const PROXY_UNREACHABLE_EXIT = 4;

const OUTCOME_WORDS: Record<RunOutcome, string> = {
  budget: 'page budget reached',
  exhausted: 'frontier empty: nothing left to fetch in scope',
  stopped: 'paused',
  'store-error': 'paused: the collection could not be written',
  'proxy-unreachable': 'paused: the proxy failed every request',
};

function report(dbPath: string, outcome: RunOutcome, stats: CrawlStats, json: boolean, refresh: boolean): void {
  if (json) {
    const peakRssBytes = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(`${JSON.stringify({ outcome, ...stats, peakRssBytes })}\n`);
    return;
  }
  const lines = [
    `${OUTCOME_WORDS[outcome]}.`,
    `fetched ${stats.fetched}${stats.rendered > 0 ? ` (${stats.rendered} rendered)` : ''}, queued ${stats.queued}, failed ${stats.failed}, robots-blocked ${stats.robotsBlocked}, skipped ${stats.skipped}`,
    `${stats.pagesPerSecond.toFixed(1)} pages/s, seen-cache hit rate ${(stats.seenCacheHitRate * 100).toFixed(1)}%`,
  ];
  const r = stats.revisits;
  if (r !== undefined) {
    lines.push(`revisited ${r.notModified + r.identical + r.changed + r.gone}: ${r.notModified} not modified (304), ${r.identical} identical, ${r.changed} changed, ${r.gone} gone; ${(stats.bytesFetched / 1024).toFixed(0)} KiB downloaded`);
  }
  if (refresh) {
    if (outcome === 'stopped') lines.push(`continue the refresh with: forager refresh --db ${dbPath}`);
  } else if (outcome !== 'exhausted' && stats.queued > 0) lines.push(`continue with: forager resume --db ${dbPath}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
