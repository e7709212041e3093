import type { CrawlStats } from '../protocol/crawl-stats.ts';

const WIDTH = 24;

/** A one-line progress bar on a terminal, redrawn in place. */
export class ProgressBar {
  readonly #stream: NodeJS.WriteStream;
  readonly #budget: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(stream: NodeJS.WriteStream, budget: number) {
    this.#stream = stream;
    this.#budget = budget;
  }

  start(read: () => CrawlStats, intervalMs = 250): void {
    this.#timer = setInterval(() => this.draw(read()), intervalMs);
    this.#timer.unref();
  }

  draw(s: CrawlStats, note = ''): void {
    const done = Math.min(1, s.fetched / this.#budget);
    const filled = Math.round(done * WIDTH);
    const bar = '█'.repeat(filled) + '░'.repeat(WIDTH - filled);
    const r = s.revisits;
    const revisits = r === undefined ? '' : `  revisited ${r.notModified + r.identical + r.changed + r.gone} (${r.changed} changed, ${r.gone} gone)`;
    const line = `${bar} ${s.fetched}/${this.#budget} pages${revisits}  ${s.pagesPerSecond.toFixed(1)}/s  queued ${s.queued}  failed ${s.failed}  blocked ${s.robotsBlocked}${note ? `  ${note}` : ''}`;
    // A pseudo-terminal with no size reports 0 columns: fall back to a usual width.
    this.#stream.write(`\r\x1b[2K${line.slice(0, Math.max(20, (this.#stream.columns || 120) - 1))}`);
  }

  stop(final?: CrawlStats): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (final !== undefined) this.draw(final);
    this.#stream.write('\n');
  }
}
