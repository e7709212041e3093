/**
 * `npm run bench:ui`: how quickly `forager serve` shows its first screen, and whether the
 * dashboard stays responsive while a crawl runs at full speed.
 *
 *  1. Start-up, 5 runs: spawn `forager serve` (built CLI), wait for the address it prints,
 *     open it in Debian's Chromium and wait for the Collections screen's empty list. Medians.
 *  2. Responsiveness: the app is opened as a user opens it (the printed address with its
 *     token, which starts the session), and every API call is made from inside that page,
 *     through its session cookie, as the app makes them. A collection crawls python3.11-doc
 *     over nginx on loopback with no politeness delay (the full-speed case) while its
 *     dashboard is open; the renderer's diagnostics hook (window.__foragerPerf) gives the
 *     long tasks (> 50 ms, Long Tasks API) and dashboard updates during the crawl.
 *  3. Peer: the same crawl run headless (`forager crawl` with the same settings), so the
 *     cost of watching shows as a ratio of pages/s.
 *
 * `--smoke`: one start-up run, and git-doc with a budget of 20 pages crawled with `render:
 * never` in both crawls, as starting a browser to probe pages would take most of the run
 * (see support/smoke.ts).
 *
 * Needs: apt-get install -y chromium nginx-light python3.11-doc (git-doc for --smoke)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { ForagerError } from '../crawler/errors.ts';
import type { CollectionInfo, CrawlStatus } from '../crawler/protocol/api.ts';
import { runJsonChild, shebangNodeFlags } from './support/child-run.ts';
import { NGINX_BINARY, startSites } from './support/nginx-sites.ts';
import { reportSmoke, requireFigures, SMOKE } from './support/smoke.ts';

const CHROMIUM = process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium';
const BIN = fileURLToPath(new URL('../bin/forager.js', import.meta.url));
const NODE_FLAGS = shebangNodeFlags(BIN);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const RUNS = SMOKE ? 1 : 5;
const SITE = SMOKE
  ? { name: 'git-doc', package: 'git-doc', root: '/usr/share/doc/git/html', maxPages: 20 }
  : { name: 'python3.11-doc', package: 'python3.11-doc', root: '/usr/share/doc/python3.11/html', maxPages: 600 };
const QUERY = 'sockets and network servers';
/** The same settings for the crawl watched in the app and the headless peer; rendering is the default (auto) in a full run. */
const CRAWL = { delayMs: 0, concurrency: 16, render: SMOKE ? 'never' : 'auto' };
const TARGETS = { startupMs: 1000, updatesPerSecond: 2, longTaskMs: 50 };
const CRAWL_TIMEOUT_MS = 10 * 60_000;

type PageGlobals = { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> } };
/** Runs in the page: the Collections screen shows its (empty) list. */
const EMPTY_LIST_SHOWN = (): boolean =>
  Array.from((globalThis as unknown as PageGlobals).document.querySelectorAll('h2')).some((h) => h.textContent === 'No collections yet');

interface PerfView {
  dashboardUpdates: number;
  longTasks: number[];
}
/** Runs in the page: a copy of the renderer's diagnostics hook. */
const READ_PERF = (): PerfView => {
  const perf = (globalThis as unknown as { __foragerPerf: PerfView }).__foragerPerf;
  return { dashboardUpdates: perf.dashboardUpdates, longTasks: [...perf.longTasks] };
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const missing = [
  [CHROMIUM, 'chromium'],
  [NGINX_BINARY, 'nginx-light'],
  [join(SITE.root, 'index.html'), SITE.package],
].filter(([path]) => !existsSync(path as string));
if (missing.length > 0) {
  process.stderr.write(`bench:ui needs ${missing.map(([path]) => path).join(', ')}: apt-get install -y ${missing.map(([, pkg]) => pkg).join(' ')}\n`);
  process.exit(2);
}

interface Serve {
  url: string;
  startedMs: number;
  stop(): Promise<void>;
}

const serves = new Set<Serve>();

async function startServe(dir: string): Promise<Serve> {
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve', '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (match !== null) resolve(match[1] as string);
    });
    child.once('exit', (code, signal) =>
      reject(new ForagerError('BENCH_CHILD', 'forager serve exited before printing its address', { exitCode: code, signal, stdout: out })),
    );
  });
  const serve: Serve = {
    url,
    startedMs: performance.now() - started,
    stop: () =>
      new Promise<void>((resolve) => {
        serves.delete(serve);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
  serves.add(serve);
  return serve;
}

/**
 * Calls the API from inside the app's page, as the app does: a relative URL under the
 * page's secret root, authenticated by the session cookie the printed address set.
 */
async function api<T>(page: Page, method: string, input: unknown): Promise<T> {
  const reply = await page.evaluate(
    async ([name, body]) => {
      const res = await fetch(`./api/${encodeURIComponent(name)}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
    [method, input] as const,
  );
  let parsed: { ok?: boolean; value?: T; error?: { code?: string; message?: string } };
  try {
    parsed = JSON.parse(reply.text) as typeof parsed;
  } catch (error) {
    throw new ForagerError('BENCH_CHILD', `API ${method} answered HTTP ${reply.status} with no JSON reply`, { method, status: reply.status, body: reply.text.slice(0, 300) }, { cause: error });
  }
  if (parsed.ok !== true) throw new ForagerError('BENCH_CHILD', `API ${method} failed: ${parsed.error?.message ?? reply.text.slice(0, 300)}`, { method, status: reply.status, error: parsed.error });
  return parsed.value as T;
}

/** The peer: `forager crawl` with the watched crawl's settings, headless. */
async function headlessCrawl(seed: string, dir: string): Promise<{ fetched: number; pagesPerSecond: number }> {
  const args = [...NODE_FLAGS, BIN, 'crawl', '--db', join(dir, 'headless.db'), '--query', QUERY, '--seed', seed, '--max-pages', String(SITE.maxPages),
    '--delay-ms', String(CRAWL.delayMs), '--concurrency', String(CRAWL.concurrency), '--render', CRAWL.render, '--allow-private', '--json'];
  const { json } = await runJsonChild(process.execPath, args, { cwd: REPO, timeoutMs: CRAWL_TIMEOUT_MS, label: 'forager crawl (headless peer)' });
  const figures = requireFigures('forager crawl (headless peer)', { fetched: json.fetched, pagesPerSecond: json.pagesPerSecond });
  return { fetched: figures.fetched as number, pagesPerSecond: figures.pagesPerSecond as number };
}

function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

const dir = mkdtempSync(join(tmpdir(), 'forager-ui-bench-'));
const sites = await startSites([{ name: SITE.name, root: SITE.root }]);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
try {
  const serveMs: number[] = [];
  const firstScreenMs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const serve = await startServe(join(dir, `start-${run}`));
    const page = await browser.newPage();
    const navigated = performance.now();
    await page.goto(serve.url);
    // Polled every frame: the first screen is there when the (empty) collection list is.
    await page.waitForFunction(EMPTY_LIST_SHOWN, null, { polling: 'raf' });
    firstScreenMs.push(performance.now() - navigated);
    serveMs.push(serve.startedMs);
    await page.close();
    await serve.stop();
  }
  const startup = median(serveMs.map((s, i) => s + (firstScreenMs[i] as number)));

  const seed = (sites.sites[0] as { seed: string }).seed;
  const serve = await startServe(join(dir, 'crawl'));
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // The printed address sets the session cookie and sends the page on to the app's secret root.
  await page.goto(serve.url);
  await page.waitForFunction(EMPTY_LIST_SHOWN, null, { polling: 'raf' });
  const appRoot = page.url().split('#')[0] as string;
  const created = await api<CollectionInfo>(page, 'createCollection', {
    query: QUERY, seeds: [seed], maxPages: SITE.maxPages, ...CRAWL, allowPrivate: true, start: false,
  });
  await page.goto(`${appRoot}#/c/${encodeURIComponent(created.id)}/dashboard`);
  await page.getByTestId('figure-fetched').waitFor();
  const before = await page.evaluate(READ_PERF);
  const started = performance.now();
  let status = await api<CrawlStatus>(page, 'startCrawl', { collection: created.id });
  while (status.state !== 'idle') {
    if (performance.now() - started > CRAWL_TIMEOUT_MS) throw new ForagerError('BENCH_CHILD', 'the crawl in the app did not finish', { state: status.state, fetched: status.figures.fetched });
    await new Promise((r) => setTimeout(r, 200));
    status = await api<CrawlStatus>(page, 'crawlStatus', { collection: created.id });
  }
  const seconds = (performance.now() - started) / 1000;
  const after = await page.evaluate(READ_PERF);
  await page.close();
  await serve.stop();
  const longTasks = after.longTasks.slice(before.longTasks.length);
  const updates = after.dashboardUpdates - before.dashboardUpdates;
  const watched = status.figures;
  if (watched.fetched === 0) throw new ForagerError('BENCH_CHILD', 'the crawl in the app fetched no page', { lastOutcome: status.lastOutcome, problems: status.problems.slice(0, 5) });
  const headless = await headlessCrawl(seed, dir);
  if (headless.fetched === 0) throw new ForagerError('BENCH_CHILD', 'the headless peer crawl fetched no page', { seed });
  const longest = longTasks.length > 0 ? Math.max(...longTasks) : 0;
  const ratio = watched.pagesPerSecond / headless.pagesPerSecond;

  console.log(`serve start-up (median of ${RUNS}): process to address ${median(serveMs).toFixed(0)} ms, address to first screen ${median(firstScreenMs).toFixed(0)} ms, total ${startup.toFixed(0)} ms`);
  console.log(`full-speed crawl of ${SITE.name} (budget ${SITE.maxPages}, delay ${CRAWL.delayMs} ms, concurrency ${CRAWL.concurrency}, render ${CRAWL.render}) with the dashboard open:`);
  console.log(`  ${watched.fetched} pages in ${seconds.toFixed(1)} s, ${watched.pagesPerSecond.toFixed(1)} pages/s`);
  console.log(`  dashboard updates: ${updates} (${(updates / seconds).toFixed(1)}/s)`);
  console.log(`  long tasks during the crawl: ${longTasks.length}${longTasks.length > 0 ? `, longest ${longest.toFixed(0)} ms` : ''}`);
  console.log(`  peer, the same crawl headless (forager crawl): ${headless.fetched} pages, ${headless.pagesPerSecond.toFixed(1)} pages/s`);
  console.log(`  pages/s with the dashboard open / headless: ${ratio.toFixed(2)}`);
  if (SMOKE) {
    reportSmoke({
      benchmark: 'bench:ui',
      peer: 'forager crawl (headless)',
      figures: {
        startupMs: startup, firstScreenMs: median(firstScreenMs), pages: watched.fetched, pagesPerSecond: watched.pagesPerSecond,
        updatesPerSecond: updates / seconds, longTasks: longTasks.length, headlessPages: headless.fetched, headlessPagesPerSecond: headless.pagesPerSecond, ratio,
      },
    });
  } else {
    console.log('Targets');
    console.log(`  ${verdict(startup < TARGETS.startupMs)}  start-up to the first screen < ${TARGETS.startupMs} ms (median ${startup.toFixed(0)} ms)`);
    console.log(`  ${verdict(updates / seconds >= TARGETS.updatesPerSecond)}  dashboard updates >= ${TARGETS.updatesPerSecond}/s during the crawl (${(updates / seconds).toFixed(1)}/s)`);
    console.log(`  ${verdict(longTasks.length === 0)}  no task over ${TARGETS.longTaskMs} ms during the crawl (${longTasks.length}${longTasks.length > 0 ? `, longest ${longest.toFixed(0)} ms` : ''})`);
  }
} finally {
  for (const serve of [...serves]) await serve.stop();
  await browser.close();
  await sites.stop();
  rmSync(dir, { recursive: true, force: true });
}
