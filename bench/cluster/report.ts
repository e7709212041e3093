/*
 * bench:cluster's printed report: the table of medians with ratios against the plain crawl,
 * the bound each run hit, the stream backlog over time, what Redis was asked, Redis memory
 * per queued link, what the workers' logs reported, the targets, and what each figure means.
 */
import type { BacklogSample } from './backlog-sampler.ts';
import type { LinkMemoryResult } from './link-memory.ts';
import type { RunResult } from './run-result.ts';
import type { ConfigSummary, TargetResult } from './summary.ts';

/** What each figure means: printed under the report and repeated at the top of cluster-bench.ts. */
export const LEGEND = `What the figures mean
  pages stored       plain crawl: its --json "fetched"; a cluster: pages in the collection \`forager merge\` made
                     of its shards (checked equal to the plain crawl's, else the bench fails)
  wall s             from starting the crawling processes to the exit of the last one: Node start-up, opening
                     shards, and for a cluster the end-of-crawl check (every worker idle in two statuses a
                     second apart) included
  span s             the web's request log: first request to the end of the last response (the crawl itself)
  pages/s            pages stored / span; "by wall" = pages / wall s
  CPU s/1000 pages   user + system CPU of the crawling processes (plain: the crawl, read at its exit; cluster:
                     every worker's --json cpuUserMs + cpuSystemMs) plus, for a cluster, Redis's own
                     (INFO used_cpu_user + used_cpu_sys, after − before), per 1,000 pages stored.
                     \`cluster create\`, \`merge\`, the web and this bench are not counted
  of it Redis        Redis's share of that
  of it shards open/close  the workers' CPU (main thread) opening shards (a copy of the template, SQLite's pragmas,
                     the fence, the engine set up and resumed) and closing them (SQLite's checkpoint):
                     a cost per partition held, whatever the pages; "without open/close" is the
                     ratio with it left out
  shards opened      shards opened by all the workers, reopenings after a hand-over included
  peak RSS MB        VmHWM of each crawling process at its exit (largest one, median over runs)
  Redis peak MB      INFO used_memory_peak of the run's fresh redis-server
  Redis ops/page     INFO total_commands_processed, after − before, less the bench's own sampling, per page
  backlog max        most stream entries waiting at once over all 256 partitions' streams (XLEN each second, a smoke run every 250 ms;
                     an entry is one batch of up to 200 links)
  merge s            wall time of \`forager merge\` of the run's shards (not in the crawl's figures)
  crawlers busy      crawling processes' CPU / (wall × the cores they were pinned to)
  machine busy       all cores' busy time over the run, from /proc/stat, whoever used them (shared machine)
  bound              politeness, CPU (crawlers), CPU (machine), web, or none (waiting): see bench/cluster/bounds.ts
  ratios             of the medians, against the plain crawl's medians of the same bench
  bytes per link     (used_memory after − before) / links, for links sent through LinkStreams.send to a
                     cluster with no worker running`;

const MB = 1024 * 1024;

function fmt(value: number | undefined, digits: number): string {
  if (value === undefined || Number.isNaN(value)) return '-';
  if (!Number.isFinite(value)) return 'inf';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatTable(plain: ConfigSummary, clusters: readonly ConfigSummary[]): string {
  const all = [plain, ...clusters];
  const width = 14;
  const row = (name: string, cells: string[]): string => `  ${name.padEnd(24)}${cells.map((c) => c.padStart(width)).join('')}`;
  const line = (name: string, pick: (s: ConfigSummary) => string): string => row(name, all.map(pick));
  const ratio = (pick: (s: ConfigSummary) => number) => (s: ConfigSummary): string => `${fmt(pick(s) / pick(plain), 2)}×`;
  return [
    row('', all.map((s) => s.label)),
    line('pages stored', (s) => fmt(s.pages, 0)),
    line('wall s', (s) => fmt(s.wallSeconds, 1)),
    line('span s', (s) => fmt(s.spanSeconds, 1)),
    line('pages/s', (s) => fmt(s.pagesPerSecond, 1)),
    line('  against plain', ratio((s) => s.pagesPerSecond)),
    line('pages/s by wall', (s) => fmt(s.pagesPerSecondWall, 1)),
    line('CPU s/1000 pages', (s) => fmt(s.cpuPerThousand, 2)),
    line('  of it Redis', (s) => fmt(s.redisCpuPerThousand, 3)),
    line('  of it shards open/close', (s) => fmt(s.shardPerThousand, 2)),
    line('  against plain', ratio((s) => s.cpuPerThousand)),
    line('  without open/close', ratio((s) => s.cpuPerThousand - (s.shardPerThousand ?? 0))),
    line('shards opened', (s) => fmt(s.shardsOpened, 0)),
    line('peak RSS MB (largest)', (s) => fmt(s.peakRssMb, 0)),
    line('Redis peak MB', (s) => fmt(s.redisPeakMb, 1)),
    line('Redis ops/page', (s) => fmt(s.redisOpsPerPage, 1)),
    line('backlog max entries', (s) => fmt(s.backlogMaxEntries, 0)),
    line('merge s', (s) => fmt(s.mergeSeconds, 1)),
    line('crawlers busy', (s) => `${fmt(s.crawlerBusy * 100, 0)}%`),
    line('machine busy', (s) => `${fmt(s.machineBusy * 100, 0)}%`),
  ].join('\n');
}

/** Each run on a line: its bound and the figures that decided it, pages per worker and peak RSS per process. */
export function formatRuns(summaries: readonly ConfigSummary[]): string {
  const lines: string[] = [];
  for (const s of summaries) {
    for (const [i, run] of s.runs.entries()) {
      const bound = s.bounds[i] as ConfigSummary['bounds'][number];
      const rss = run.peakRssBytes.map((b) => fmt(b / MB, 0)).join(', ');
      const perWorker = run.cluster === undefined ? '' : `; pages per worker ${run.cluster.pagesPerWorker.join(', ')}`;
      const cores = run.cores.length === 0 ? 'unpinned' : `core${run.cores.length > 1 ? 's' : ''} ${run.cores.join(',')}`;
      lines.push(`  ${s.label}, run ${i + 1} (${cores}): bound ${bound.name}; ${bound.detail}; peak RSS MB ${rss}${perWorker}`);
    }
  }
  return lines.join('\n');
}

/** Up to `points` samples, evenly spread, then the highest ones. */
export function formatBacklog(label: string, samples: readonly BacklogSample[], points = 10): string {
  if (samples.length === 0) return `  ${label}: no sample (the run was shorter than the sampling interval)`;
  const step = Math.max(1, Math.ceil(samples.length / points));
  const picked = samples.filter((_, i) => i % step === 0 || i === samples.length - 1);
  const peak = samples.reduce((a, b) => (b.entries > a.entries ? b : a));
  const series = picked.map((s) => `${fmt(s.atSeconds, 1)}s ${s.entries} (${s.pagesStored} p)`).join(' · ');
  return [
    `  ${label}: max ${peak.entries} entries at ${fmt(peak.atSeconds, 1)} s, longest stream ${Math.max(...samples.map((s) => s.longest))}, Redis used_memory up to ${fmt(Math.max(...samples.map((s) => s.usedMemory)) / MB, 1)} MB`,
    `    entries (pages stored so far): ${series}`,
  ].join('\n');
}

/** The commands a run made Redis process, most frequent first, per page. */
export function formatCommandMix(run: RunResult, top = 8): string {
  const cluster = run.cluster;
  if (cluster === undefined) return '';
  const mix = [...cluster.redisCalls].sort((a, b) => b[1] - a[1]).slice(0, top);
  return `  ${run.label}: ${mix.map(([name, calls]) => `${name} ${fmt(calls / run.pages, 2)}`).join(', ')}`;
}

export function formatLinkMemory(results: readonly LinkMemoryResult[], crawlLinksPerEntry: number | undefined): string {
  const lines = results.map(
    (m) =>
      `  sends of ${m.linksPerSend} links: ${fmt(m.bytesPerLink, 0)} bytes per link (${m.links.toLocaleString('en-US')} links, ${m.entries.toLocaleString('en-US')} stream entries = ${fmt(m.links / m.entries, 1)} links per entry, ${m.partitionsUsed} partitions, URLs of ${fmt(m.meanUrlChars, 0)} characters on average)`,
  );
  if (results.some((m) => m.links / m.partitionsUsed < 200)) {
    lines.push('  (few links per stream: Redis 7 allocates each stream\'s newest node up to 4 KB ahead, which then weighs on every link)');
  }
  if (crawlLinksPerEntry !== undefined) {
    lines.push(`  in the cluster runs above an entry held about ${fmt(crawlLinksPerEntry, 1)} links (cross-partition links of the web's plan / XADD calls, median over the runs)`);
  }
  return lines.join('\n');
}

export function formatTargets(targets: readonly TargetResult[]): string {
  return targets.map((t) => `  ${t.verdict.padEnd(14)} ${t.text}`).join('\n');
}
