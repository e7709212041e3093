/**
 * `npm run bench:refresh` (issue 27): what a refresh of a collection costs against crawling
 * the site again, and whether it finds every changed page.
 *
 * The bench serves a site of 1,000 HTML pages of 4-42 KB from its own process on 127.0.0.1
 * (support/revisit-site.ts: a third with an ETag, a third with only a Last-Modified, a third
 * with neither; conditional requests answered with 304) and crawls it whole with `forager
 * crawl --json` (the baseline). Then 10% of the pages get new text and new validators, and
 * each round, in alternating order, runs `forager refresh --json` on a fresh copy of the
 * baseline and a fresh `forager crawl --json` of the changed site into a new collection (the
 * peer). The server counts every byte it writes (status lines and headers included) by
 * phase, so the byte figures do not rest on the crawler's own counter (printed beside them).
 * Each round the refreshed collection must hold every changed page as version 2 with a
 * 'changed' revisit, else the bench fails (exit 1), as it does when a figure is missing.
 * Reports medians over rounds; the byte ratio's target is ≤ 0.15 (PASS/MISS).
 *
 *   npm run bench:refresh -- [--pages 1000] [--runs 3] [--forager PATH/bin/forager.js] [--json]
 *   npm run bench:refresh -- --smoke   (60 pages, one round; see support/smoke.ts)
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ForagerError, UsageError } from '../crawler/errors.ts';
import { canonicalize } from '../crawler/url/canonical.ts';
import { runJsonChild, shebangNodeFlags } from './support/child-run.ts';
import { startRevisitSite, VALIDATOR_KINDS, type RevisitSite, type Traffic, type Validators } from './support/revisit-site.ts';
import { runBenchMain } from './support/run-main.ts';
import { reportSmoke, requireFigures } from './support/smoke.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const QUERY = 'database index transaction';
const CHANGED_SHARE = 0.1;
const TARGET_BYTES_RATIO = 0.15;
const CHILD_TIMEOUT_MS = 10 * 60 * 1000;
const MB = 1e6;
const SQLITE_SUFFIXES = ['', '-wal', '-shm'];

interface BenchOptions {
  pages: number;
  runs: number;
  foragerBin: string;
  json: boolean;
  smoke: boolean;
}

function wholeNumber(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${text}"`, { option: name });
  return n;
}

function readOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: 'string' },
      runs: { type: 'string' },
      forager: { type: 'string', default: join(REPO_ROOT, 'bin', 'forager.js') },
      json: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const smoke = values.smoke;
  return {
    // Fewer than 20 pages would change none at 10%.
    pages: wholeNumber('pages', values.pages ?? (smoke ? '60' : '1000'), 20),
    runs: wholeNumber('runs', values.runs ?? (smoke ? '1' : '3'), 1),
    foragerBin: resolve(values.forager),
    json: values.json,
    smoke,
  };
}

/** Progress goes to stderr so that stdout carries only the report or the JSON summary. */
function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function requireNumber(json: Record<string, unknown>, field: string, label: string): number {
  const value = json[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ForagerError('BENCH_CHILD', `${label}: its --json output lacks a numeric "${field}"`, { field, output: json });
  return value;
}

/** What one `forager crawl` or `forager refresh` reported, and what the server saw of it. */
interface Phase {
  bytesFetched: number;
  elapsedMs: number;
  wallMs: number;
  traffic: Traffic;
}

async function runForager(options: BenchOptions, site: RevisitSite, label: string, args: string[]): Promise<{ phase: Phase; json: Record<string, unknown> }> {
  site.takeTraffic();
  const { json, wallMs } = await runJsonChild(process.execPath, [...shebangNodeFlags(options.foragerBin), options.foragerBin, ...args, '--json'], { cwd: REPO_ROOT, timeoutMs: CHILD_TIMEOUT_MS, label });
  const traffic = site.takeTraffic();
  if (traffic.bytes <= 0) throw new ForagerError('BENCH_CHILD', `${label}: the site served nothing`, { output: json });
  const phase = {
    bytesFetched: requireNumber(json, 'bytesFetched', label),
    elapsedMs: requireNumber(json, 'elapsedMs', label),
    wallMs,
    traffic,
  };
  return { phase, json };
}

/** A crawl of the whole site; the collection must then hold each of its pages as a 200. */
async function crawl(options: BenchOptions, site: RevisitSite, db: string, label: string): Promise<Phase> {
  const { phase, json } = await runForager(options, site, label, [
    'crawl',
    '--db', db,
    '--query', QUERY,
    '--seed', site.seed,
    // Room for the whole site, so the crawl ends with the frontier empty.
    '--max-pages', String(options.pages * 2),
    '--delay-ms', '0',
    '--delay-factor', '0',
    '--allow-private',
    // The site is static HTML without requisites: no browser, nothing beside the pages.
    '--render', 'never',
    '--requisites', 'none',
  ]);
  const stored = readCollection(db, site.urls);
  const missing = site.urls.filter((url) => stored.get(canonicalize(url))?.status !== 200);
  if (missing.length > 0) throw new ForagerError('BENCH_CHILD', `${label}: ${missing.length} of the site's ${site.urls.length} pages are not stored as a 200`, { missing: missing.slice(0, 5), output: json });
  return phase;
}

interface StoredPage {
  status: number;
  version: number;
  changedRevisit: boolean;
}

/** The collection's pages of the site, by canonical URL. */
function readCollection(path: string, urls: readonly string[]): Map<string, StoredPage> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        `SELECT u.url, p.status, p.version,
                EXISTS (SELECT 1 FROM revisits r WHERE r.page_seq = p.seq AND r.outcome = 'changed') AS changed_revisit
         FROM pages p JOIN urls u ON u.id = p.url_id`,
      )
      .all() as { url: string; status: number; version: number; changed_revisit: number }[];
    const site = new Set(urls.map((url) => canonicalize(url)));
    return new Map(rows.filter((row) => site.has(row.url)).map((row) => [row.url, { status: row.status, version: row.version, changedRevisit: row.changed_revisit === 1 }]));
  } finally {
    db.close();
  }
}

interface Round {
  refresh: Phase;
  fresh: Phase;
  revisits: { notModified: number; identical: number; changed: number; gone: number; queued: number };
  found: number;
  missed: string[];
  /** Pages of the site stored as a new version although they did not change. */
  spurious: string[];
}

async function refresh(options: BenchOptions, site: RevisitSite, db: string, changed: readonly string[]): Promise<Omit<Round, 'fresh'>> {
  const { phase, json } = await runForager(options, site, 'forager refresh', ['refresh', '--db', db]);
  const counts = json.revisits;
  if (typeof counts !== 'object' || counts === null) throw new ForagerError('BENCH_CHILD', 'forager refresh: its --json output has no "revisits"', { output: json });
  const field = (name: string): number => requireNumber(counts as Record<string, unknown>, name, 'forager refresh revisits');
  const revisits = { notModified: field('notModified'), identical: field('identical'), changed: field('changed'), gone: field('gone'), queued: field('queued') };
  const stored = readCollection(db, site.urls);
  const changedSet = new Set(changed.map((url) => canonicalize(url)));
  const missed = [...changedSet].filter((url) => {
    const page = stored.get(url);
    return page === undefined || page.version !== 2 || !page.changedRevisit;
  });
  const spurious = [...stored].filter(([url, page]) => !changedSet.has(url) && page.version > 1).map(([url]) => url);
  return { refresh: phase, revisits, found: changedSet.size - missed.length, missed, spurious };
}

function copyCollection(from: string, to: string): void {
  for (const suffix of SQLITE_SUFFIXES) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
}

function removeCollection(path: string): void {
  for (const suffix of SQLITE_SUFFIXES) rmSync(path + suffix, { force: true });
}

function describePhase(name: string, phase: Phase): string {
  const statuses = Object.entries(phase.traffic.byStatus).map(([status, n]) => `${n}×${status}`).join(' ');
  return `${name}: ${(phase.traffic.bytes / MB).toFixed(2)} MB served (${phase.traffic.requests} requests: ${statuses}), crawler counted ${(phase.bytesFetched / MB).toFixed(2)} MB, ${(phase.elapsedMs / 1000).toFixed(2)} s`;
}

async function runRound(options: BenchOptions, site: RevisitSite, dir: string, baseline: string, changed: readonly string[], index: number): Promise<Round> {
  const copy = join(dir, `refresh-${index}.forager`);
  const freshDb = join(dir, `fresh-${index}.forager`);
  copyCollection(baseline, copy);
  try {
    let refreshed: Omit<Round, 'fresh'> | undefined;
    let fresh: Phase | undefined;
    const runRefresh = async (): Promise<void> => {
      refreshed = await refresh(options, site, copy, changed);
    };
    const runFresh = async (): Promise<void> => {
      fresh = await crawl(options, site, freshDb, 'forager crawl (fresh)');
    };
    // Alternating order spreads the machine's noise over both.
    if (index % 2 === 0) {
      await runRefresh();
      await runFresh();
    } else {
      await runFresh();
      await runRefresh();
    }
    const round: Round = { ...(refreshed as Omit<Round, 'fresh'>), fresh: fresh as Phase };
    const r = round.revisits;
    progress(`  round ${index + 1}/${options.runs} ${describePhase('refresh', round.refresh)}`);
    progress(`    revisits: ${r.notModified} not modified, ${r.identical} identical, ${r.changed} changed, ${r.gone} gone, ${r.queued} queued; changed pages found ${round.found}/${changed.length}`);
    progress(`  round ${index + 1}/${options.runs} ${describePhase('fresh crawl', round.fresh)}`);
    return round;
  } finally {
    removeCollection(copy);
    removeCollection(freshDb);
  }
}

interface Summary {
  pages: number;
  validators: Record<Validators, number>;
  changed: number;
  runs: number;
  baseline: { bytes: number; elapsedMs: number };
  refreshBytes: number;
  freshBytes: number;
  bytesRatio: number;
  refreshCrawlerBytes: number;
  freshCrawlerBytes: number;
  refreshRequests: number;
  freshRequests: number;
  refreshBytesByValidators: Record<Validators, number>;
  /** Per kind of validators: the refresh's bytes for those pages against the fresh crawl's. */
  bytesRatioByValidators: Record<Validators, number>;
  refreshMs: number;
  freshMs: number;
  timeRatio: number;
  refreshWallMs: number;
  freshWallMs: number;
  revisits: Round['revisits'];
  /** The fewest changed pages a round found. */
  found: number;
  missed: string[];
  spurious: number;
}

function summarise(options: BenchOptions, validators: Record<Validators, number>, changed: number, baseline: Phase, rounds: Round[]): Summary {
  const of = (pick: (round: Round) => number): number => median(rounds.map(pick));
  return {
    pages: options.pages,
    validators,
    changed,
    runs: rounds.length,
    baseline: { bytes: baseline.traffic.bytes, elapsedMs: baseline.elapsedMs },
    refreshBytes: of((r) => r.refresh.traffic.bytes),
    freshBytes: of((r) => r.fresh.traffic.bytes),
    bytesRatio: of((r) => r.refresh.traffic.bytes / r.fresh.traffic.bytes),
    refreshCrawlerBytes: of((r) => r.refresh.bytesFetched),
    freshCrawlerBytes: of((r) => r.fresh.bytesFetched),
    refreshRequests: of((r) => r.refresh.traffic.requests),
    freshRequests: of((r) => r.fresh.traffic.requests),
    refreshBytesByValidators: Object.fromEntries(VALIDATOR_KINDS.map((kind) => [kind, of((r) => r.refresh.traffic.bytesByValidators[kind])])) as Record<Validators, number>,
    bytesRatioByValidators: Object.fromEntries(VALIDATOR_KINDS.map((kind) => [kind, of((r) => r.refresh.traffic.bytesByValidators[kind] / r.fresh.traffic.bytesByValidators[kind])])) as Record<Validators, number>,
    refreshMs: of((r) => r.refresh.elapsedMs),
    freshMs: of((r) => r.fresh.elapsedMs),
    timeRatio: of((r) => r.refresh.elapsedMs / r.fresh.elapsedMs),
    refreshWallMs: of((r) => r.refresh.wallMs),
    freshWallMs: of((r) => r.fresh.wallMs),
    revisits: {
      notModified: of((r) => r.revisits.notModified),
      identical: of((r) => r.revisits.identical),
      changed: of((r) => r.revisits.changed),
      gone: of((r) => r.revisits.gone),
      queued: of((r) => r.revisits.queued),
    },
    found: Math.min(...rounds.map((r) => r.found)),
    missed: [...new Set(rounds.flatMap((r) => r.missed))],
    spurious: Math.max(...rounds.map((r) => r.spurious.length)),
  };
}

/** Every figure of the report, which must all be finite numbers. */
function figuresOf(s: Summary): Record<string, number> {
  return requireFigures('bench:refresh', {
    refreshServerBytes: s.refreshBytes,
    freshServerBytes: s.freshBytes,
    bytesRatio: s.bytesRatio,
    bytesRatioEtag: s.bytesRatioByValidators.etag,
    bytesRatioLastModified: s.bytesRatioByValidators['last-modified'],
    bytesRatioNoValidators: s.bytesRatioByValidators.none,
    refreshCrawlerBytes: s.refreshCrawlerBytes,
    freshCrawlerBytes: s.freshCrawlerBytes,
    refreshMs: s.refreshMs,
    freshMs: s.freshMs,
    timeRatio: s.timeRatio,
    changed: s.changed,
    changedFound: s.found,
    notModified: s.revisits.notModified,
    identical: s.revisits.identical,
    changedRevisits: s.revisits.changed,
    gone: s.revisits.gone,
    queued: s.revisits.queued,
  });
}

function formatReport(s: Summary): string {
  const mb = (bytes: number): string => `${(bytes / MB).toFixed(2)} MB`;
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  const row = (label: string, refresh: string, fresh: string, ratio = ''): string => `  ${label.padEnd(26)}${refresh.padStart(12)}${fresh.padStart(14)}${ratio.padStart(9)}`;
  const v = s.validators;
  const byKind = (kind: Validators): string => `${mb(s.refreshBytesByValidators[kind])} (${s.bytesRatioByValidators[kind].toFixed(3)}×)`;
  const r = s.revisits;
  const bytesPass = s.bytesRatio <= TARGET_BYTES_RATIO;
  return [
    '',
    `refresh against a fresh crawl: ${s.pages} pages (${v.etag} with an ETag, ${v['last-modified']} with only a Last-Modified, ${v.none} with neither), ${s.changed} changed; medians of ${s.runs} round(s)`,
    `  baseline crawl: ${mb(s.baseline.bytes)} served, ${seconds(s.baseline.elapsedMs)}`,
    row('', 'refresh', 'fresh crawl', 'ratio'),
    row('bytes served', mb(s.refreshBytes), mb(s.freshBytes), s.bytesRatio.toFixed(3)),
    row('bytes the crawler counted', mb(s.refreshCrawlerBytes), mb(s.freshCrawlerBytes), (s.refreshCrawlerBytes / s.freshCrawlerBytes).toFixed(3)),
    row('requests served', String(s.refreshRequests), String(s.freshRequests)),
    row('time (the run\'s elapsedMs)', seconds(s.refreshMs), seconds(s.freshMs), s.timeRatio.toFixed(3)),
    row('time (process wall)', seconds(s.refreshWallMs), seconds(s.freshWallMs), (s.refreshWallMs / s.freshWallMs).toFixed(3)),
    row('site pages/s', (s.pages / (s.refreshMs / 1000)).toFixed(1), (s.pages / (s.freshMs / 1000)).toFixed(1)),
    `  refresh bytes served by the pages' validators (× the fresh crawl's for the same pages): ETag ${byKind('etag')}, only Last-Modified ${byKind('last-modified')}, neither ${byKind('none')}`,
    `  revisits: ${r.notModified} not modified (304), ${r.identical} identical, ${r.changed} changed, ${r.gone} gone, ${r.queued} still queued`,
    `  changed pages found (version 2 with a 'changed' revisit): ${s.found}/${s.changed} in every round; unchanged pages stored as a new version: ${s.spurious}`,
    '',
    'Targets',
    `  ${bytesPass ? 'PASS' : 'MISS'}  refresh bytes ≤ ${TARGET_BYTES_RATIO}× the fresh crawl's (measured ${s.bytesRatio.toFixed(3)})`,
    `  ${s.missed.length === 0 ? 'PASS' : 'FAIL'}  every changed page found (${s.found}/${s.changed})`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  if (!existsSync(options.foragerBin)) throw new ForagerError('BENCH_SETUP', `Forager's CLI was not found at ${options.foragerBin}`, { path: options.foragerBin });
  const dir = mkdtempSync(join(tmpdir(), 'forager-refresh-bench-'));
  const site = await startRevisitSite(options.pages);
  try {
    const baselineDb = join(dir, 'baseline.forager');
    progress(`site ${site.seed}: ${options.pages} pages; crawling the baseline`);
    const baseline = await crawl(options, site, baselineDb, 'forager crawl (baseline)');
    progress(`  ${describePhase('baseline', baseline)}`);
    const changed = site.change(Math.round(options.pages * CHANGED_SHARE));
    progress(`changed ${changed.length} pages`);
    const rounds: Round[] = [];
    for (let index = 0; index < options.runs; index++) rounds.push(await runRound(options, site, dir, baselineDb, changed, index));
    const validators = Object.fromEntries(VALIDATOR_KINDS.map((kind, k) => [kind, site.urls.filter((_, i) => i % 3 === k).length])) as Record<Validators, number>;
    const summary = summarise(options, validators, changed.length, baseline, rounds);
    const figures = figuresOf(summary);
    const report = formatReport(summary);
    if (options.json) {
      process.stderr.write(report);
      process.stdout.write(`${JSON.stringify({ ...summary, rounds: rounds.map((r) => ({ ...r, missed: r.missed.length, spurious: r.spurious.length })) })}\n`);
    } else {
      process.stdout.write(report);
    }
    if (summary.missed.length > 0) {
      throw new ForagerError('BENCH_CHILD', `the refresh missed ${summary.missed.length} of the ${changed.length} changed pages (not version 2 with a 'changed' revisit)`, { missed: summary.missed.slice(0, 10) });
    }
    if (options.smoke) {
      if (summary.revisits.notModified === 0) throw new ForagerError('BENCH_CHILD', 'the refresh got no 304: its conditional requests were not made or not answered', { revisits: summary.revisits });
      reportSmoke({ benchmark: 'bench:refresh', peer: 'forager crawl (fresh)', figures });
    }
  } finally {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runBenchMain(main);
