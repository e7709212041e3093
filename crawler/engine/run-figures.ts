import { crawlCounts, crawlCountSteps, type CrawlCounts } from '../store/crawl-counts.ts';
import type { RunProgress } from './run-policy.ts';
import type { ReadonlyDb } from '../store/database.ts';

/** A run's own figures, and the collection's as the run began: what stats() and the run's row report. */
export class RunFigures {
  /** When run() began (epoch ms); 0 before. */
  startedAt = 0;
  /** New pages stored this run (revisits are counted apart). */
  pages = 0;
  bytes = 0;
  hot = 0;
  rendered = 0;
  documents = 0;
  /** Time spent judging pages and ordering URLs (the strategy's work), for the overhead figure. */
  orderingMs = 0;
  #atStart: CrawlCounts = { pages: 0, hot: 0, rendered: 0, documents: 0 };

  /** Takes the collection's counts as the run begins. */
  countFrom(db: ReadonlyDb): void {
    this.#atStart = crawlCounts(db);
  }

  /** countFrom as steps (a run's start runs them between turns of the event loop). */
  *countSteps(db: ReadonlyDb): Generator<void, void, undefined> {
    this.#atStart = yield* crawlCountSteps(db);
  }

  get pagesAtStart(): number {
    return this.#atStart.pages;
  }

  /** The collection's counts now: as the run began, and what it stored since. */
  collection(): CrawlCounts {
    const start = this.#atStart;
    return { pages: start.pages + this.pages, hot: start.hot + this.hot, rendered: start.rendered + this.rendered, documents: start.documents + this.documents };
  }

  elapsedMs(): number {
    return this.startedAt === 0 ? 0 : Date.now() - this.startedAt;
  }
}

/** What the policy reads of the run (run-policy.ts): a live view, read only as far as the policy's sums need. */
export function liveProgress(
  figures: RunFigures,
  revisits: { readonly inProgress: number; readonly done: number },
  strategy: { readonly queuedRevisits: number },
  pagesInProgress: () => number,
): RunProgress {
  return {
    get pagesAtStart() {
      return figures.pagesAtStart;
    },
    get pagesThisRun() {
      return figures.pages;
    },
    get pageTasks() {
      return pagesInProgress();
    },
    get revisitTasks() {
      return revisits.inProgress;
    },
    get revisitedThisRun() {
      return revisits.done;
    },
    get queuedRevisits() {
      return strategy.queuedRevisits;
    },
  };
}
