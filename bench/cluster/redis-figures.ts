/*
 * What a run cost Redis, from INFO: its own CPU time (used_cpu_user + used_cpu_sys: the
 * server's threads; nothing forks, as the bench's Redis saves nothing), the commands it
 * processed, and its memory (used_memory now, used_memory_peak since it started: each run
 * has a fresh server, so the peak is the run's).
 */
import type { Redis } from 'ioredis';
import { ForagerError } from '../../crawler/errors.ts';

export interface RedisSnapshot {
  cpuSeconds: number;
  commands: number;
  usedMemory: number;
  usedMemoryPeak: number;
  /** Calls by command name (INFO commandstats), e.g. xadd → 1234. */
  calls: Map<string, number>;
}

/** A numeric `name:value` field of INFO's text. */
export function infoField(info: string, name: string): number {
  const match = new RegExp(`^${name}:([0-9.]+)\\r?$`, 'm').exec(info);
  if (match === null) throw new ForagerError('BENCH_SETUP', `Redis INFO has no ${name}`, { name });
  return Number(match[1]);
}

function commandCalls(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) calls.set(match[1] as string, Number(match[2]));
  return calls;
}

/** One INFO (a single command) read as a snapshot. */
export async function redisSnapshot(client: Redis): Promise<RedisSnapshot> {
  const info = await client.info('everything');
  return {
    cpuSeconds: infoField(info, 'used_cpu_user') + infoField(info, 'used_cpu_sys'),
    commands: infoField(info, 'total_commands_processed'),
    usedMemory: infoField(info, 'used_memory'),
    usedMemoryPeak: infoField(info, 'used_memory_peak'),
    calls: commandCalls(info),
  };
}

/** Calls of each command between two snapshots, less the bench's own (by name). */
export function callsBetween(before: RedisSnapshot, after: RedisSnapshot, own: ReadonlyMap<string, number>): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, calls] of after.calls) {
    const n = calls - (before.calls.get(name) ?? 0) - (own.get(name) ?? 0);
    if (n > 0) delta.set(name, n);
  }
  return delta;
}
