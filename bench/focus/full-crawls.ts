/**
 * One full breadth-first crawl of each bench site (and of the cross-site sites together), stored once and replayed by the lab for
 * every topic and strategy. A stored crawl is reused while the Debian packages and the
 * crawler code that decides what is fetched and stored are unchanged; ordering and judging
 * code can change freely, since the lab re-judges and re-orders from the stored pages.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { ServedSite } from '../support/nginx-sites.ts';
import { runJsonChild, shebangNodeFlags } from '../support/child-run.ts';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const FORAGER = join(REPO_ROOT, 'bin', 'forager.js');
const CACHE_DIR = join(REPO_ROOT, 'bench-output', 'focus-crawls');
/** The folders whose code decides which URLs a crawl fetches and what it stores of them. */
const CRAWL_CODE = ['net', 'parse', 'engine', 'url', 'robots', 'store', 'frontier'].map((d) => join(REPO_ROOT, 'crawler', d));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]))
    .sort();
}

/** A key that changes when the sites' packages or the crawling code change. */
function crawlKey(packages: readonly string[]): string {
  const hash = createHash('sha256');
  const versions = spawnSync('dpkg-query', ['-W', '-f=${Package}=${Version}\\n', ...packages], { encoding: 'utf8' }).stdout ?? '';
  hash.update(versions);
  for (const dir of CRAWL_CODE) for (const file of filesUnder(dir)) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

export interface FullCrawl {
  site: string;
  db: string;
  /** Which served site each origin of the stored crawl was (ports change from run to run). */
  siteOfOrigin: Map<string, string>;
  /** True when it was crawled in this run (false: reused). */
  fresh: boolean;
  seconds: number;
}

function readSiteMap(path: string): Map<string, string> {
  return new Map(Object.entries(JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>));
}

/**
 * The stored full crawl of served sites seeded together (one site, or the cross-site set),
 * named `name`, crawling them first when no current one is stored. `maxPages` cuts it short
 * (smoke runs): the first pages of a breadth-first crawl are a small site of their own.
 */
export async function fullCrawl(name: string, packages: readonly string[], served: readonly ServedSite[], maxPages = 100_000): Promise<FullCrawl> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const db = join(CACHE_DIR, `${name}-${crawlKey(packages)}.db`);
  const sitesFile = `${db}.sites.json`;
  if (existsSync(db) && existsSync(sitesFile)) return { site: name, db, siteOfOrigin: readSiteMap(sitesFile), fresh: false, seconds: 0 };
  for (const old of readdirSync(CACHE_DIR)) if (old.startsWith(`${name}-`)) rmSync(join(CACHE_DIR, old), { force: true });
  const partial = `${db}.partial`;
  rmSync(partial, { force: true });
  const started = performance.now();
  await runJsonChild(
    process.execPath,
    [
      ...shebangNodeFlags(FORAGER), FORAGER, 'crawl', '--db', partial, '--query', 'full site', ...served.flatMap((s) => ['--seed', s.seed]), '--strategy', 'bfs',
      '--max-pages', String(maxPages), '--delay-ms', '0', '--delay-factor', '0', '--concurrency', '8', '--robots-retry-ms', '0', '--json',
    ],
    { cwd: REPO_ROOT, timeoutMs: 1_800_000, label: `full crawl of ${name}` },
  );
  // Fold the WAL into the file, so the file alone is the crawl and can be renamed.
  const handle = new Database(partial);
  handle.pragma('journal_mode = DELETE');
  handle.close();
  const siteOfOrigin = new Map(served.map((s) => [s.origin, s.name]));
  writeFileSync(sitesFile, JSON.stringify(Object.fromEntries(siteOfOrigin)));
  renameSync(partial, db);
  return { site: name, db, siteOfOrigin, fresh: true, seconds: (performance.now() - started) / 1000 };
}
