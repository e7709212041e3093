/*
 * `npm run bench:render`: rendering pages built by JavaScript, on a loopback web of
 * single-page apps and one static site (bench/support/render-web.ts), with Debian's
 * chromium-headless-shell. It reports, each beside its target:
 *   - rendered pages/s (Forager, every page rendered);
 *   - peak memory of Forager and its browser together (PSS of the process tree);
 *   - that memory after the last rendered page against after the 200th;
 *   - static pages/s on the static site alone, and beside the apps being rendered;
 *   - Crawlee's PlaywrightCrawler on the same apps in the same run, with the same browser
 *     and pages open at once: its pages/s and peak memory.
 *
 * Options: --pages N (2000 rendered pages), --spa-hosts N (4), --static-pages N (20000: the
 * static site is crawled at about 1,000 pages/s here, and fewer pages would be done while the
 * browser is still starting).
 * `--smoke`: 10 rendered pages over 2 app hosts and 200 static pages; memory growth is then
 * read from the 10% mark, not the 200th page (see support/smoke.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { ForagerError } from '../crawler/errors.ts';
import { findBrowser } from '../crawler/render/find-browser.ts';
import { parseJsonOutput, shebangNodeFlags } from './support/child-run.ts';
import { numberOption } from './support/options.ts';
import { reportSmoke, requireFigures, SMOKE } from './support/smoke.ts';
import { treePssMb } from './support/process-tree.ts';

const REPO = join(import.meta.dirname, '..');
const FORAGER = join(REPO, 'bin/forager.js');
const TARGETS = { renderedPagesPerSecond: 4, peakMb: 600, growth: 0.2, staticLoss: 0.1 };
/** Pages open at once, for both crawlers (Forager's render contexts). */
const PAGES_AT_ONCE = 2;

const pages = numberOption('pages', SMOKE ? 10 : 2000);
const spaHosts = numberOption('spa-hosts', SMOKE ? 2 : 4);
const staticPages = numberOption('static-pages', SMOKE ? 200 : 20_000);
/** Where memory growth is measured from: the 200th rendered page, or the 10% mark of a smaller run. */
const EARLY_PAGES = Math.max(1, Math.min(200, Math.floor(pages / 10)));
const browser = findBrowser('/usr/bin/chromium-headless-shell');
if (browser.kind === 'missing') {
  console.error(`bench:render needs chromium-headless-shell (apt-get install chromium-headless-shell): ${browser.message}`);
  process.exit(2);
}

async function startWeb(): Promise<{ child: ChildProcess; spa: string[]; static: string }> {
  const child = spawn(process.execPath, [join(REPO, 'bench/support/render-web.ts'), String(spaHosts), String(Math.ceil(pages / spaHosts)), String(staticPages)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve) => {
    lines.on('line', (line) => {
      const [word, spa, stat] = line.split(' ');
      if (word === 'ready') resolve({ child, spa: (spa as string).split(',').map((p) => `http://127.0.0.1:${p}`), static: `http://127.0.0.1:${stat}` });
    });
  });
}

interface Sample {
  pages: number;
  mb: number;
}

interface Run {
  seconds: number;
  samples: Sample[];
  stdout: string;
  exitCode: number | null;
}

/** Runs a child to its end, sampling its process tree's memory (and, for Forager, the pages stored) every 250 ms. */
async function measured(args: string[], dbPath: string | undefined): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const samples: Sample[] = [];
  let reader: Database.Database | undefined;
  const timer = setInterval(() => {
    if (dbPath !== undefined && reader === undefined) {
      try {
        reader = new Database(dbPath, { readonly: true, fileMustExist: true });
      } catch {
        reader = undefined;
      }
    }
    let stored = 0;
    try {
      stored = reader === undefined ? 0 : (reader.prepare('SELECT count(*) FROM pages').pluck().get() as number);
    } catch {
      stored = samples.at(-1)?.pages ?? 0;
    }
    const mb = treePssMb(child.pid as number);
    if (mb !== undefined) samples.push({ pages: stored, mb });
  }, 250);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  reader?.close();
  return { seconds: (performance.now() - started) / 1000, samples, stdout, exitCode };
}

/** The JSON line a child printed, when it exited well: otherwise its figures would be made up. */
function childReport(label: string, run: Run): Record<string, unknown> {
  const json = parseJsonOutput(run.stdout);
  if (run.exitCode !== 0 || json === undefined) throw new ForagerError('BENCH_CHILD', `${label} exited with ${run.exitCode} and ${json === undefined ? 'no' : 'a'} JSON report`, { label, exitCode: run.exitCode, stdout: run.stdout.slice(-2000) });
  return json;
}

function forager(dbPath: string, seeds: string[], maxPages: number, render: string): string[] {
  return [
    ...shebangNodeFlags(FORAGER), FORAGER, 'crawl', '--db', dbPath, '--query', 'checkpoint journal recovery', ...seeds.flatMap((s) => ['--seed', s]),
    '--max-pages', String(maxPages), '--allow-private', '--concurrency', '16', '--delay-ms', '0', '--delay-factor', '0', '--render', render,
    '--browser', browser.kind === 'found' ? browser.path : '', '--json',
  ];
}

/** Static pages per second over the span in which the static site's pages were fetched. */
function staticRate(dbPath: string, origin: string): { pages: number; perSecond: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    const row = db
      .prepare("SELECT count(*) AS n, min(p.started_at) AS first, max(p.fetched_at) AS last FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url LIKE ? || '/p/%'")
      .get(origin) as { n: number; first: number; last: number };
    return { pages: row.n, perSecond: row.n / Math.max(0.001, (row.last - row.first) / 1000) };
  } finally {
    db.close();
  }
}

/** NaN for no values: a reading that was never taken must not look like 0 MB. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'forager-render-bench-'));
const web = await startWeb();
try {
  const spaSeeds = web.spa.map((origin) => `${origin}/p/0`);
  console.log(`render bench: ${pages} rendered pages over ${spaHosts} app hosts, ${staticPages} static pages, ${PAGES_AT_ONCE} pages open at once, ${browser.path}`);

  const renderedDb = join(dir, 'rendered.forager');
  const rendered = await measured(forager(renderedDb, spaSeeds, pages, 'always'), renderedDb);
  childReport('forager --render always', rendered);
  const db = new Database(renderedDb, { readonly: true });
  const renders = db.prepare('SELECT count(*) FROM renders').pluck().get() as number;
  const links = db.prepare("SELECT count(*) FROM urls WHERE url LIKE '%/p/%'").pluck().get() as number;
  db.close();
  const renderedPerSecond = renders / rendered.seconds;
  const peak = Math.max(...rendered.samples.map((s) => s.mb));
  // The samples of the next 30% of pages, or at least the first one taken past the mark.
  const pastEarly = rendered.samples.filter((s) => s.pages >= EARLY_PAGES);
  const earlyWindow = pastEarly.filter((s) => s.pages < EARLY_PAGES * 1.3);
  const at200 = median((earlyWindow.length > 0 ? earlyWindow : pastEarly.slice(0, 1)).map((s) => s.mb));
  // The last 5% of the pages the crawl stored (not of its budget: a smoke run's few pages may stop short of it).
  const storedAtEnd = Math.max(0, ...rendered.samples.map((s) => s.pages));
  const atEnd = median(rendered.samples.filter((s) => s.pages >= storedAtEnd * 0.95).map((s) => s.mb));

  const aloneDb = join(dir, 'static-alone.forager');
  childReport('forager --render never', await measured(forager(aloneDb, [`${web.static}/p/0`], staticPages, 'never'), undefined));
  const alone = staticRate(aloneDb, web.static);
  const mixedDb = join(dir, 'mixed.forager');
  childReport('forager --render auto', await measured(forager(mixedDb, [`${web.static}/p/0`, ...spaSeeds], staticPages + pages, 'auto'), undefined));
  const mixed = staticRate(mixedDb, web.static);

  const peer = await measured(['bench/peers/crawlee-playwright.ts', '--browser', browser.path, '--max-pages', String(pages), '--concurrency', String(PAGES_AT_ONCE), ...spaSeeds.flatMap((s) => ['--seed', s])], undefined);
  const peerJson = childReport('Crawlee PlaywrightCrawler', peer);
  const peerReport = requireFigures('Crawlee PlaywrightCrawler', { pages: peerJson.pages, pagesPerSecond: peerJson.pagesPerSecond }) as { pages: number; pagesPerSecond: number };
  const peerPeak = Math.max(...peer.samples.map((s) => s.mb));

  console.log(`  Forager, every page rendered: ${renders} renders in ${rendered.seconds.toFixed(1)} s = ${renderedPerSecond.toFixed(2)} rendered pages/s (${links} app URLs known)`);
  console.log(`  Forager + browser memory (PSS): peak ${peak.toFixed(0)} MB; after ${EARLY_PAGES} pages ${at200.toFixed(0)} MB, at the end ${atEnd.toFixed(0)} MB`);
  console.log(`  static site alone: ${alone.pages} pages at ${alone.perSecond.toFixed(1)} pages/s; beside the apps (render auto): ${mixed.pages} pages at ${mixed.perSecond.toFixed(1)} pages/s (${((mixed.perSecond / alone.perSecond) * 100).toFixed(0)}%)`);
  console.log(`  Crawlee PlaywrightCrawler: ${peerReport.pages} pages in ${peer.seconds.toFixed(1)} s = ${peerReport.pagesPerSecond.toFixed(2)} pages/s, peak memory ${peerPeak.toFixed(0)} MB; Forager/Crawlee pages/s ${(renderedPerSecond / peerReport.pagesPerSecond).toFixed(2)}×`);
  const targets = [
    { name: `>= ${TARGETS.renderedPagesPerSecond} rendered pages/s`, pass: renderedPerSecond >= TARGETS.renderedPagesPerSecond, value: renderedPerSecond.toFixed(2) },
    { name: `Forager + browser peak <= ${TARGETS.peakMb} MB`, pass: peak <= TARGETS.peakMb, value: `${peak.toFixed(0)} MB` },
    { name: `memory at the end within 20% of after ${EARLY_PAGES} pages`, pass: atEnd <= at200 * (1 + TARGETS.growth), value: `${atEnd.toFixed(0)} vs ${at200.toFixed(0)} MB` },
    { name: 'static pages lose <= 10% beside rendering', pass: mixed.perSecond >= alone.perSecond * (1 - TARGETS.staticLoss), value: `${mixed.perSecond.toFixed(1)} vs ${alone.perSecond.toFixed(1)} pages/s` },
  ];
  console.log('Targets');
  for (const t of targets) console.log(`  ${t.pass ? 'PASS' : 'MISS'}  ${t.name}: ${t.value}`);
  if (SMOKE) {
    // Every part must have done its work: renders, static pages in both runs, and the peer's pages.
    const empty = Object.entries({ renders, staticAlone: alone.pages, staticMixed: mixed.pages, crawlee: peerReport.pages }).filter(([, n]) => n === 0);
    if (empty.length > 0) throw new ForagerError('BENCH_CHILD', `no pages from ${empty.map(([name]) => name).join(', ')}`, { renders, alone, mixed, peer: peerReport });
    reportSmoke({
      benchmark: 'bench:render',
      peer: 'Crawlee PlaywrightCrawler',
      figures: {
        renders, renderedPagesPerSecond: renderedPerSecond, peakMB: peak, earlyMB: at200, endMB: atEnd,
        staticAlonePagesPerSecond: alone.perSecond, staticMixedPagesPerSecond: mixed.perSecond, peerPages: peerReport.pages, peerPagesPerSecond: peerReport.pagesPerSecond,
      },
    });
  }
} finally {
  web.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
