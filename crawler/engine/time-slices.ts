import { setImmediate as nextTurn } from 'node:timers/promises';

/*
 * Long work cut into short slices on the event loop's thread: a shard's open replays its
 * whole history on the thread that also renews the worker's leases and runs its other
 * shards, so the work gives the loop a turn every few milliseconds instead of holding it for
 * seconds.
 */

/** Work done between two turns of the event loop, in milliseconds. */
export const SLICE_MS = 10;

/**
 * The CPU time of this thread so far, in milliseconds: a shard's open and close are counted
 * apart from its pages, without the parse workers' time or the wait for the disk. Wall time
 * on a Node without process.threadCpuUsage (before 23.9).
 */
export function threadCpuMs(): number {
  if (typeof process.threadCpuUsage !== 'function') return performance.now();
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Slicers waiting for the turn, first come first served; `turnHeld` while one slices. */
const waiting: (() => void)[] = [];
let turnHeld = false;

/**
 * One slice at a time in the process, and one per turn of the event loop: with a dozen
 * shards opening at once, each turn of the loop still runs one slice, not a dozen, before
 * the timers (the lease renewals) get theirs.
 */
function takeTurn(): Promise<void> {
  if (!turnHeld) {
    turnHeld = true;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/** The next slicer waiting slices on the next turn of the loop (an immediate queued now runs on the next turn). */
function passTurn(): void {
  const next = waiting.shift();
  if (next === undefined) turnHeld = false;
  else setImmediate(next);
}

/**
 * Runs work given as steps (a generator that yields between pieces) in slices of about
 * SLICE_MS, letting the event loop run between slices. Stops between two slices once
 * `cancelled` says so. `cpuMs` sums the CPU time the slices took: the work's own, not that of
 * what ran between them.
 */
export class TimeSlicer {
  readonly #cancelled: () => boolean;
  readonly #sliceMs: number;
  #cpuMs = 0;

  constructor(cancelled: () => boolean, sliceMs = SLICE_MS) {
    this.#cancelled = cancelled;
    this.#sliceMs = sliceMs;
  }

  get cpuMs(): number {
    return this.#cpuMs;
  }

  /** Runs every step; resolves to false when cancelled before the last. */
  async run(steps: Iterable<void>): Promise<boolean> {
    await takeTurn();
    let sliceEnds = performance.now() + this.#sliceMs;
    let cpuAtStart = threadCpuMs();
    try {
      for (const _ of steps) {
        if (performance.now() < sliceEnds) continue;
        this.#cpuMs += threadCpuMs() - cpuAtStart;
        passTurn();
        await nextTurn();
        await takeTurn();
        cpuAtStart = threadCpuMs();
        if (this.#cancelled()) return false;
        sliceEnds = performance.now() + this.#sliceMs;
      }
      return true;
    } finally {
      this.#cpuMs += threadCpuMs() - cpuAtStart;
      passTurn();
    }
  }
}
