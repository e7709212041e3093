import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseSmokeLine } from '../../bench/support/smoke.ts';

/*
 * Every `npm run bench…` script runs end to end with --smoke on tiny inputs, so a benchmark
 * that breaks fails `npm test` the day it breaks. A smoke run proves the benchmark works
 * (exit 0, finite figures, its peer ran), never a speed. A benchmark whose Debian packages
 * are missing is skipped with a message saying which, except under CI, where it fails
 * (.ci/run installs them), as the browser tests do.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SMOKE_TIMEOUT_MS = 150_000;

interface Need {
  pkg: string;
  /** A file the package installs. */
  path: string;
}

const CHROMIUM: Need = { pkg: 'chromium', path: process.env.FORAGER_CHROMIUM ?? '/usr/bin/chromium' };
const HEADLESS_SHELL: Need = { pkg: 'chromium-headless-shell', path: '/usr/bin/chromium-headless-shell' };
const NGINX: Need = { pkg: 'nginx-light', path: '/usr/sbin/nginx' };
const GIT_DOC: Need = { pkg: 'git-doc', path: '/usr/share/doc/git/html/index.html' };
const SQLITE_DOC: Need = { pkg: 'sqlite3-doc', path: '/usr/share/doc/sqlite3/index.html' };
const REDIS_SERVER: Need = { pkg: 'redis-server', path: '/usr/bin/redis-server' };
const PDFTOTEXT: Need = { pkg: 'poppler-utils', path: '/usr/bin/pdftotext' };
const R_DOC_PDF: Need = { pkg: 'r-doc-pdf', path: '/usr/share/R/doc/manual/R-FAQ.pdf' };

interface SmokeEntry {
  /** Arguments after the npm script's own command. */
  args: string[];
  needs: Need[];
  /** The peer the smoke run must report having run beside Forager; null for a benchmark without one. */
  peer: string | null;
  /** Set while a benchmark's smoke mode is being written: its test runs and is shown, without failing the suite. */
  todo?: string;
}

/** One entry per `bench…` script of package.json: the coverage test below fails on a missing or stale one. */
const SMOKES: Record<string, SmokeEntry> = {
  bench: { args: ['--smoke'], needs: [NGINX, GIT_DOC], peer: 'Crawlee CheerioCrawler' },
  'bench:rules': { args: ['--smoke'], needs: [NGINX, GIT_DOC], peer: 'forager crawl without rules' },
  'bench:seen': { args: ['--smoke'], needs: [], peer: 'Crawlee RequestQueue' },
  'bench:focus': { args: ['--smoke'], needs: [NGINX, GIT_DOC, SQLITE_DOC], peer: 'naive and bfs replays' },
  'bench:lab': { args: ['--smoke'], needs: [], peer: null },
  'bench:ui': { args: ['--smoke'], needs: [CHROMIUM, NGINX, GIT_DOC], peer: 'forager crawl (headless)' },
  'bench:export': { args: ['--smoke'], needs: [], peer: 'warcio.js CDXIndexer (all records)' },
  'bench:soak': { args: ['--smoke'], needs: [], peer: null },
  'bench:render': { args: ['--smoke'], needs: [HEADLESS_SHELL], peer: 'Crawlee PlaywrightCrawler' },
  'bench:cluster': { args: ['--smoke'], needs: [REDIS_SERVER], peer: 'forager crawl' },
  'bench:refresh': { args: ['--smoke'], needs: [NGINX, SQLITE_DOC], peer: 'forager crawl (fresh)' },
  'bench:documents': { args: ['--smoke'], needs: [PDFTOTEXT, R_DOC_PDF], peer: 'pdftotext' },
};

const scripts = (JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts;
const benchScripts = Object.keys(scripts).filter((name) => /^bench(:|$)/.test(name));

/**
 * The node arguments of an npm script's last command (`npm run build && node bench/x.ts`):
 * its flags and the benchmark file, run here on the Node that runs the tests.
 */
function nodeArgsOf(command: string): string[] {
  const last = (command.split('&&').at(-1) ?? '').trim().split(/\s+/);
  if (last[0] !== 'node' || !last.some((word) => word.endsWith('.ts'))) throw new Error(`the script "${command}" does not end in "node … bench/….ts"`);
  return last.slice(1);
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

function run(args: string[]): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A smoke run that hangs fails here, with its output so far, rather than stalling the suite.
  const timer = setTimeout(() => child.kill('SIGKILL'), SMOKE_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

describe('every benchmark runs (--smoke)', () => {
  it('has a smoke run for each bench script of package.json, and none for a script that is gone', () => {
    assert.deepEqual(benchScripts.filter((name) => !(name in SMOKES)), [], 'bench scripts without an entry in SMOKES');
    assert.deepEqual(Object.keys(SMOKES).filter((name) => !benchScripts.includes(name)), [], 'entries in SMOKES for scripts package.json no longer has');
  });

  for (const [script, entry] of Object.entries(SMOKES)) {
    const missing = entry.needs.filter((need) => !existsSync(need.path));
    const skip = missing.length > 0 && process.env.CI === undefined ? `needs ${missing.map((n) => n.path).join(', ')} (apt-get install -y ${missing.map((n) => n.pkg).join(' ')})` : false;
    it(`npm run ${script} -- ${entry.args.join(' ')}`, { skip, todo: entry.todo, timeout: SMOKE_TIMEOUT_MS + 10_000 }, async (t) => {
      const command = scripts[script];
      assert.ok(command !== undefined, `package.json has no script ${script}`);
      const result = await run([...nodeArgsOf(command), ...entry.args]);
      t.diagnostic(`${script} --smoke took ${result.seconds.toFixed(1)} s`);
      const output = `\n--- stdout ---\n${result.stdout.slice(-3000)}\n--- stderr ---\n${result.stderr.slice(-3000)}`;
      assert.equal(result.code, 0, `${script} --smoke exited with ${result.signal ?? result.code}${output}`);
      const report = parseSmokeLine(result.stdout);
      assert.ok(report !== undefined, `${script} --smoke printed no SMOKE line${output}`);
      assert.equal(report.benchmark, script);
      assert.equal(report.peer, entry.peer, `${script}'s peer`);
      const figures = Object.entries(report.figures);
      assert.ok(figures.length > 0, `${script} --smoke reported no figures`);
      for (const [name, value] of figures) assert.ok(Number.isFinite(value), `${script} figure ${name} is ${String(value)}`);
    });
  }
});
