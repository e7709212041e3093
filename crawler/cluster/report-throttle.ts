/*
 * A worker that cannot make progress says why, but not on every tick: a damaged key or a
 * refused command comes back ten times a second, and a log (and the cluster's errors list)
 * flooded with one line hides every other. Each distinct problem is said at most once per
 * interval, with how many times it came back meanwhile.
 */

/** How a part of a worker speaks: a line of news, or a problem said through the worker's throttle (its key, then its line). */
export interface WorkerVoice {
  log: (line: string) => void;
  report: (problem: string, line: string) => void;
}

/** Problems remembered at most: past it, those not said within the interval are forgotten. */
const MAX_PROBLEMS = 1024;

export class ReportThrottle {
  readonly #everyMs: number;
  /** When each problem was last said, and how often it came back since. */
  readonly #said = new Map<string, { at: number; repeats: number }>();

  constructor(everyMs: number) {
    this.#everyMs = everyMs;
  }

  /**
   * Notes one occurrence of a problem. Returns undefined when it was said within the
   * interval, else the number of times it came back unsaid since it was last said.
   */
  note(problem: string, now = Date.now()): number | undefined {
    const said = this.#said.get(problem);
    if (said !== undefined && now - said.at < this.#everyMs) {
      said.repeats++;
      return undefined;
    }
    if (said === undefined && this.#said.size >= MAX_PROBLEMS) this.#forgetOld(now);
    this.#said.set(problem, { at: now, repeats: 0 });
    return said?.repeats ?? 0;
  }

  #forgetOld(now: number): void {
    for (const [problem, said] of this.#said) if (now - said.at >= this.#everyMs) this.#said.delete(problem);
    // Every one said lately: the earliest noted goes, so the map stays bounded.
    if (this.#said.size >= MAX_PROBLEMS) this.#said.delete(this.#said.keys().next().value as string);
  }
}
