import { cpus } from 'node:os';

/** CPU time so far, in microseconds: this process's (all its threads), and the machine's idle time over all cores. */
export interface CpuReading {
  at: number;
  ownMicros: number;
  idleMicros: number;
}

/** A reading this recent is given again: a cluster worker runs an engine, and a pressure gauge, per shard. */
const READING_REUSE_MS = 50;
let lastReading: CpuReading | undefined;

export function readCpu(): CpuReading {
  const now = performance.now();
  if (lastReading !== undefined && now - lastReading.at < READING_REUSE_MS) return lastReading;
  const own = process.cpuUsage();
  let idleMs = 0;
  for (const cpu of cpus()) idleMs += cpu.times.idle;
  lastReading = { at: now, ownMicros: own.user + own.system, idleMicros: idleMs * 1000 };
  return lastReading;
}

/** Whether the crawler's own work is busy on the CPU, as a render gate asks it. */
export interface Pressure {
  readonly busy: boolean;
  stop(): void;
}

/** The crawler counts as busy when it uses at least half a core... */
const BUSY_CORES = 0.5;
/** ...and the machine has less than a whole core idle: a browser beside it would take its time... */
const SPARE_CORES = 1;
/**
 * ...and it stores at least this many pages a second that need no browser. Without this, the
 * crawler's own share of rendering (the pages' requests, parsing their DOMs) would count, and
 * renders would hold themselves back. A render crawl stores a few pages a second.
 */
const BUSY_PAGES_PER_SECOND = 20;
const SAMPLE_MS = 250;
/** Readings kept: the judgement spans the last second. */
const WINDOW = 5;

interface Reading extends CpuReading {
  pages: number;
}

/**
 * Judges, over the last second, whether the crawler is busy on the CPU with pages that need
 * no browser. A browser at a lower priority still slows such a crawl on a small machine
 * (every wake-up of the crawl loop must take a core back from it); this tells the render gate
 * when to hold renders back. Sampled four times a second.
 */
export class CpuPressure implements Pressure {
  readonly #read: () => CpuReading;
  readonly #pagesWithoutBrowser: () => number;
  readonly #readings: Reading[] = [];
  readonly #timer: NodeJS.Timeout;

  /** `pagesWithoutBrowser`: pages stored so far that were not rendered. */
  constructor(pagesWithoutBrowser: () => number, read: () => CpuReading = readCpu, sampleMs: number = SAMPLE_MS) {
    this.#read = read;
    this.#pagesWithoutBrowser = pagesWithoutBrowser;
    this.sample();
    this.#timer = setInterval(() => this.sample(), sampleMs);
    this.#timer.unref();
  }

  sample(): void {
    this.#readings.push({ ...this.#read(), pages: this.#pagesWithoutBrowser() });
    if (this.#readings.length > WINDOW) this.#readings.shift();
  }

  get busy(): boolean {
    const first = this.#readings[0];
    const last = this.#readings.at(-1);
    if (first === undefined || last === undefined || last.at - first.at <= 0) return false;
    const wallMicros = (last.at - first.at) * 1000;
    const ownCores = (last.ownMicros - first.ownMicros) / wallMicros;
    const idleCores = (last.idleMicros - first.idleMicros) / wallMicros;
    const pagesPerSecond = ((last.pages - first.pages) * 1e6) / wallMicros;
    return ownCores >= BUSY_CORES && idleCores < SPARE_CORES && pagesPerSecond >= BUSY_PAGES_PER_SECOND;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
