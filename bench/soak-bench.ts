/*
 * `npm run bench:soak`: a long crawl of a synthetic web with hostile pages in it, killed
 * with SIGKILL twice and resumed. It reports Forager's peak memory and whether memory stays
 * flat, pages/s, the failure reasons, SQLite's integrity check, that nothing committed was
 * lost to a kill, and that a resume fetched again no more URLs than were in flight.
 *
 * Options: --pages N (100000), --hosts N (500), --concurrency N (16), --strategy NAME (focused,
 * the default's; bfs gives every URL the same priority, so every ready host gets its turns).
 * `--smoke`: 1,000 pages of 10 hosts, time-outs of 2 s so that the stalling pages end
 * quickly, samples every 50 ms so that each tenth of so short a crawl has some (see
 * support/smoke.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { ForagerError } from '../crawler/errors.ts';
import { shebangNodeFlags } from './support/child-run.ts';
import { numberOption, stringOption } from './support/options.ts';
import { reportSmoke, SMOKE } from './support/smoke.ts';

const REPO = join(import.meta.dirname, '..');
const FORAGER = join(REPO, 'bin/forager.js');
const TARGET_PEAK_MB = 300;
const FLATNESS = 0.1;

const pages = numberOption('pages', SMOKE ? 1000 : 100_000);
const hosts = numberOption('hosts', SMOKE ? 10 : 500);
const SAMPLE_MS = SMOKE ? 50 : 250;
const concurrency = numberOption('concurrency', 16);
const strategy = stringOption('strategy', 'focused');
const pagesPerHost = Math.ceil((pages * 1.25) / hosts);

/** The web, in its own process; resolves with the ports once it listens. Every request it serves is logged by `log`. */
async function startWeb(log: (port: string, path: string) => void): Promise<{ child: ChildProcess; ports: string[] }> {
  const child = spawn(process.execPath, [join(REPO, 'bench/support/soak-web.ts'), String(hosts), String(pagesPerHost)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  return new Promise((resolve) => {
    lines.on('line', (line) => {
      if (line.startsWith('ready ')) {
        resolve({ child, ports: (line.split(' ')[2] as string).split(',') });
        return;
      }
      const space = line.indexOf(' ');
      log(line.slice(0, space), line.slice(space + 1));
    });
  });
}

interface Sample {
  pages: number;
  rssMb: number;
  /** 0 for the first crawl, 1 and 2 for the resumes. */
  run: number;
}

function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** What the collection held when a crawl was killed. */
interface AtKill {
  committed: Set<string>;
  /** URLs marked in flight: the only ones a resume may fetch again. */
  inflight: Set<string>;
  /** URLs waiting for a retry after a transient failure: asking again is the retry, not a re-fetch. */
  retrying: Set<string>;
}

function stateAtKill(dbPath: string): AtKill {
  const db = new Database(dbPath, { readonly: true });
  try {
    const urls = (sql: string): Set<string> => new Set(db.prepare(sql).pluck().all() as string[]);
    return {
      committed: urls('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id'),
      inflight: urls('SELECT url FROM urls WHERE state = 1'),
      retrying: urls('SELECT url FROM urls WHERE state = 0 AND attempts > 0'),
    };
  } finally {
    db.close();
  }
}

function pageCount(db: Database.Database): number {
  try {
    return db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  } catch {
    return -1;
  }
}

/**
 * Runs `forager crawl` or `resume` until it ends or until `killAt` pages are stored (then
 * SIGKILL). Samples its RSS every SAMPLE_MS beside the stored page count.
 */
async function runForager(args: string[], dbPath: string, samples: Sample[], killAt: number | undefined): Promise<{ killed: boolean; seconds: number; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...shebangNodeFlags(FORAGER), FORAGER, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let reader: Database.Database | undefined;
  let killed = false;
  const timer = setInterval(() => {
    reader ??= (() => {
      try {
        return new Database(dbPath, { readonly: true, fileMustExist: true });
      } catch {
        return undefined;
      }
    })();
    const rss = rssMb(child.pid as number);
    const stored = reader === undefined ? 0 : pageCount(reader);
    if (rss !== undefined && stored >= 0) samples.push({ pages: stored, rssMb: rss, run: phase });
    if (killAt !== undefined && stored >= killAt && !killed) {
      killed = true;
      child.kill('SIGKILL');
    }
  }, SAMPLE_MS);
  await new Promise((resolve) => child.once('exit', resolve));
  clearInterval(timer);
  reader?.close();
  return { killed, seconds: (performance.now() - started) / 1000, stdout };
}

/** NaN for no values: a stretch of the crawl with no sample must not look like 0 MB. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'forager-soak-'));
const dbPath = join(dir, 'soak.forager');
/** For each URL, the crawl phase (0, 1, 2) of each request for it. */
const requests = new Map<string, number[]>();
let phase = 0;
const web = await startWeb((port, path) => {
  if (path === '/robots.txt' || path.startsWith('/forager-probe-')) return;
  const url = `http://127.0.0.1:${port}${path}`;
  const list = requests.get(url);
  if (list === undefined) requests.set(url, [phase]);
  else list.push(phase);
});
try {
  const samples: Sample[] = [];
  const seeds = web.ports.slice(0, 5).flatMap((port) => ['--seed', `http://127.0.0.1:${port}/p/0`]);
  const crawlArgs = ['crawl', '--db', dbPath, '--query', 'checkpoint journal recovery', ...seeds, '--max-pages', String(pages), '--strategy', strategy, '--scope', 'any',
    '--allow-private', '--concurrency', String(concurrency), '--delay-ms', '0', '--delay-factor', '0', ...(SMOKE ? ['--timeout-ms', '2000'] : []), '--json'];
  console.log(`soak: ${pages} pages from ${hosts} hosts (${pagesPerHost} pages each, 1 in 20 hostile), concurrency ${concurrency}`);
  const kills = [Math.round(pages * 0.3), Math.round(pages * 0.6)];
  const atKills: AtKill[] = [];
  let seconds = 0;
  let last = await runForager(crawlArgs, dbPath, samples, kills[0]);
  seconds += last.seconds;
  for (const [i, killAt] of [kills[1], undefined].entries()) {
    if (!last.killed) break;
    atKills.push(stateAtKill(dbPath));
    console.log(`  killed with SIGKILL at ${atKills[i]?.committed.size} stored pages, ${atKills[i]?.inflight.size} URLs in flight; resuming`);
    phase = i + 1;
    last = await runForager(['resume', '--db', dbPath, '--json'], dbPath, samples, killAt);
    seconds += last.seconds;
  }
  const final = JSON.parse(last.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, number>;
  const db = new Database(dbPath, { readonly: true });
  const integrity = db.pragma('integrity_check', { simple: true }) as string;
  const stored = db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  const reasons = db.prepare("SELECT coalesce(reason, '(none)') AS reason, count(*) AS n FROM urls WHERE state = 3 GROUP BY reason ORDER BY n DESC").all() as { reason: string; n: number }[];
  const finalUrls = new Set(db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id').pluck().all() as string[]);
  db.close();

  const lost = atKills.map((at) => [...at.committed].filter((url) => !finalUrls.has(url)).length);
  // A URL asked for before a kill and again after it was fetched again, unless it was waiting for a retry.
  const refetched = atKills.map((at, i) =>
    [...requests.entries()].filter(([url, phases]) => phases.includes(i + 1) && phases.includes(i) && !at.retrying.has(url)).map(([url]) => url),
  );
  const inflightCounts = atKills.map((at) => at.inflight.size);
  const refetchedCommitted = refetched.map((urls, i) => urls.filter((url) => atKills[i]?.committed.has(url)).length);

  const peakSample = samples.reduce((a, b) => (b.rssMb > a.rssMb ? b : a));
  const peak = peakSample.rssMb;
  const middle = median(samples.filter((s) => s.pages >= stored * 0.4 && s.pages <= stored * 0.6).map((s) => s.rssMb));
  const lastTenth = Math.max(...samples.filter((s) => s.pages >= stored * 0.9).map((s) => s.rssMb));
  console.log(`  stored ${stored} pages in ${seconds.toFixed(0)} s over three runs: ${(stored / seconds).toFixed(1)} pages/s`);
  console.log(`  peak RSS ${peak.toFixed(0)} MB (${['in the first run', 'in the first resume', 'in the second resume'][peakSample.run]}, at ${peakSample.pages} stored pages); middle of the crawl ${middle.toFixed(0)} MB, last tenth at most ${lastTenth.toFixed(0)} MB`);
  // Median beside highest per tenth of the crawl: a level that climbs and a short spike call for different fixes.
  console.log('  RSS by tenth of the crawl (stored pages: median / highest MB):');
  const byTenth: number[][] = Array.from({ length: 10 }, () => []);
  for (const s of samples) byTenth[Math.min(9, Math.floor((s.pages * 10) / stored))]?.push(s.rssMb);
  byTenth.forEach((rss, tenth) => {
    if (rss.length > 0) console.log(`    ${String(tenth * 10).padStart(3)}-${tenth * 10 + 10}%  ${median(rss).toFixed(0)} / ${Math.max(...rss).toFixed(0)}`);
  });
  console.log(`  integrity_check: ${integrity}`);
  console.log('  failure reasons:');
  for (const r of reasons) console.log(`    ${String(r.n).padStart(7)}  ${r.reason}`);
  console.log(`  committed pages lost to the kills: ${lost.join(', ')}`);
  console.log(`  URLs fetched again after each resume: ${refetched.map((r) => r.length).join(', ')}; in flight at each kill: ${inflightCounts.join(', ')}; committed pages among them: ${refetchedCommitted.join(', ')}`);
  console.log(`  last run: ${JSON.stringify({ outcome: final.outcome, fetched: final.fetched, failed: final.failed, peakRssBytes: final.peakRssBytes })}`);
  const targets = [
    { name: `peak RSS < ${TARGET_PEAK_MB} MB`, pass: peak < TARGET_PEAK_MB, value: `${peak.toFixed(0)} MB` },
    { name: 'memory flat: last tenth within 10% of the middle', pass: lastTenth <= middle * (1 + FLATNESS), value: `${lastTenth.toFixed(0)} vs ${middle.toFixed(0)} MB` },
    { name: 'integrity_check ok', pass: integrity === 'ok', value: integrity },
    { name: 'nothing committed lost to kill -9', pass: lost.every((n) => n === 0), value: lost.join(', ') },
    {
      name: 're-fetches after each resume <= URLs in flight at the kill, none of them committed',
      pass: refetched.every((r, i) => r.length <= (inflightCounts[i] ?? 0)) && refetchedCommitted.every((n) => n === 0),
      value: refetched.map((r, i) => `${r.length} <= ${inflightCounts[i]}`).join(', '),
    },
  ];
  console.log('Targets');
  for (const t of targets) console.log(`  ${t.pass ? 'PASS' : 'MISS'}  ${t.name} (${t.value})`);
  if (SMOKE) {
    // The benchmark is about kills and resumes: a smoke run in which one did not happen did not exercise it.
    if (atKills.length !== kills.length) throw new ForagerError('BENCH_CHILD', `the crawl was killed ${atKills.length} times, not ${kills.length}`, { kills, stored });
    reportSmoke({
      benchmark: 'bench:soak',
      peer: null,
      figures: {
        stored, pagesPerSecond: stored / seconds, peakRssMB: peak, middleRssMB: middle, lastTenthRssMB: lastTenth,
        lostAtFirstKill: lost[0], lostAtSecondKill: lost[1], refetchedAfterFirstResume: refetched[0]?.length, refetchedAfterSecondResume: refetched[1]?.length,
      },
    });
  }
} finally {
  web.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
