import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrawlEngine, type RunOutcome } from '../../crawler/engine/engine.ts';
import { DEFAULT_SETTINGS, type CrawlSettings } from '../../crawler/protocol/settings.ts';
import { validateSettings } from '../../crawler/settings.ts';
import { openCollection, type Db } from '../../crawler/store/database.ts';
import { saveSettings } from '../../crawler/store/settings-store.ts';

/** Settings for loopback tests: fast timeouts, no politeness wait unless a test asks for one. */
export function testSettings(seeds: string[], overrides: Partial<CrawlSettings> = {}): CrawlSettings {
  return validateSettings({
    ...DEFAULT_SETTINGS,
    query: 'test',
    seeds,
    delayMs: 0,
    delayFactor: 0,
    connectTimeoutMs: 1000,
    headersTimeoutMs: 1000,
    bodyIdleTimeoutMs: 1000,
    totalTimeoutMs: 3000,
    robotsRetryMs: 50,
    maxRetries: 1,
    // Tests count the requests a crawl makes; the soft-404 probe (one more per host) is tested on its own.
    probeSoft404: false,
    // The tests' loopback sites are reached direct, whatever proxy the environment names.
    proxy: 'none',
    // A test that renders, or fetches page requisites, says so: without them, request counts are exact.
    render: 'never',
    requisites: 'none',
    ...overrides,
  });
}

export interface CrawlRun {
  db: Db;
  dbPath: string;
  outcome: RunOutcome;
  engine: CrawlEngine;
}

export function tempDir(prefix = 'forager-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a crawl to its end in a fresh collection; the caller closes db and removes the dir. */
export async function crawlOnce(dir: string, settings: CrawlSettings): Promise<CrawlRun> {
  const dbPath = join(dir, 'crawl.db');
  const db = openCollection(dbPath, { create: true });
  saveSettings(db, settings);
  const engine = new CrawlEngine(db, settings);
  const outcome = await engine.run();
  return { db, dbPath, outcome, engine };
}

export interface UrlRecord {
  url: string;
  state: number;
  reason: string | null;
  depth: number;
}

export function urlRecord(db: Db, url: string): UrlRecord | undefined {
  return db.prepare('SELECT url, state, reason, depth FROM urls WHERE url = ?').get(url) as UrlRecord | undefined;
}
