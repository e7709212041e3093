#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=50 --expose-gc
// A crawl allocates many short-lived page strings: a small young generation keeps peak memory
// low at little cost in speed (measured on python3.11-doc: about 70 MB less peak RSS). V8 lets
// a fast-growing heap grow up to fourfold between full collections, most of it garbage, and a
// crawl's peak memory is that headroom over what it holds: capping the growth at twofold cut a
// full python3.11-doc crawl's peak from about 350 to 255 MB for about 5% of its speed, and at
// 1.5-fold a 30,000-page soak's peak went from 259 to 239 MB for 1.7% (59.9 to 58.9 pages/s,
// same run). --expose-gc lets the parse worker collect after a page of a megabyte or more
// (crawler/parse/parse-worker.ts). electron/main/crawler-supervisor.ts passes the same flags.
// The CLI runs the compiled crawler in dist/ (built by `npm install` through the prepare script).
import { existsSync } from 'node:fs';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`forager: needs Node 22 or later; this is Node ${process.version}. Inside the project, run it as "npx forager".`);
  process.exit(1);
}
// glibc's malloc keeps freed memory two ways that a long crawl pays for, so the CLI starts
// itself again (same pid, arguments and streams) with both turned off; the variables are read
// only when a process starts. Each thread that allocates gets an arena of its own, up to eight
// per core, and arenas keep what is freed: two arenas cut a 30,000-page soak's peak RSS from
// 271 to 249 MB at no measurable cost in speed. And each freed block of 128 KB or more (a
// response body) raises the size below which blocks come from the main heap rather than a
// mapping of their own, up to 32 MB; the main heap only shrinks from its top, so it grew with
// the crawl (56 to 73 MB over a 35,000-page soak). Pinning that threshold at its default
// keeps large blocks in mappings that are given back when freed: the main heap stayed at
// 52 to 58 MB over the same crawl (its highest RSS 257 → 240 MB). The 100,000-page soak's
// peak did not move beyond its noise (299 MB before; 286, 308 and 295 MB in three runs after).
const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };
const mallocUnset = Object.entries(MALLOC_ENV).filter(([name]) => process.env[name] === undefined);
if (process.platform === 'linux' && mallocUnset.length > 0 && typeof process.execve === 'function') {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...Object.fromEntries(mallocUnset) });
}
const entry = new URL('../dist/crawler/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('forager: the crawler is not built yet; run "npm run build" (npm install does it).');
  process.exit(1);
}
// The reader of our output went away (`forager pages | head`): it has what it wanted, so stop quietly.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
