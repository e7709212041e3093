/*
 * Issue 39's third target: rendering in a cluster. The render bench's web of single-page
 * apps (bench/support/render-web.ts: every page an empty shell built by one bundle and an
 * /api/ call) is crawled with every page rendered, by a plain `forager crawl` and by a
 * cluster of one `forager worker` (each app host in a partition, so in a shard, of its own),
 * one after the other with the same flags. For each: rendered pages per second, and the
 * render processes (crawler/render/render-host.ts, each with its browser) seen under it,
 * sampled from /proc every 100 ms.
 *
 * Rendered pages/s is renders over the crawl's span: from the first page fetch started to the
 * last render stored, read from the collection (the cluster's shards together). A process's
 * start and a cluster's end-of-crawl check (seconds of waiting for the other workers' word)
 * are not rendering; the wall-clock rate is printed beside it.
 *
 * Called by bench/cluster-bench.ts: measureRenderFigures(), then formatRenderFigures().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { ForagerError } from '../../crawler/errors.ts';
import { descendantPids } from '../../crawler/render/browser-memory.ts';
import { findBrowser } from '../../crawler/render/find-browser.ts';
import { startRedisServer } from '../../test/support/redis-server.ts';
import { startForager, type ForagerResult } from './forager-process.ts';

const REPO = join(import.meta.dirname, '..', '..');
const RENDER_WEB = join(REPO, 'bench', 'support', 'render-web.ts');
/** The target: a one-worker cluster renders at least this share of a plain crawl's pages/s. */
export const RENDER_RATIO_TARGET = 0.9;
const SAMPLE_MS = 100;

export interface RenderFiguresOptions {
  /** bin/forager.js of the CLI measured. */
  foragerBin: string;
  /** Temporary directory for the collections and shards (removed as each run is counted). */
  tmp: string;
  /** Where exit-usage.ts writes (forager-process.ts). */
  usageDir: string;
  timeoutMs: number;
  /** Rendered pages per run (the budget). Default 300. */
  pages?: number;
  /** App hosts of the web, each in its own partition. Default 4. */
  spaHosts?: number;
  /** Default: chromium-headless-shell, as bench:render uses. */
  browserPath?: string;
}

export interface RenderRun {
  label: string;
  renders: number;
  /** First page fetch started → last render stored, in seconds. */
  spanSeconds: number;
  wallSeconds: number;
  /** Render processes seen while it ran, and the most at once. */
  renderProcesses: number;
  mostAtOnce: number;
  /** Shards (collections) that stored renders. */
  collections: number;
}

export interface RenderFigures {
  pages: number;
  spaHosts: number;
  browser: string;
  plain: RenderRun;
  cluster: RenderRun;
  /** The cluster's rendered pages/s over the plain crawl's. */
  ratio: number;
  /** One browser for the worker, and the ratio at least RENDER_RATIO_TARGET. */
  pass: boolean;
}

export const renderedPerSecond = (run: RenderRun): number => run.renders / Math.max(0.001, run.spanSeconds);

/** The render web in a process of its own; resolves with its app hosts' origins once they listen. */
async function startRenderWeb(spaHosts: number, pagesPerHost: number): Promise<{ child: ChildProcess; origins: string[] }> {
  // One static page: the web's static host is not crawled here.
  const child = spawn(process.execPath, [RENDER_WEB, String(spaHosts), String(pagesPerHost), '1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new ForagerError('BENCH_CHILD', `the render web exited with ${code} before it was ready`, { code })));
    lines.on('line', (line) => {
      const [word, ports] = line.split(' ');
      if (word === 'ready') resolve({ child, origins: (ports as string).split(',').map((port) => `http://127.0.0.1:${port}`) });
    });
  });
}

/**
 * Render processes started by `pid`, sampled until stop(): its children only, since a process
 * the render process forks (the browser) bears its command line until it execs.
 */
function watchRenderProcesses(pid: number): { stop(): { seen: number; most: number } } {
  const seen = new Set<number>();
  let most = 0;
  const look = (): void => {
    const now = (descendantPids(pid) ?? []).filter((child) => parentOf(child) === pid && commandLine(child).includes('render-host'));
    most = Math.max(most, now.length);
    for (const child of now) seen.add(child);
  };
  const timer = setInterval(look, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return { seen: seen.size, most };
    },
  };
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Renders stored in these collections, and the span from their first page fetch to their last render (epoch ms). */
function rendersIn(paths: readonly string[]): { renders: number; collections: number; from: number; to: number } {
  let renders = 0;
  let collections = 0;
  let from = Number.POSITIVE_INFINITY;
  let to = 0;
  for (const path of paths) {
    const db = new Database(path, { readonly: true });
    try {
      const row = db.prepare('SELECT count(*) AS n, max(rendered_at) AS last FROM renders').get() as { n: number; last: number | null };
      const first = db.prepare('SELECT min(started_at) FROM pages').pluck().get() as number | null;
      if (row.n === 0 || row.last === null || first === null) continue;
      renders += row.n;
      collections++;
      from = Math.min(from, first);
      to = Math.max(to, row.last);
    } finally {
      db.close();
    }
  }
  return { renders, collections, from, to };
}

function crawlFlags(origins: readonly string[], pages: number, browser: string): string[] {
  return [
    '--query', 'checkpoint journal recovery', ...origins.flatMap((origin) => ['--seed', `${origin}/p/0`]),
    '--allow-private', '--max-pages', String(pages), '--concurrency', '16', '--delay-ms', '0', '--delay-factor', '0',
    '--render', 'always', '--browser', browser,
  ];
}

/** Runs one forager process to its end, watching the render processes under it. */
async function watched(args: string[], options: RenderFiguresOptions, label: string): Promise<{ result: ForagerResult; seen: number; most: number }> {
  const running = startForager(args, { bin: options.foragerBin, label, timeoutMs: options.timeoutMs, usageDir: options.usageDir });
  const watch = watchRenderProcesses(running.pid);
  try {
    const result = await running.done;
    return { result, ...watch.stop() };
  } finally {
    watch.stop();
  }
}

async function plainRun(origins: readonly string[], options: RenderFiguresOptions, pages: number, browser: string): Promise<RenderRun> {
  const db = join(options.tmp, 'render-plain.forager');
  try {
    const run = await watched(['crawl', '--db', db, ...crawlFlags(origins, pages, browser), '--json'], options, 'forager crawl --render always');
    const stored = rendersIn([db]);
    return { label: 'plain crawl', renders: stored.renders, spanSeconds: (stored.to - stored.from) / 1000, wallSeconds: run.result.wallMs / 1000, renderProcesses: run.seen, mostAtOnce: run.most, collections: stored.collections };
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
  }
}

async function clusterRun(origins: readonly string[], options: RenderFiguresOptions, pages: number, browser: string): Promise<RenderRun> {
  const dir = join(options.tmp, 'render-shards');
  mkdirSync(dir, { recursive: true });
  const redis = await startRedisServer();
  const forager = { bin: options.foragerBin, timeoutMs: options.timeoutMs, usageDir: options.usageDir };
  try {
    await startForager(['cluster', 'create', '--redis', redis.url, '--name', 'render', ...crawlFlags(origins, pages, browser)], { ...forager, label: 'cluster create' }).done;
    const run = await watched(['worker', '--redis', redis.url, '--name', 'render', '--dir', dir, '--json'], options, 'forager worker (render)');
    if (run.result.json?.end !== 'finished') throw new ForagerError('BENCH_CHILD', `the render worker ended "${String(run.result.json?.end)}", not with the crawl finished`, { stderrTail: run.result.stderr.slice(-4000) });
    const stored = rendersIn(readdirSync(dir).filter((f) => f.endsWith('.forager')).map((f) => join(dir, f)));
    return { label: 'cluster, 1 worker', renders: stored.renders, spanSeconds: (stored.to - stored.from) / 1000, wallSeconds: run.result.wallMs / 1000, renderProcesses: run.seen, mostAtOnce: run.most, collections: stored.collections };
  } finally {
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Both runs on one render web; throws BENCH_CHILD when no browser is installed or a run rendered nothing. */
export async function measureRenderFigures(options: RenderFiguresOptions): Promise<RenderFigures> {
  const pages = options.pages ?? 300;
  const spaHosts = options.spaHosts ?? 4;
  const found = findBrowser(options.browserPath ?? '/usr/bin/chromium-headless-shell');
  if (found.kind === 'missing') throw new ForagerError('BENCH_CHILD', `the render figures need a browser: ${found.message}`, {});
  // Each host has more pages than its share of the budget: the budget, not the web, ends both runs.
  const web = await startRenderWeb(spaHosts, Math.ceil((pages * 2) / spaHosts));
  try {
    const plain = await plainRun(web.origins, options, pages, found.path);
    const cluster = await clusterRun(web.origins, options, pages, found.path);
    for (const run of [plain, cluster]) {
      if (run.renders === 0) throw new ForagerError('BENCH_CHILD', `${run.label} rendered nothing`, { run });
    }
    const ratio = renderedPerSecond(cluster) / renderedPerSecond(plain);
    return { pages, spaHosts, browser: found.path, plain, cluster, ratio, pass: cluster.renderProcesses === 1 && cluster.mostAtOnce === 1 && ratio >= RENDER_RATIO_TARGET };
  } finally {
    web.child.kill('SIGTERM');
  }
}

export function formatRenderFigures(figures: RenderFigures): string[] {
  const line = (run: RenderRun): string =>
    `  ${run.label.padEnd(18)} ${String(run.renders).padStart(5)} renders in ${run.collections} collection(s), span ${run.spanSeconds.toFixed(1)} s = ${renderedPerSecond(run).toFixed(2)} rendered pages/s` +
    ` (by wall ${(run.renders / run.wallSeconds).toFixed(2)}); render processes seen ${run.renderProcesses}, at once ${run.mostAtOnce}`;
  return [
    `Rendering (${figures.pages} pages over ${figures.spaHosts} app hosts, every page rendered, ${figures.browser})`,
    line(figures.plain),
    line(figures.cluster),
    `  ${figures.pass ? 'PASS' : 'MISS'}  one browser per worker, rendered pages/s >= ${RENDER_RATIO_TARGET}x the plain crawl's: ${figures.cluster.renderProcesses} render process(es), ${figures.ratio.toFixed(2)}x`,
  ];
}
