/**
 * `npm run bench:ui`: how quickly `forager serve` shows its first screen, and whether the
 * dashboard stays responsive while a crawl runs at full speed.
 *
 *  1. Start-up, 5 runs: spawn `forager serve` (built CLI), wait for the address it prints,
 *     open it in Debian's Chromium and wait for the Collections heading. Medians.
 *  2. Responsiveness: crawl python3.11-doc over nginx on loopback with no politeness delay
 *     (the full-speed case) while the dashboard is open, then read the renderer's
 *     diagnostics hook (window.__foragerPerf): long tasks (> 50 ms, from the Long Tasks
 *     API) and dashboard updates per second. The same crawl run headless (`forager crawl`)
 *     is the peer, so the cost of watching is visible as a ratio of pages/s.
 *
 * Needs: apt-get install -y chromium nginx-light python3.11-doc
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startSites } from './support/nginx-sites.ts';

const CHROMIUM = process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium';
const BIN = fileURLToPath(new URL('../bin/forager.js', import.meta.url));
const RUNS = 5;
type PageGlobals = { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> } };
/** Runs in the page: the Collections screen shows its (empty) list. */
const EMPTY_LIST_SHOWN = (): boolean =>
  Array.from((globalThis as unknown as PageGlobals).document.querySelectorAll('h2')).some((h) => h.textContent === 'No collections yet');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface Serve {
  url: string;
  startedMs: number;
  stop(): Promise<void>;
}

async function startServe(dir: string): Promise<Serve> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--dir', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /Open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (match !== null) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`forager serve exited (${code}) before printing its address`)));
  });
  const startedMs = performance.now() - started;
  const serve: Serve = {
    url,
    startedMs,
    stop: () =>
      new Promise<void>((resolve) => {
        serves.delete(serve);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
  serves.add(serve);
  return serve;
}

async function api<T>(serve: Serve, method: string, input: unknown): Promise<T> {
  const url = new URL(serve.url);
  const token = url.searchParams.get('token') as string;
  const res = await fetch(`${url.origin}/api/${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
  const reply = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
  if (!reply.ok) throw new Error(`${method}: ${reply.error?.message}`);
  return reply.value as T;
}

async function headlessPagesPerSecond(seed: string, dir: string): Promise<number> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'crawl', '--db', join(dir, 'headless.db'), '--query', 'sockets and network servers', '--seed', seed, '--max-pages', '600', '--delay-ms', '0', '--allow-private', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (text += c));
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`forager crawl exited ${code}`))));
  });
  return (JSON.parse(out) as { pagesPerSecond: number }).pagesPerSecond;
}

const dir = mkdtempSync(join(tmpdir(), 'forager-ui-bench-'));
const serves = new Set<Serve>();
const sites = await startSites([{ name: 'python', root: '/usr/share/doc/python3.11/html' }]);
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
  const total = serveMs.map((s, i) => s + (firstScreenMs[i] as number));
  console.log(`serve start-up (median of ${RUNS}): process to address ${median(serveMs).toFixed(0)} ms, address to first screen ${median(firstScreenMs).toFixed(0)} ms, total ${median(total).toFixed(0)} ms (target < 1000 ms)`);

  const seed = (sites.sites[0] as { seed: string }).seed;
  const serve = await startServe(join(dir, 'crawl'));
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(serve.url);
  await page.getByRole('heading', { name: /collections/i }).first().waitFor();
  const created = await api<{ id: string }>(serve, 'createCollection', {
    query: 'sockets and network servers', seeds: [seed], maxPages: 600, delayMs: 0, concurrency: 16, allowPrivate: true, start: false,
  });
  await page.goto(`${new URL(serve.url).origin}/#/c/${encodeURIComponent(created.id)}/dashboard`);
  await page.getByTestId('figure-fetched').waitFor();
  const before = (await page.evaluate(() => (globalThis as unknown as { __foragerPerf: { dashboardUpdates: number; longTasks: number[] } }).__foragerPerf.longTasks.length));
  const started = performance.now();
  await api(serve, 'startCrawl', { collection: created.id });
  let status = await api<{ state: string; figures: { pagesPerSecond: number; fetched: number } }>(serve, 'crawlStatus', { collection: created.id });
  while (status.state !== 'idle') {
    await new Promise((r) => setTimeout(r, 200));
    status = await api(serve, 'crawlStatus', { collection: created.id });
  }
  const seconds = (performance.now() - started) / 1000;
  const perf = await page.evaluate(() => (globalThis as unknown as { __foragerPerf: { dashboardUpdates: number; longTasks: number[] } }).__foragerPerf);
  const longTasks = perf.longTasks.slice(before);
  await page.close();
  await serve.stop();
  const headless = await headlessPagesPerSecond(seed, dir);
  console.log(`full-speed crawl with the dashboard open: ${status.figures.fetched} pages in ${seconds.toFixed(1)} s, ${status.figures.pagesPerSecond.toFixed(1)} pages/s`);
  console.log(`  dashboard updates: ${perf.dashboardUpdates} (${(perf.dashboardUpdates / seconds).toFixed(1)}/s, target >= 2/s)`);
  console.log(`  long tasks during the crawl: ${longTasks.length}${longTasks.length > 0 ? `, longest ${Math.max(...longTasks).toFixed(0)} ms` : ''} (target: none over 50 ms)`);
  console.log(`  peer: the same crawl headless (forager crawl): ${headless.toFixed(1)} pages/s; with the UI watching / headless = ${(status.figures.pagesPerSecond / headless).toFixed(2)}`);
} finally {
  for (const serve of serves) await serve.stop();
  await browser.close();
  await sites.stop();
  rmSync(dir, { recursive: true, force: true });
}
