/*
 * How a crawler process is started: the CLI (bin/forager.js) and the app's crawler process
 * (electron/main/crawler-supervisor.ts) both take these, so the two cannot drift apart.
 *
 * V8 flags. A crawl allocates many short-lived page strings: a small young generation keeps
 * peak memory low at little cost in speed (on python3.11-doc about 70 MB less peak RSS). V8 lets
 * a fast-growing heap grow up to fourfold between full collections, most of it garbage, and a
 * crawl's peak is that headroom over what it holds: capping the growth at twofold cut a full
 * python3.11-doc crawl's peak from about 350 to 255 MB for about 5% of its speed, and at
 * 1.5-fold a 30,000-page soak's peak went from 259 to 239 MB for 1.7%. --expose-gc lets the
 * parse worker collect after a page of a megabyte or more (parse/parse-worker.ts).
 *
 * glibc malloc settings, read only when a process starts. Each thread that allocates gets an
 * arena of its own, up to eight per core, and arenas keep what is freed: two arenas cut a
 * 30,000-page soak's peak RSS from 271 to 249 MB at no measurable cost in speed. And each freed
 * block of 128 KB or more (a response body) raises the size below which blocks come from the
 * main heap rather than a mapping of their own, up to 32 MB; the main heap only shrinks from
 * its top, so it grew with the crawl (56 to 73 MB over a 35,000-page soak). Pinning the
 * threshold at its default keeps large blocks in mappings that are given back when freed.
 * Pinning it also pins the trim threshold at 128 KB, and zlib's state for one call (about
 * 300 KB of blocks under 128 KB: every stored body is gzipped) then sat at the heap's top,
 * was given back when freed and faulted in afresh by the next call: 4.5 brk calls a gzip, and
 * a small page's gzip five times slower. A trim threshold of 1 MB keeps that much free at the top.
 */

/** The V8 flags of a crawler process. bin/forager.js's shebang repeats them (a test checks it). */
export const CRAWLER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--heap-growing-percent=50', '--expose-gc'];

/** The malloc settings of a crawler process; a value already in the environment wins. */
export const CRAWLER_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '1048576' };

/** The malloc settings `env` lacks (empty when it has them all). */
export function missingMallocSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(CRAWLER_MALLOC_ENV).filter(([name]) => env[name] === undefined));
}
