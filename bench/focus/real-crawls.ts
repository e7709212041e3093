/**
 * Real crawls of served bench sites, as a user runs them: `forager crawl` in a child
 * process, default settings but for the page budget and the politeness wait (none for one
 * site on loopback; a short one when hosts compete for turns), and no --hot unless the
 * predicate mode is asked for. The fetch order
 * is read back from the collection: every stored response counts against the budget,
 * whatever it was (a 404, a PDF's headers, a site resource).
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { runJsonChild, shebangNodeFlags } from '../support/child-run.ts';
import type { JudgeMode } from './replay.ts';
import type { Topic } from './topics.ts';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const FORAGER = join(REPO_ROOT, 'bin', 'forager.js');

export interface RealCrawl {
  /** URLs in fetch order. */
  urls: string[];
  elapsedMs: number;
  orderingMs: number;
  pagesPerSecond: number;
}

export interface RealCrawlOptions {
  dir: string;
  seeds: readonly string[];
  topic: Pick<Topic, 'key' | 'query' | 'predicate'>;
  strategy: string;
  mode: JudgeMode;
  maxPages: number;
  /** The wait between two requests to one host; 0 by default. */
  delayMs?: number;
}

export function pathOf(url: string): string {
  const u = URL.parse(url);
  return u === null ? url : `${u.pathname}${u.search}`;
}

export async function realCrawl(o: RealCrawlOptions): Promise<RealCrawl> {
  const db = join(o.dir, `${o.topic.key}-${o.strategy}-${o.mode}.db`);
  rmSync(db, { force: true });
  const args = [
    ...shebangNodeFlags(FORAGER), FORAGER, 'crawl', '--db', db, '--query', o.topic.query, ...o.seeds.flatMap((seed) => ['--seed', seed]), '--strategy', o.strategy,
    '--max-pages', String(o.maxPages), '--delay-ms', String(o.delayMs ?? 0), '--delay-factor', '0', '--robots-retry-ms', '0', '--json',
    ...(o.mode === 'hot' ? ['--hot', o.topic.predicate] : []),
  ];
  const { json } = await runJsonChild(process.execPath, args, { cwd: REPO_ROOT, timeoutMs: 900_000, label: `forager ${o.strategy} on ${o.topic.key}` });
  const handle = new Database(db, { readonly: true });
  const urls = handle.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.seq').pluck().all() as string[];
  handle.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
  return { urls, elapsedMs: Number(json.elapsedMs), orderingMs: Number(json.orderingMs ?? 0), pagesPerSecond: Number(json.pagesPerSecond) };
}
