/*
 * The peer: one ordinary `forager crawl --json` of the web into a fresh collection, pinned
 * like a one-worker cluster (so that both have one core, and so the same number of parse
 * workers: none beside the main thread, as the CLI gives a process pinned to one core).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { crawlFlags } from './crawl-flags.ts';
import { numberField, runForagerJson } from './forager-process.ts';
import { measured, type RunContext, type RunResult } from './run-result.ts';

export async function runPlainCrawl(context: RunContext, core: number | undefined, tag: string): Promise<RunResult> {
  const db = join(context.tmp, `plain-${tag}.forager`);
  const crawl = async (): Promise<Omit<RunResult, 'webCpuSeconds' | 'machineBusy' | 'witness'>> => {
    const result = await runForagerJson(['crawl', '--db', db, ...crawlFlags(context.shape), '--json'], {
      bin: context.foragerBin,
      label: 'forager crawl',
      core,
      timeoutMs: context.timeoutMs,
      usageDir: context.usageDir,
    });
    return {
      label: 'plain crawl',
      workers: 1,
      cores: core === undefined ? [] : [core],
      pages: numberField(result.json, 'fetched', 'forager crawl'),
      wallSeconds: result.wallMs / 1000,
      from: result.startedAt,
      to: result.endedAt,
      crawlerCpuSeconds: (result.usage.cpuUserMs + result.usage.cpuSystemMs) / 1000,
      peakRssBytes: [result.usage.peakRssBytes],
      cluster: undefined,
    };
  };
  try {
    return await measured(context, crawl);
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
  }
}
