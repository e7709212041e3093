/**
 * Where a crawl's CPU goes, by stage and by thread, read from the V8 CPU profiles that
 * `node --cpu-prof` writes, one file per thread (the parse workers get the flag from the pool,
 * crawler/parse/profiling-flags.ts). Each sample's time goes to the stage of the innermost frame
 * on its stack that STAGE_RULES knows: a sample in Node's streams under undici is fetch's, one in
 * a Buffer method under the HTML extractor is parse's. A frame's own samples may be told apart by
 * the source line they were on (V8 keeps the line of each sample of a frame): a native call such
 * as a SQLite statement's run() is no frame of its own, so the line that made it says whose it is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ForagerError } from '../../crawler/errors.ts';
import type { ThreadCpu } from './thread-cpu.ts';

export type Stage =
  | 'fetch'
  | 'decode'
  | 'parse'
  | 'parse hand-off'
  | 'text to terms'
  | 'link admission'
  | 'ordering'
  | 'judging'
  | 'store'
  | 'store commit'
  | 'full-text index'
  | 'compression'
  | 'engine (other)'
  | 'start-up'
  | 'gc'
  | 'native (unattributed)'
  | 'other'
  | 'idle';

/**
 * The stages in the order a page meets them, then the time that belongs to no one stage. Idle
 * and start-up are not among them: a thread's start-up is paid once, outside the crawl's clock.
 */
export const STAGE_ORDER: readonly Stage[] = [
  'fetch',
  'decode',
  'parse hand-off',
  'parse',
  'text to terms',
  'compression',
  'link admission',
  'ordering',
  'judging',
  'store',
  'full-text index',
  'store commit',
  'engine (other)',
  'gc',
  'native (unattributed)',
  'other',
];

/**
 * One row of the mapping: a frame whose script URL matches `url` (and whose function name
 * matches `fn`, when given) is of `stage`; with `line`, only the frame's own samples on a source
 * line that matches it are. The first matching row wins for a frame; the innermost frame that
 * any row matches wins for a sample.
 */
export interface StageRule {
  stage: Stage;
  url: RegExp;
  fn?: RegExp;
  line?: RegExp;
  /** Only a module's top level: the anonymous frame at its first character, which runs when it is imported. */
  topLevel?: true;
}

const CRAWLER = (path: string): RegExp => new RegExp(`/crawler/${path}`);
const MODULE = (name: string): RegExp => new RegExp(`/node_modules/${name}/`);
const NATIVE = /^$/;

/** The one table from frames to stages. Line rules come before their file's general row. */
export const STAGE_RULES: readonly StageRule[] = [
  // V8's own entries: not JavaScript.
  { stage: 'idle', url: NATIVE, fn: /^\(idle\)$/ },
  { stage: 'gc', url: NATIVE, fn: /^\(garbage collector\)$/ },
  { stage: 'native (unattributed)', url: NATIVE, fn: /^\(program\)$/ },
  { stage: 'other', url: NATIVE, fn: /^\(root\)$/ },
  // Loading modules: once per process and thread, whatever the crawl's size.
  { stage: 'start-up', url: /^node:internal\/(modules|bootstrap)\// },
  { stage: 'start-up', url: NATIVE, fn: /^compileFunction$/ },
  { stage: 'start-up', url: /^file:/, topLevel: true },
  // The full-text index's rows, written beside the page's (store/page-store.ts, store/version-store.ts)...
  { stage: 'full-text index', url: CRAWLER('store/(page|version)-store\\.'), line: /#(insertFts|indexCurrent|unindexCurrent)\b/ },
  // A crawl's batches of them (store/text-index-queue.ts), written apart from any one page's.
  { stage: 'full-text index', url: CRAWLER('store/text-index-queue\\.') },
  // A transaction's COMMIT: the WAL's pages, and FTS5's buffered terms, which it writes only now.
  { stage: 'store commit', url: MODULE('better-sqlite3'), fn: /^sqliteTransaction$/, line: /\bafter\.run\(\)/ },
  { stage: 'store', url: MODULE('better-sqlite3') },
  { stage: 'store', url: CRAWLER('store/') },
  // gzip for storage (parse/analyse-response.ts) runs zlib's sync path; the response's inflate, its stream path.
  { stage: 'compression', url: /^node:zlib$/, fn: /^(syncBufferWrapper|zlibBufferSync|gzipSync|deflateSync)$/ },
  { stage: 'compression', url: CRAWLER('memory/deflate-memory\\.') },
  { stage: 'decode', url: /^node:zlib$/, fn: /^(processChunk|processCallback|Gunzip|Inflate|InflateRaw|BrotliDecompress|ZlibBase\._transform|ZlibBase\._flush|ZlibBase\._final)$/ },
  { stage: 'decode', url: /^node:internal\/encoding$/ },
  { stage: 'decode', url: CRAWLER('parse/charset\\.') },
  { stage: 'decode', url: MODULE('iconv-lite') },
  // Handing a response to a parse worker and its analysis back: the messages and their copies.
  { stage: 'parse hand-off', url: CRAWLER('parse/(worker-pool|parse-pool|parse-worker|response-reader)\\.') },
  { stage: 'parse hand-off', url: /^node:internal\/(worker|per_context\/messageport)/ },
  // A page's text to terms, line hashes and simhash, in the parse worker; the same modules'
  // other functions are the judge's navigation lines (judging) and the near-duplicate index.
  { stage: 'text to terms', url: CRAWLER('relevance/(text|words|acronyms)\\.') },
  { stage: 'text to terms', url: CRAWLER('relevance/template-lines\\.'), fn: /^(lineHash|lineHashes)$/ },
  { stage: 'text to terms', url: CRAWLER('relevance/simhash\\.'), fn: /^(fnv1a|mix|simhash|vote)$/ },
  { stage: 'engine (other)', url: CRAWLER('relevance/simhash\\.') },
  { stage: 'text to terms', url: MODULE('natural') },
  { stage: 'parse', url: MODULE('(htmlparser2|entities|domhandler|domutils)') },
  { stage: 'parse', url: CRAWLER('parse/') },
  { stage: 'judging', url: CRAWLER('relevance/') },
  { stage: 'judging', url: CRAWLER('engine/(relevance-judge|verdict-revision)\\.') },
  { stage: 'link admission', url: CRAWLER('url/') },
  { stage: 'link admission', url: CRAWLER('engine/(url-admission|url-check|incoming-links)\\.') },
  { stage: 'link admission', url: CRAWLER('frontier/clock-cache\\.') },
  { stage: 'ordering', url: CRAWLER('(ordering|frontier)/') },
  { stage: 'ordering', url: CRAWLER('engine/(frontier-store|frontier-preparation|pick-settings|time-slices)\\.') },
  { stage: 'fetch', url: MODULE('undici') },
  { stage: 'fetch', url: /^node:internal\/deps\/undici\// },
  { stage: 'fetch', url: CRAWLER('(net|robots)/') },
  { stage: 'fetch', url: CRAWLER('engine/(http-client|page-fetches|fetch-retries|request-gate|request-slots|host-state|robots-gate|cookie-sink)\\.') },
  // Sockets and streams: on the main thread, the responses'. A parse worker's few are those
  // zlib's sync gzip builds around itself (compression's, counted here: some 10-20 ms a 1,000 pages).
  { stage: 'fetch', url: /^node:(net|tls|dns|_http_\w+|internal\/(stream_base_commons|streams\/|abort_controller|per_context\/domexception|net))/ },
  { stage: 'engine (other)', url: CRAWLER('(engine|cli)/') },
];

function ruleMatches(rule: StageRule, frame: ProfileNode['callFrame'], lineText: string | undefined): boolean {
  if (!rule.url.test(frame.url) || (rule.fn !== undefined && !rule.fn.test(frame.functionName))) return false;
  if (rule.topLevel === true && (frame.functionName !== '' || frame.lineNumber !== 0 || frame.columnNumber !== 0)) return false;
  if (rule.line === undefined) return true;
  return lineText !== undefined && rule.line.test(lineText);
}

/** A .cpuprofile's fields that the attribution reads (the Chrome DevTools protocol's Profile). */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
}

/** µs by stage, and within a stage by script (its file name, or Node's module name). */
export interface StageTimes {
  byStage: Map<Stage, number>;
  byStageScript: Map<Stage, Map<string, number>>;
}

/** The text of a script's 1-based line, for line rules; undefined when the script cannot be read. */
export type SourceLines = (url: string, line: number) => string | undefined;

/** Reads file: URLs from disk, each file once. */
export function diskSourceLines(): SourceLines {
  const files = new Map<string, string[] | undefined>();
  return (url, line) => {
    if (!url.startsWith('file:')) return undefined;
    if (!files.has(url)) {
      try {
        files.set(url, readFileSync(fileURLToPath(url), 'utf8').split('\n'));
      } catch {
        files.set(url, undefined);
      }
    }
    return files.get(url)?.[line - 1];
  };
}

function scriptName(url: string, functionName: string): string {
  if (url === '') return functionName;
  if (url.startsWith('node:')) return url;
  const modules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules !== null) return modules[1] as string;
  return basename(url);
}

/**
 * µs of each node's own samples, every sample counted as the profile's median interval. Not the
 * time to the next sample: a thread that waited for a core takes one sample when it runs again
 * (the profiler's signals do not queue), whose gap is the wait, charged to wherever it stopped.
 */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const deltas = profile.timeDeltas.filter((delta) => delta > 0).sort((a, b) => a - b);
  const interval = deltas[deltas.length >> 1] ?? 0;
  const self = new Map<number, number>();
  for (const id of profile.samples) self.set(id, (self.get(id) ?? 0) + interval);
  return self;
}

/** Attributes one thread's profile to stages. */
export function attributeProfile(profile: CpuProfile, sourceLines: SourceLines, rules: readonly StageRule[] = STAGE_RULES): StageTimes {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const frameStage = (node: ProfileNode, lineText: string | undefined): Stage | undefined => {
    return rules.find((rule) => ruleMatches(rule, node.callFrame, lineText))?.stage;
  };
  const inherited = new Map<number, Stage>();
  const stageOf = (id: number | undefined): Stage => {
    if (id === undefined) return 'other';
    const known = inherited.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id) as ProfileNode;
    const stage = frameStage(node, undefined) ?? stageOf(parents.get(id));
    inherited.set(id, stage);
    return stage;
  };
  const times: StageTimes = { byStage: new Map(), byStageScript: new Map() };
  const add = (stage: Stage, script: string, us: number): void => {
    times.byStage.set(stage, (times.byStage.get(stage) ?? 0) + us);
    const scripts = times.byStageScript.get(stage) ?? new Map<string, number>();
    scripts.set(script, (scripts.get(script) ?? 0) + us);
    times.byStageScript.set(stage, scripts);
  };
  for (const [id, us] of selfTimes(profile)) {
    const node = nodes.get(id);
    if (node === undefined) throw new ForagerError('BENCH_CHILD', `a sample names node ${id}, which the profile lacks`, { id });
    const script = scriptName(node.callFrame.url, node.callFrame.functionName);
    const ticks = node.positionTicks ?? [];
    const allTicks = ticks.reduce((sum, tick) => sum + tick.ticks, 0);
    if (allTicks === 0) {
      add(stageOf(id), script, us);
      continue;
    }
    for (const tick of ticks) {
      const lineText = sourceLines(node.callFrame.url, tick.line);
      add(frameStage(node, lineText) ?? stageOf(parents.get(id)), script, (us * tick.ticks) / allTicks);
    }
  }
  return times;
}

export function readCpuProfile(path: string): CpuProfile {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<CpuProfile>;
  if (!Array.isArray(parsed.nodes) || !Array.isArray(parsed.samples) || !Array.isArray(parsed.timeDeltas) || typeof parsed.startTime !== 'number' || typeof parsed.endTime !== 'number') {
    throw new ForagerError('BENCH_CHILD', `${path} is not a V8 CPU profile`, { path });
  }
  return parsed as CpuProfile;
}

/** One thread's stages: `main`, `parse worker`, … */
export interface ThreadStages {
  thread: string;
  times: StageTimes;
}

/** Node names a thread's profile CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is the main thread. */
function threadIdOf(file: string): number {
  const id = /^CPU\.\d+\.\d+\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(file)?.[1];
  if (id === undefined) throw new ForagerError('BENCH_CHILD', `${file} is not named as node --cpu-prof names a profile`, { file });
  return Number(id);
}

/** What a worker thread ran, from the scripts in its profile. */
function workerKind(profile: CpuProfile): string {
  const urls = profile.nodes.map((node) => node.callFrame.url);
  // A module shows only where a sample fell in it, so look for what only each kind of worker runs much of.
  if (urls.some((url) => /\/node_modules\/pdfjs-dist\/|\/crawler\/parse\/documents\/read-pdf\./.test(url))) return 'document worker';
  if (urls.some((url) => /\/crawler\/parse\//.test(url))) return 'parse worker';
  return 'worker';
}

function addTimes(into: StageTimes, from: StageTimes): StageTimes {
  for (const [stage, us] of from.byStage) into.byStage.set(stage, (into.byStage.get(stage) ?? 0) + us);
  for (const [stage, scripts] of from.byStageScript) {
    const sum = into.byStageScript.get(stage) ?? new Map<string, number>();
    for (const [script, us] of scripts) sum.set(script, (sum.get(script) ?? 0) + us);
    into.byStageScript.set(stage, sum);
  }
  return into;
}

/**
 * Every thread's profile in a directory, the main thread first, workers in the order they
 * started. The main thread may have written more than one: the CLI starts itself again (execve,
 * the same pid) to set malloc's options, and the first start writes its profile too.
 */
export function readThreadStages(dir: string, sourceLines: SourceLines = diskSourceLines()): ThreadStages[] {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.cpuprofile'))
    .sort((a, b) => threadIdOf(a) - threadIdOf(b) || a.localeCompare(b));
  if (files.length === 0) throw new ForagerError('BENCH_CHILD', `no CPU profile was written in ${dir}`, { dir });
  const kinds = new Map<string, number>();
  const threads: ThreadStages[] = [];
  for (const file of files) {
    const profile = readCpuProfile(join(dir, file));
    const times = attributeProfile(profile, sourceLines);
    if (threadIdOf(file) === 0) {
      const main = threads.find((thread) => thread.thread === 'main');
      if (main === undefined) threads.push({ thread: 'main', times });
      else addTimes(main.times, times);
      continue;
    }
    const kind = workerKind(profile);
    const nth = (kinds.get(kind) ?? 0) + 1;
    kinds.set(kind, nth);
    threads.push({ thread: nth === 1 ? kind : `${kind} ${nth}`, times });
  }
  return threads;
}

/** One stage's time over every thread, in µs. */
export interface StageRow {
  stage: Stage;
  us: number;
  /** In the order of StageReport.threads. */
  byThread: number[];
  /** The scripts its time was in, most first. */
  scripts: [script: string, us: number][];
}

export interface StageReport {
  pages: number;
  threads: { thread: string; busyUs: number; idleUs: number; startUpUs: number }[];
  /** Every stage with time, in STAGE_ORDER; idle and start-up are not among them (threads[]). */
  rows: StageRow[];
  busyUs: number;
  /** Whether each profiled thread's time is its CPU time as the kernel counted it, in the shares its samples give. */
  measured: boolean;
  /** The process's threads that no profile covers, by kind, in µs of CPU (none without a measure). */
  unprofiled: { kind: string; us: number }[];
}

/** What a kernel thread name says a thread is, for those no profile covers. */
const UNPROFILED_KINDS: readonly [RegExp, string][] = [
  [/^V8Worker$/, "V8's helpers (GC, compiler)"],
  [/^libuv-worker$/, "libuv's pool"],
  [/^v8:ProfEvntProc$/, 'the profiler itself (not the crawl)'],
];

function scaleTimes(times: StageTimes, factor: number): StageTimes {
  const scaled: StageTimes = { byStage: new Map(), byStageScript: new Map() };
  for (const [stage, us] of times.byStage) scaled.byStage.set(stage, stage === 'idle' ? us : us * factor);
  for (const [stage, scripts] of times.byStageScript) {
    scaled.byStageScript.set(stage, new Map([...scripts].map(([script, us]): [string, number] => [script, stage === 'idle' ? us : us * factor])));
  }
  return scaled;
}

/**
 * Each profiled thread's time set to its measured CPU time, shared among its stages as its
 * samples are: the main thread is `MainThread`, the workers are the `WorkerThread`s in the order
 * both started. Undefined when the measure does not name as many workers as there are profiles.
 */
function measuredThreads(threads: readonly ThreadStages[], measured: readonly ThreadCpu[]): ThreadStages[] | undefined {
  const main = measured.find((thread) => thread.name === 'MainThread');
  const workers = measured.filter((thread) => thread.name === 'WorkerThread');
  if (main === undefined || workers.length !== threads.length - 1) return undefined;
  return threads.map((thread, i) => {
    let sampled = 0;
    for (const [stage, us] of thread.times.byStage) if (stage !== 'idle') sampled += us;
    const cpuUs = 1000 * (i === 0 ? main : (workers[i - 1] as ThreadCpu)).cpuMs;
    return { thread: thread.thread, times: scaleTimes(thread.times, sampled > 0 ? cpuUs / sampled : 0) };
  });
}

function unprofiledThreads(measured: readonly ThreadCpu[]): { kind: string; us: number }[] {
  const kinds = new Map<string, number>();
  for (const thread of measured) {
    if (thread.name === 'MainThread' || thread.name === 'WorkerThread') continue;
    const kind = UNPROFILED_KINDS.find(([name]) => name.test(thread.name))?.[1] ?? 'other threads';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1000 * thread.cpuMs);
  }
  return [...kinds].map(([kind, us]) => ({ kind, us })).filter(({ us }) => us > 0);
}

/** The stages over the threads; with `measured` (thread-cpu.ts), in CPU time as the kernel counted it. */
export function stageReport(sampledThreads: readonly ThreadStages[], pages: number, measured?: readonly ThreadCpu[]): StageReport {
  const scaled = measured === undefined ? undefined : measuredThreads(sampledThreads, measured);
  const threads = scaled ?? sampledThreads;
  const rows: StageRow[] = [];
  for (const stage of STAGE_ORDER) {
    const byThread = threads.map(({ times }) => times.byStage.get(stage) ?? 0);
    const us = byThread.reduce((sum, t) => sum + t, 0);
    if (us === 0) continue;
    const scripts = new Map<string, number>();
    for (const { times } of threads) for (const [script, t] of times.byStageScript.get(stage) ?? []) scripts.set(script, (scripts.get(script) ?? 0) + t);
    rows.push({ stage, us, byThread, scripts: [...scripts].sort((a, b) => b[1] - a[1]) });
  }
  const summed = threads.map(({ thread, times }) => {
    const idleUs = times.byStage.get('idle') ?? 0;
    const startUpUs = times.byStage.get('start-up') ?? 0;
    let busyUs = 0;
    for (const [stage, us] of times.byStage) if (stage !== 'idle' && stage !== 'start-up') busyUs += us;
    return { thread, busyUs, idleUs, startUpUs };
  });
  return {
    pages,
    threads: summed,
    rows,
    busyUs: summed.reduce((sum, t) => sum + t.busyUs, 0),
    measured: scaled !== undefined,
    unprofiled: scaled === undefined || measured === undefined ? [] : unprofiledThreads(measured),
  };
}

/** µs over the pages as ms per 1,000 pages. */
function perThousandPages(us: number, pages: number): string {
  return pages > 0 ? (us / pages).toFixed(0) : '-';
}

const SCRIPTS_SHOWN = 3;

/** The table: each stage's ms of CPU per 1,000 pages, its share of the busy time, and each thread's part. */
export function formatStageReport(report: StageReport, indent = '  '): string {
  const { pages } = report;
  const threadWidth = Math.max(8, ...report.threads.map((t) => t.thread.length + 2));
  const header = `${'stage'.padEnd(22)}${'ms/1k pages'.padStart(12)}${'share'.padStart(7)}${report.threads.map((t) => t.thread.padStart(threadWidth)).join('')}  where (top scripts, ms/1k pages)`;
  const lines = [header];
  for (const row of report.rows) {
    const share = report.busyUs > 0 ? `${((100 * row.us) / report.busyUs).toFixed(1)}%` : '-';
    const where = row.scripts
      .slice(0, SCRIPTS_SHOWN)
      .map(([script, us]) => `${script} ${perThousandPages(us, pages)}`)
      .join(', ');
    lines.push(`${row.stage.padEnd(22)}${perThousandPages(row.us, pages).padStart(12)}${share.padStart(7)}${row.byThread.map((us) => perThousandPages(us, pages).padStart(threadWidth)).join('')}  ${where}`);
  }
  lines.push(`${'busy (all stages)'.padEnd(22)}${perThousandPages(report.busyUs, pages).padStart(12)}${'100%'.padStart(7)}${report.threads.map((t) => perThousandPages(t.busyUs, pages).padStart(threadWidth)).join('')}`);
  const apart = (label: string, us: (t: StageReport['threads'][number]) => number): string =>
    `${label.padEnd(22)}${''.padStart(12)}${''.padStart(7)}${report.threads.map((t) => perThousandPages(us(t), pages).padStart(threadWidth)).join('')}`;
  lines.push(apart('start-up (not counted)', (t) => t.startUpUs));
  lines.push(apart('idle (sampled, apart)', (t) => t.idleUs));
  if (report.unprofiled.length > 0) {
    lines.push(`threads no profile sees (CPU ms/1k pages, start-up included): ${report.unprofiled.map(({ kind, us }) => `${kind} ${perThousandPages(us, pages)}`).join(', ')}`);
  }
  lines.push(
    report.measured
      ? "each thread's time is its CPU time as the kernel counted it, shared among the stages as its samples are"
      : "each thread's time is its samples' count times the sampling interval (no measure of the threads' CPU time)",
  );
  return lines.map((line) => `${indent}${line}`).join('\n');
}
