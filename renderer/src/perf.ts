/*
 * Diagnostics hook for the end-to-end test (and for anyone curious in the dev tools):
 * window.__foragerPerf is a read-only view of
 *   longTasks        durations in ms of every long task (> 50 ms) the browser reported
 *   dashboardUpdates how many crawl statuses the dashboard has rendered
 *   firstRenderMs    ms from navigation start to the app shell's first commit (0 before it)
 * Nothing in the app reads it back.
 */
export interface ForagerPerf {
  readonly longTasks: readonly number[];
  readonly dashboardUpdates: number;
  readonly firstRenderMs: number;
}

declare global {
  interface Window {
    readonly __foragerPerf?: ForagerPerf;
  }
}

const longTasks: number[] = [];
let dashboardUpdates = 0;
let firstRenderMs = 0;

export function startPerfHook(): void {
  if (PerformanceObserver.supportedEntryTypes.includes('longtask')) {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
  }
  const view: ForagerPerf = Object.freeze({
    get longTasks() {
      return Object.freeze(longTasks.slice());
    },
    get dashboardUpdates() {
      return dashboardUpdates;
    },
    get firstRenderMs() {
      return firstRenderMs;
    },
  });
  Object.defineProperty(window, '__foragerPerf', { value: view, enumerable: false, configurable: false, writable: false });
}

export function countDashboardUpdate(): void {
  dashboardUpdates++;
}

export function markFirstRender(): void {
  if (firstRenderMs === 0) firstRenderMs = performance.now();
}
