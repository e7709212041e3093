/**
 * One full breadth-first crawl of each bench site, stored once and replayed by the lab for
 * every topic and strategy. A stored crawl is reused while the Debian packages and the
 * crawler code that decides what is fetched and stored are unchanged; ordering and judging
 * code can change freely, since the lab re-judges and re-orders from the stored pages.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { BenchSite } from './sites.ts';
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

/** A key that changes when the site's packages or the crawling code change. */
function crawlKey(site: BenchSite): string {
  const hash = createHash('sha256');
  const versions = spawnSync('dpkg-query', ['-W', '-f=${Package}=${Version}\\n', ...site.packages], { encoding: 'utf8' }).stdout ?? '';
  hash.update(versions);
  for (const dir of CRAWL_CODE) for (const file of filesUnder(dir)) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

export interface FullCrawl {
  site: string;
  db: string;
  /** True when it was crawled in this run (false: reused). */
  fresh: boolean;
  seconds: number;
}

/** The stored full crawl of a served site, crawling it first when no current one is stored. */
export async function fullCrawl(site: BenchSite, served: ServedSite): Promise<FullCrawl> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const db = join(CACHE_DIR, `${site.key}-${crawlKey(site)}.db`);
  if (existsSync(db)) return { site: site.key, db, fresh: false, seconds: 0 };
  for (const old of readdirSync(CACHE_DIR)) if (old.startsWith(`${site.key}-`)) rmSync(join(CACHE_DIR, old), { force: true });
  const partial = `${db}.partial`;
  rmSync(partial, { force: true });
  const started = performance.now();
  await runJsonChild(
    process.execPath,
    [
      ...shebangNodeFlags(FORAGER), FORAGER, 'crawl', '--db', partial, '--query', 'full site', '--seed', served.seed, '--strategy', 'bfs',
      '--max-pages', '100000', '--delay-ms', '0', '--delay-factor', '0', '--concurrency', '8', '--robots-retry-ms', '0', '--json',
    ],
    { cwd: REPO_ROOT, timeoutMs: 1_800_000, label: `full crawl of ${site.key}` },
  );
  // Fold the WAL into the file, so the file alone is the crawl and can be renamed.
  const handle = new Database(partial);
  handle.pragma('journal_mode = DELETE');
  handle.close();
  renameSync(partial, db);
  return { site: site.key, db, fresh: true, seconds: (performance.now() - started) / 1000 };
}
