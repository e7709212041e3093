/**
 * `npm run bench:refresh` (issue 27): what a refresh of a collection costs against crawling
 * the site again, and whether it finds every changed page, in two scenarios.
 *
 * synthetic: a site of 1,000 HTML pages of 4-42 KB served from the bench's own process on
 * 127.0.0.1 (support/revisit-site.ts: a third with an ETag, a third with only a Last-Modified, a
 * third with neither; conditional requests answered with 304), which counts every byte it
 * writes, status lines and headers included. After the baseline, 10% of the pages (a fixed
 * pseudo-random choice) get new text and new validators.
 *
 * nginx: a real site on a real server. A Debian documentation package (postgresql-doc-15 when
 * installed, else sqlite3-doc) copied to a temp dir and served by a private nginx
 * (support/doc-site.ts), whose access log gives each response's bytes ($bytes_sent, headers
 * included). After the baseline, every tenth HTML page it stored (by URL) gets a new paragraph
 * and a later mtime, hence a new ETag and Last-Modified.
 *
 * In each, `forager crawl --json` stores the site (the baseline). Then each round, in
 * alternating order, runs `forager refresh --json` on a fresh copy of the baseline and a fresh
 * `forager crawl --json` of the changed site into a new collection (the peer). The byte figures
 * are the server's, so they do not rest on the crawler's own counter (printed beside them).
 * Each round the refreshed collection must hold every changed page as version 2 with a
 * 'changed' revisit, else the bench fails (exit 1), as it does when a figure is missing. Each
 * scenario prints its own block of medians over rounds; the byte ratio's target is ≤ 0.15
 * (PASS/MISS).
 *
 *   npm run bench:refresh -- [--scenario synthetic|nginx|both] [--runs 3] [--pages 1000]
 *     [--max-pages 1000] [--site postgres|sqlite] [--forager PATH/bin/forager.js] [--json]
 *   npm run bench:refresh -- --smoke   (both scenarios, one round: 60 synthetic pages, 60 pages
 *     of sqlite3-doc; see support/smoke.ts)
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ForagerError, UsageError } from '../crawler/errors.ts';
import { canonicalize } from '../crawler/url/canonical.ts';
import { benchSite, type BenchSite } from './focus/sites.ts';
import { POLICIES, simulatePolicies, type PolicyFigures, type PolicyName } from './refresh/policy-simulation.ts';
import { runJsonChild, shebangNodeFlags } from './support/child-run.ts';
import { startDocSite, type DocSite } from './support/doc-site.ts';
import { NGINX_BINARY, type TransferTraffic } from './support/nginx-sites.ts';
import { startRevisitSite, VALIDATOR_KINDS, type RevisitSite, type Traffic as RevisitTraffic, type Validators } from './support/revisit-site.ts';
import { runBenchMain } from './support/run-main.ts';
import { reportSmoke, requireFigures } from './support/smoke.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const SYNTHETIC_QUERY = 'database index transaction';
const DOC_QUERY = 'write-ahead logging checkpoints';
const CHANGED_SHARE = 0.1;
const TARGET_BYTES_RATIO = 0.15;
const CHILD_TIMEOUT_MS = 10 * 60 * 1000;
const MB = 1e6;
const SQLITE_SUFFIXES = ['', '-wal', '-shm'];
const SCENARIOS = ['synthetic', 'nginx'] as const;
/** The nginx scenario's packages, the first installed one served. */
const DOC_SITES = ['postgres', 'sqlite'] as const;

type ScenarioName = (typeof SCENARIOS)[number];
type DocSiteKey = (typeof DOC_SITES)[number];

interface BenchOptions {
  scenarios: ScenarioName[];
  /** The synthetic site's pages. */
  pages: number;
  /** The nginx scenario's page budget. */
  maxPages: number;
  /** The nginx scenario's package; undefined: the first of DOC_SITES installed. */
  site: DocSiteKey | undefined;
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

function oneOf<T extends string>(name: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got "${text}"`, { option: name });
  return text as T;
}

function readOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenario: { type: 'string', default: 'both' },
      pages: { type: 'string' },
      'max-pages': { type: 'string' },
      site: { type: 'string' },
      runs: { type: 'string' },
      forager: { type: 'string', default: join(REPO_ROOT, 'bin', 'forager.js') },
      json: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const smoke = values.smoke;
  const scenario = oneOf('scenario', values.scenario, [...SCENARIOS, 'both']);
  const site = values.site ?? (smoke ? 'sqlite' : undefined);
  return {
    scenarios: scenario === 'both' ? [...SCENARIOS] : [scenario],
    // Fewer than 20 pages would change none at 10%.
    pages: wholeNumber('pages', values.pages ?? (smoke ? '60' : '1000'), 20),
    // Fewer than 10 stored pages would have no tenth page to edit.
    maxPages: wholeNumber('max-pages', values['max-pages'] ?? (smoke ? '60' : '1000'), 10),
    site: site === undefined ? undefined : oneOf('site', site, DOC_SITES),
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

/** What a scenario's server answered and wrote since it was last asked. */
interface Traffic {
  requests: number;
  bytes: number;
  byStatus: Record<string, number>;
}

/** What one `forager crawl` or `forager refresh` reported, and what the server saw of it. */
interface Phase<T extends Traffic> {
  bytesFetched: number;
  elapsedMs: number;
  wallMs: number;
  traffic: T;
}

interface StoredPage {
  status: number;
  version: number;
  changedRevisit: boolean;
}

interface Revisits {
  notModified: number;
  identical: number;
  changed: number;
  gone: number;
  queued: number;
}

interface Round<T extends Traffic> {
  refresh: Phase<T>;
  fresh: Phase<T>;
  /** The site's pages the fresh crawl stored as a 200. */
  freshPages: number;
  revisits: Revisits;
  found: number;
  missed: string[];
  /** Pages of the site stored as a new version although they did not change. */
  spurious: string[];
}

/** What only one scenario reports. */
interface Details {
  lines: string[];
  figures: Record<string, number>;
  summary: Record<string, unknown>;
}

interface Scenario<T extends Traffic> {
  name: ScenarioName;
  query: string;
  seed: string;
  /** Every crawl's --max-pages. */
  maxPages: number;
  takeTraffic(): T | Promise<T>;
  /** Whether a URL the collection stored (canonical) is one of the site's pages. */
  isSitePage(url: string): boolean;
  /** What a crawl's collection lacks, or undefined; the bench fails on it. */
  shortfall(stored: ReadonlyMap<string, StoredPage>): string | undefined;
  /** Changes the site once the baseline stored `baseline`; returns the URLs whose page changed. */
  change(baseline: ReadonlyMap<string, StoredPage>): string[];
  /** The site and its change, for the report's first line. */
  describe(pages: number, changed: number): string;
  details(rounds: readonly Round<T>[]): Details;
  close(): Promise<void>;
}

async function runForager<T extends Traffic>(options: BenchOptions, scenario: Scenario<T>, label: string, args: string[]): Promise<{ phase: Phase<T>; json: Record<string, unknown> }> {
  await scenario.takeTraffic();
  const { json, wallMs } = await runJsonChild(process.execPath, [...shebangNodeFlags(options.foragerBin), options.foragerBin, ...args, '--json'], { cwd: REPO_ROOT, timeoutMs: CHILD_TIMEOUT_MS, label });
  const traffic = await scenario.takeTraffic();
  if (traffic.bytes <= 0) throw new ForagerError('BENCH_CHILD', `${label}: the site served nothing`, { output: json });
  const phase = {
    bytesFetched: requireNumber(json, 'bytesFetched', label),
    elapsedMs: requireNumber(json, 'elapsedMs', label),
    wallMs,
    traffic,
  };
  return { phase, json };
}

/** The collection's pages of the site, by canonical URL. */
function readCollection(path: string, isSitePage: (url: string) => boolean): Map<string, StoredPage> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        `SELECT u.url, p.status, p.version,
                EXISTS (SELECT 1 FROM revisits r WHERE r.page_seq = p.seq AND r.outcome = 'changed') AS changed_revisit
         FROM pages p JOIN urls u ON u.id = p.url_id`,
      )
      .all() as { url: string; status: number; version: number; changed_revisit: number }[];
    return new Map(rows.filter((row) => isSitePage(row.url)).map((row) => [row.url, { status: row.status, version: row.version, changedRevisit: row.changed_revisit === 1 }]));
  } finally {
    db.close();
  }
}

/** The site's pages a collection holds as a 200. */
function storedOk(stored: ReadonlyMap<string, StoredPage>): number {
  return [...stored.values()].filter((page) => page.status === 200).length;
}

async function crawl<T extends Traffic>(options: BenchOptions, scenario: Scenario<T>, db: string, label: string): Promise<{ phase: Phase<T>; stored: Map<string, StoredPage> }> {
  const { phase, json } = await runForager(options, scenario, label, [
    'crawl',
    '--db', db,
    '--query', scenario.query,
    '--seed', scenario.seed,
    '--max-pages', String(scenario.maxPages),
    '--delay-ms', '0',
    '--delay-factor', '0',
    '--allow-private',
    // Static HTML: no browser, nothing beside the pages.
    '--render', 'never',
    '--requisites', 'none',
  ]);
  const stored = readCollection(db, (url) => scenario.isSitePage(url));
  const shortfall = scenario.shortfall(stored);
  if (shortfall !== undefined) throw new ForagerError('BENCH_CHILD', `${label}: ${shortfall}`, { output: json });
  return { phase, stored };
}

async function refresh<T extends Traffic>(options: BenchOptions, scenario: Scenario<T>, db: string, changed: readonly string[]): Promise<Omit<Round<T>, 'fresh' | 'freshPages'>> {
  const { phase, json } = await runForager(options, scenario, 'forager refresh', ['refresh', '--db', db]);
  const counts = json.revisits;
  if (typeof counts !== 'object' || counts === null) throw new ForagerError('BENCH_CHILD', 'forager refresh: its --json output has no "revisits"', { output: json });
  const field = (name: string): number => requireNumber(counts as Record<string, unknown>, name, 'forager refresh revisits');
  const revisits = { notModified: field('notModified'), identical: field('identical'), changed: field('changed'), gone: field('gone'), queued: field('queued') };
  const stored = readCollection(db, (url) => scenario.isSitePage(url));
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

function describePhase(name: string, phase: Phase<Traffic>): string {
  const statuses = Object.entries(phase.traffic.byStatus).map(([status, n]) => `${n}×${status}`).join(' ');
  return `${name}: ${(phase.traffic.bytes / MB).toFixed(2)} MB served (${phase.traffic.requests} requests: ${statuses}), crawler counted ${(phase.bytesFetched / MB).toFixed(2)} MB, ${(phase.elapsedMs / 1000).toFixed(2)} s`;
}

async function runRound<T extends Traffic>(options: BenchOptions, scenario: Scenario<T>, dir: string, baseline: string, changed: readonly string[], index: number): Promise<Round<T>> {
  const copy = join(dir, `${scenario.name}-refresh-${index}.forager`);
  const freshDb = join(dir, `${scenario.name}-fresh-${index}.forager`);
  copyCollection(baseline, copy);
  try {
    let refreshed: Omit<Round<T>, 'fresh' | 'freshPages'> | undefined;
    let fresh: { phase: Phase<T>; stored: Map<string, StoredPage> } | undefined;
    const runRefresh = async (): Promise<void> => {
      refreshed = await refresh(options, scenario, copy, changed);
    };
    const runFresh = async (): Promise<void> => {
      fresh = await crawl(options, scenario, freshDb, 'forager crawl (fresh)');
    };
    // Alternating order spreads the machine's noise over both.
    if (index % 2 === 0) {
      await runRefresh();
      await runFresh();
    } else {
      await runFresh();
      await runRefresh();
    }
    const freshRun = fresh as { phase: Phase<T>; stored: Map<string, StoredPage> };
    const round: Round<T> = { ...(refreshed as Omit<Round<T>, 'fresh' | 'freshPages'>), fresh: freshRun.phase, freshPages: storedOk(freshRun.stored) };
    const r = round.revisits;
    progress(`  round ${index + 1}/${options.runs} ${describePhase('refresh', round.refresh)}`);
    progress(`    revisits: ${r.notModified} not modified, ${r.identical} identical, ${r.changed} changed, ${r.gone} gone, ${r.queued} queued; changed pages found ${round.found}/${changed.length}`);
    progress(`  round ${index + 1}/${options.runs} ${describePhase('fresh crawl', round.fresh)}; ${round.freshPages} pages stored`);
    return round;
  } finally {
    removeCollection(copy);
    removeCollection(freshDb);
  }
}

interface Summary {
  scenario: ScenarioName;
  site: string;
  /** The site's pages the baseline stored as a 200. */
  pages: number;
  changed: number;
  runs: number;
  baseline: { bytes: number; elapsedMs: number };
  freshPages: number;
  refreshBytes: number;
  freshBytes: number;
  bytesRatio: number;
  refreshCrawlerBytes: number;
  freshCrawlerBytes: number;
  refreshRequests: number;
  freshRequests: number;
  refreshMs: number;
  freshMs: number;
  timeRatio: number;
  refreshWallMs: number;
  freshWallMs: number;
  revisits: Revisits;
  /** The fewest changed pages a round found. */
  found: number;
  missed: string[];
  spurious: number;
}

function summarise<T extends Traffic>(scenario: Scenario<T>, pages: number, changed: number, baseline: Phase<T>, rounds: Round<T>[]): Summary {
  const of = (pick: (round: Round<T>) => number): number => median(rounds.map(pick));
  return {
    scenario: scenario.name,
    site: scenario.describe(pages, changed),
    pages,
    changed,
    runs: rounds.length,
    baseline: { bytes: baseline.traffic.bytes, elapsedMs: baseline.elapsedMs },
    freshPages: of((r) => r.freshPages),
    refreshBytes: of((r) => r.refresh.traffic.bytes),
    freshBytes: of((r) => r.fresh.traffic.bytes),
    bytesRatio: of((r) => r.refresh.traffic.bytes / r.fresh.traffic.bytes),
    refreshCrawlerBytes: of((r) => r.refresh.bytesFetched),
    freshCrawlerBytes: of((r) => r.fresh.bytesFetched),
    refreshRequests: of((r) => r.refresh.traffic.requests),
    freshRequests: of((r) => r.fresh.traffic.requests),
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

/** Every figure of a scenario's report, which must all be finite numbers. */
function figuresOf(s: Summary, details: Details): Record<string, number> {
  return requireFigures(`bench:refresh ${s.scenario}`, {
    refreshServerBytes: s.refreshBytes,
    freshServerBytes: s.freshBytes,
    bytesRatio: s.bytesRatio,
    refreshCrawlerBytes: s.refreshCrawlerBytes,
    freshCrawlerBytes: s.freshCrawlerBytes,
    refreshMs: s.refreshMs,
    freshMs: s.freshMs,
    timeRatio: s.timeRatio,
    pages: s.pages,
    freshPages: s.freshPages,
    changed: s.changed,
    changedFound: s.found,
    notModified: s.revisits.notModified,
    identical: s.revisits.identical,
    changedRevisits: s.revisits.changed,
    gone: s.revisits.gone,
    queued: s.revisits.queued,
    ...details.figures,
  });
}

const mb = (bytes: number): string => `${(bytes / MB).toFixed(2)} MB`;

function formatReport(s: Summary, details: Details): string {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  const row = (label: string, refresh: string, fresh: string, ratio = ''): string => `  ${label.padEnd(26)}${refresh.padStart(12)}${fresh.padStart(14)}${ratio.padStart(9)}`;
  const r = s.revisits;
  const bytesPass = s.bytesRatio <= TARGET_BYTES_RATIO;
  return [
    '',
    `${s.scenario}: refresh against a fresh crawl of ${s.site}; medians of ${s.runs} round(s)`,
    `  baseline crawl: ${s.pages} pages stored, ${mb(s.baseline.bytes)} served, ${seconds(s.baseline.elapsedMs)}`,
    row('', 'refresh', 'fresh crawl', 'ratio'),
    row('bytes served', mb(s.refreshBytes), mb(s.freshBytes), s.bytesRatio.toFixed(3)),
    row('bytes the crawler counted', mb(s.refreshCrawlerBytes), mb(s.freshCrawlerBytes), (s.refreshCrawlerBytes / s.freshCrawlerBytes).toFixed(3)),
    row('requests served', String(s.refreshRequests), String(s.freshRequests)),
    row('time (the run\'s elapsedMs)', seconds(s.refreshMs), seconds(s.freshMs), s.timeRatio.toFixed(3)),
    row('time (process wall)', seconds(s.refreshWallMs), seconds(s.freshWallMs), (s.refreshWallMs / s.freshWallMs).toFixed(3)),
    row('site pages (stored)', String(s.pages), String(s.freshPages)),
    row('site pages/s', (s.pages / (s.refreshMs / 1000)).toFixed(1), (s.freshPages / (s.freshMs / 1000)).toFixed(1)),
    ...details.lines.map((line) => `  ${line}`),
    `  revisits: ${r.notModified} not modified (304), ${r.identical} identical, ${r.changed} changed, ${r.gone} gone, ${r.queued} still queued`,
    `  changed pages found (version 2 with a 'changed' revisit): ${s.found}/${s.changed} in every round; unchanged pages stored as a new version: ${s.spurious}`,
    '',
    'Targets',
    `  ${bytesPass ? 'PASS' : 'MISS'}  refresh bytes ≤ ${TARGET_BYTES_RATIO}× the fresh crawl's (measured ${s.bytesRatio.toFixed(3)})`,
    `  ${s.missed.length === 0 ? 'PASS' : 'FAIL'}  every changed page found (${s.found}/${s.changed})`,
    '',
  ].join('\n');
}

function syntheticScenario(options: BenchOptions, site: RevisitSite): Scenario<RevisitTraffic> {
  const urls = new Set(site.urls.map((url) => canonicalize(url)));
  const validators = Object.fromEntries(VALIDATOR_KINDS.map((kind, k) => [kind, site.urls.filter((_, i) => i % 3 === k).length])) as Record<Validators, number>;
  return {
    name: 'synthetic',
    query: SYNTHETIC_QUERY,
    seed: site.seed,
    // Room for the whole site, so the crawl ends with the frontier empty.
    maxPages: options.pages * 2,
    takeTraffic: () => site.takeTraffic(),
    isSitePage: (url) => urls.has(url),
    shortfall(stored) {
      const missing = site.urls.filter((url) => stored.get(canonicalize(url))?.status !== 200);
      return missing.length === 0 ? undefined : `${missing.length} of the site's ${site.urls.length} pages are not stored as a 200, e.g. ${missing.slice(0, 5).join(' ')}`;
    },
    change: () => site.change(Math.round(options.pages * CHANGED_SHARE)),
    describe: (pages, changed) =>
      `a synthetic site on the bench's own server, ${pages} pages (${validators.etag} with an ETag, ${validators['last-modified']} with only a Last-Modified, ${validators.none} with neither), ${changed} changed`,
    details(rounds) {
      const of = (pick: (round: Round<RevisitTraffic>) => number): number => median(rounds.map(pick));
      const bytes = (kind: Validators): number => of((r) => r.refresh.traffic.bytesByValidators[kind]);
      const ratio = (kind: Validators): number => of((r) => r.refresh.traffic.bytesByValidators[kind] / r.fresh.traffic.bytesByValidators[kind]);
      const byKind = (kind: Validators): string => `${mb(bytes(kind))} (${ratio(kind).toFixed(3)}×)`;
      return {
        lines: [`refresh bytes served by the pages' validators (× the fresh crawl's for the same pages): ETag ${byKind('etag')}, only Last-Modified ${byKind('last-modified')}, neither ${byKind('none')}`],
        figures: { bytesRatioEtag: ratio('etag'), bytesRatioLastModified: ratio('last-modified'), bytesRatioNoValidators: ratio('none') },
        summary: {
          validators,
          refreshBytesByValidators: Object.fromEntries(VALIDATOR_KINDS.map((kind) => [kind, bytes(kind)])),
          bytesRatioByValidators: Object.fromEntries(VALIDATOR_KINDS.map((kind) => [kind, ratio(kind)])),
        },
      };
    },
    close: () => site.close(),
  };
}

function nginxScenario(options: BenchOptions, docSite: BenchSite, site: DocSite): Scenario<TransferTraffic> {
  let edited = 0;
  return {
    name: 'nginx',
    query: DOC_QUERY,
    seed: site.seed,
    maxPages: options.maxPages,
    takeTraffic: () => site.takeTraffic(),
    isSitePage: (url) => url.startsWith(`${site.origin}/`),
    shortfall: (stored) => (storedOk(stored) === 0 ? 'it stored no page of the site as a 200' : undefined),
    change(baseline) {
      // Every tenth HTML page the baseline stored, by URL: the same pages in every run.
      const every = Math.round(1 / CHANGED_SHARE);
      const html = [...baseline].filter(([url, page]) => page.status === 200 && site.htmlFileOf(url) !== undefined).map(([url]) => url).sort();
      const files = new Set(html.filter((_, i) => i % every === every - 1).map((url) => site.htmlFileOf(url) as string));
      if (files.size === 0) throw new ForagerError('BENCH_CHILD', `the baseline stored ${html.length} HTML pages, too few to edit one in ${every}`, { pages: html.length });
      site.edit(files);
      edited = files.size;
      // A file served under two URLs (a folder and its index.html) changed under both.
      return html.filter((url) => files.has(site.htmlFileOf(url) as string));
    },
    describe: (pages, changed) =>
      `${docSite.packages.join(' ')} (${docSite.root()}) on nginx, --max-pages ${options.maxPages}: ${pages} pages stored, ${edited} HTML files edited (${changed} pages changed)`,
    details(rounds) {
      const of = (pick: (round: Round<TransferTraffic>) => number): number => median(rounds.map(pick));
      const refreshBody = of((r) => r.refresh.traffic.bodyBytes);
      const freshBody = of((r) => r.fresh.traffic.bodyBytes);
      const bodyRatio = of((r) => r.refresh.traffic.bodyBytes / r.fresh.traffic.bodyBytes);
      const byStatus = (phase: 'refresh' | 'fresh'): Record<string, number> => {
        const statuses = [...new Set(rounds.flatMap((r) => Object.keys(r[phase].traffic.bytesByStatus)))].sort();
        return Object.fromEntries(statuses.map((status) => [status, of((r) => r[phase].traffic.bytesByStatus[status] ?? 0)]));
      };
      const refreshByStatus = byStatus('refresh');
      const freshByStatus = byStatus('fresh');
      const statusLine = (bytes: Record<string, number>): string => Object.entries(bytes).map(([status, n]) => `${status} ${mb(n)}`).join(', ');
      return {
        lines: [
          `bytes served by status: refresh ${statusLine(refreshByStatus)}; fresh crawl ${statusLine(freshByStatus)}`,
          `body bytes served (as sent, gzipped by nginx): refresh ${mb(refreshBody)}, fresh crawl ${mb(freshBody)} (${bodyRatio.toFixed(3)}×)`,
        ],
        figures: { refreshBodyBytes: refreshBody, freshBodyBytes: freshBody, bodyBytesRatio: bodyRatio, refreshNotModifiedBytes: refreshByStatus['304'] ?? 0, editedFiles: edited },
        summary: { package: docSite.packages.join(' '), editedFiles: edited, refreshBodyBytes: refreshBody, freshBodyBytes: freshBody, bodyBytesRatio: bodyRatio, refreshBytesByStatus: refreshByStatus, freshBytesByStatus: freshByStatus },
      };
    },
    close: () => site.close(),
  };
}

/** The package the nginx scenario serves: the one asked for, else the first of DOC_SITES installed; undefined when it is not installed. */
function installedDocSite(options: BenchOptions): BenchSite | undefined {
  const installed = (site: BenchSite): boolean => existsSync(join(site.root(), site.entry));
  const candidates = options.site === undefined ? DOC_SITES.map((key) => benchSite(key)) : [benchSite(options.site)];
  return candidates.find(installed);
}

interface Outcome {
  summary: Summary & Record<string, unknown>;
  figures: Record<string, number>;
  rounds: Round<Traffic>[];
}

async function runScenario<T extends Traffic>(options: BenchOptions, scenario: Scenario<T>, dir: string): Promise<Outcome> {
  const baselineDb = join(dir, `${scenario.name}-baseline.forager`);
  progress(`${scenario.name}: site ${scenario.seed}; crawling the baseline`);
  const baseline = await crawl(options, scenario, baselineDb, 'forager crawl (baseline)');
  progress(`  ${describePhase('baseline', baseline.phase)}; ${storedOk(baseline.stored)} pages stored`);
  const changed = scenario.change(baseline.stored);
  progress(`changed ${changed.length} pages`);
  const rounds: Round<T>[] = [];
  for (let index = 0; index < options.runs; index++) rounds.push(await runRound(options, scenario, dir, baselineDb, changed, index));
  const summary = summarise(scenario, storedOk(baseline.stored), changed.length, baseline.phase, rounds);
  const details = scenario.details(rounds);
  const figures = figuresOf(summary, details);
  (options.json ? process.stderr : process.stdout).write(formatReport(summary, details));
  return { summary: { ...summary, ...details.summary }, figures, rounds };
}

/**
 * The revisit order against oldest-first, random and an oracle on simulated collections
 * (refresh/policy-simulation.ts): medians over seeds of the value-weighted changes found per
 * revisit and the value-weighted freshness, with a tenth of the pages revisited a day.
 */
function policyReport(options: BenchOptions): { text: string; figures: Record<string, number> } {
  const seeds = options.smoke ? [1] : [1, 2, 3, 4, 5];
  const shape = options.smoke ? { pages: 300, days: 20, share: 0.1 } : { pages: 2000, days: 60, share: 0.1 };
  const runs = seeds.map((seed) => simulatePolicies({ ...shape, seed }));
  const of = (policy: PolicyName, pick: (f: PolicyFigures) => number): number => median(runs.map((run) => pick(run.find((f) => f.policy === policy) as PolicyFigures)));
  const figures: Record<string, number> = {};
  const lines = [
    '',
    `revisit order on a simulated collection: ${shape.pages} pages changing every 1 to 60 days (log-uniform), a tenth on topic and a fifth half so, ${shape.share * 100}% revisited a day for ${shape.days} days; medians of ${seeds.length} seed(s), measured over the second half`,
    `  ${'order'.padEnd(14)}${'changes found per revisit'.padStart(27)}${'freshness'.padStart(12)}   (both weighted by the page's value)`,
  ];
  for (const policy of POLICIES) {
    const found = of(policy, (f) => f.changedYield);
    const fresh = of(policy, (f) => f.freshness);
    figures[`policy.${policy.replace(' ', '-')}.changedYield`] = found;
    figures[`policy.${policy.replace(' ', '-')}.freshness`] = fresh;
    lines.push(`  ${policy.padEnd(14)}${found.toFixed(3).padStart(27)}${fresh.toFixed(3).padStart(12)}`);
  }
  const forager = figures['policy.forager.changedYield'] as number;
  lines.push(`  forager's changes found per revisit: ${(forager / (figures['policy.oldest-first.changedYield'] as number)).toFixed(2)}× oldest first's, ${(forager / (figures['policy.random.changedYield'] as number)).toFixed(2)}× random's, ${(forager / (figures['policy.oracle.changedYield'] as number)).toFixed(2)} of the oracle's`, '');
  return { text: lines.join('\n'), figures };
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  if (!existsSync(options.foragerBin)) throw new ForagerError('BENCH_SETUP', `Forager's CLI was not found at ${options.foragerBin}`, { path: options.foragerBin });
  const docSite = options.scenarios.includes('nginx') ? installedDocSite(options) : undefined;
  if (options.scenarios.includes('nginx') && (docSite === undefined || !existsSync(NGINX_BINARY))) {
    const docs = options.site === undefined ? 'postgresql-doc-15 (or sqlite3-doc)' : benchSite(options.site).packages.join(' ');
    process.stderr.write(`bench:refresh's nginx scenario needs Debian packages: apt-get install -y nginx-light ${docs}\n`);
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), 'forager-refresh-bench-'));
  const outcomes: Outcome[] = [];
  try {
    for (const name of options.scenarios) {
      const scenario: Scenario<Traffic> =
        name === 'synthetic' ? syntheticScenario(options, await startRevisitSite(options.pages)) : nginxScenario(options, docSite as BenchSite, await startDocSite(docSite as BenchSite));
      try {
        outcomes.push(await runScenario(options, scenario, dir));
      } finally {
        await scenario.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const policies = policyReport(options);
  (options.json ? process.stderr : process.stdout).write(policies.text);
  if (options.json) {
    const summaries = outcomes.map((o) => [o.summary.scenario, { ...o.summary, rounds: o.rounds.map((r) => ({ ...r, missed: r.missed.length, spurious: r.spurious.length })) }]);
    process.stdout.write(`${JSON.stringify({ ...Object.fromEntries(summaries), policies: policies.figures })}\n`);
  }
  const missed = outcomes.filter((o) => o.summary.missed.length > 0);
  if (missed.length > 0) {
    throw new ForagerError(
      'BENCH_CHILD',
      `the refresh missed changed pages (not version 2 with a 'changed' revisit): ${missed.map((o) => `${o.summary.scenario} ${o.summary.missed.length} of ${o.summary.changed}`).join(', ')}`,
      Object.fromEntries(missed.map((o) => [o.summary.scenario, o.summary.missed.slice(0, 10)])),
    );
  }
  if (options.smoke) {
    for (const o of outcomes) {
      if (o.summary.revisits.notModified === 0) throw new ForagerError('BENCH_CHILD', `${o.summary.scenario}: the refresh got no 304: its conditional requests were not made or not answered`, { revisits: o.summary.revisits });
    }
    reportSmoke({
      benchmark: 'bench:refresh',
      peer: 'forager crawl (fresh)',
      figures: { ...Object.fromEntries(outcomes.flatMap((o) => Object.entries(o.figures).map(([name, value]) => [`${o.summary.scenario}.${name}`, value]))), ...policies.figures },
    });
  }
}

await runBenchMain(main);
