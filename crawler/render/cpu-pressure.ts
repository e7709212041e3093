import { cpus } from 'node:os';

/** CPU time so far, in microseconds: this process's (all its threads), and the machine's idle time over all cores. */
export interface CpuReading {
  at: number;
  ownMicros: number;
  idleMicros: number;
}

export function readCpu(): CpuReading {
  const own = process.cpuUsage();
  let idleMs = 0;
  for (const cpu of cpus()) idleMs += cpu.times.idle;
  return { at: performance.now(), ownMicros: own.user + own.system, idleMicros: idleMs * 1000 };
}

/** Whether the crawler's own work is busy on the CPU, as a render gate asks it. */
export interface Pressure {
  readonly busy: boolean;
  stop(): void;
}

/** The crawler counts as busy when it uses at least half a core... */
const BUSY_CORES = 0.5;
/** ...and the machine has less than a whole core idle: a browser beside it would take its time. */
const SPARE_CORES = 1;
const SAMPLE_MS = 250;
/** Readings kept: the judgement spans the last second. */
const WINDOW = 5;

/**
 * Samples this process's CPU use and the machine's idle time four times a second and judges
 * the last second. A browser at a lower priority still slows a crawl that is busy on a small
 * machine (every wake-up of the crawl loop must take a core back from it); this tells the
 * render gate when to hold renders back.
 */
export class CpuPressure implements Pressure {
  readonly #read: () => CpuReading;
  readonly #readings: CpuReading[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(read: () => CpuReading = readCpu, sampleMs: number = SAMPLE_MS) {
    this.#read = read;
    this.#readings.push(read());
    this.#timer = setInterval(() => this.sample(), sampleMs);
    this.#timer.unref();
  }

  sample(): void {
    this.#readings.push(this.#read());
    if (this.#readings.length > WINDOW) this.#readings.shift();
  }

  get busy(): boolean {
    const first = this.#readings[0];
    const last = this.#readings.at(-1);
    if (first === undefined || last === undefined || last.at - first.at <= 0) return false;
    const wallMicros = (last.at - first.at) * 1000;
    const ownCores = (last.ownMicros - first.ownMicros) / wallMicros;
    const idleCores = (last.idleMicros - first.idleMicros) / wallMicros;
    return ownCores >= BUSY_CORES && idleCores < SPARE_CORES;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
