/*
 * The Cluster screen's words and numbers, kept out of the component so they can be tested:
 * a worker's state from its flags, the cluster's figures, and a stable worker order.
 */
import type { ClusterRunState, ClusterStatusView, ClusterWorkerView } from '../../../crawler/protocol/api.ts';
import { formatCount, formatPercent, formatPlain } from './format.ts';

export type WorkerState = 'crawling' | 'idle' | 'paused';

/** Paused wins over idle: a paused worker has nothing to do because it was told so. */
export function workerState(worker: Pick<ClusterWorkerView, 'idle' | 'paused'>): WorkerState {
  if (worker.paused) return 'paused';
  return worker.idle ? 'idle' : 'crawling';
}

/** The badge class of a worker's state, from the dashboard's palette. */
export function workerStateClass(state: WorkerState): string {
  return state === 'crawling' ? 'state-running' : state === 'paused' ? 'state-paused' : '';
}

export function describeClusterState(state: ClusterRunState): string {
  switch (state) {
    case 'running':
      return 'Crawling';
    case 'paused':
      return 'Paused';
    case 'stopped':
      return 'Stopped';
    case 'finished':
      return 'Finished';
  }
}

export function clusterStateClass(state: ClusterRunState): string {
  return state === 'running' ? 'state-running' : state === 'paused' ? 'state-paused' : state === 'stopped' ? 'state-stopping' : '';
}

export interface ClusterFigure {
  /** data-testid of the value element: tests read the number from it. */
  testId: string;
  label: string;
  value: string;
  detail: string;
}

/** The headline numbers; values are plain numbers, details say what they count. */
export function clusterFigures(status: ClusterStatusView): ClusterFigure[] {
  const workers = status.workers.length;
  return [
    { testId: 'cluster-pages', label: 'Pages stored', value: formatPlain(status.pagesStored, 0), detail: `by ${formatCount(workers)} worker${workers === 1 ? '' : 's'}` },
    { testId: 'cluster-rate', label: 'Pages/s', value: formatPlain(status.pagesPerSecond, 1), detail: 'summed over the live workers' },
    { testId: 'cluster-budget', label: 'Budget used', value: formatPlain(status.budgetUsed, 0), detail: `of ${formatCount(status.maxPages)} handed out (${formatPercent(budgetShare(status), 0)})` },
    { testId: 'cluster-queued', label: 'Queued', value: formatPlain(status.queued, 0), detail: 'URLs waiting in the workers’ shards' },
    { testId: 'cluster-leased', label: 'Partitions leased', value: formatPlain(status.leased, 0), detail: `of ${formatCount(status.partitions)}` },
    { testId: 'cluster-backlog', label: 'Stream backlog', value: formatPlain(status.streamBacklog, 0), detail: 'link batches not yet admitted' },
  ];
}

/** Share of the page budget handed out, in [0, 1]. */
export function budgetShare(status: Pick<ClusterStatusView, 'budgetUsed' | 'maxPages'>): number {
  return status.maxPages > 0 ? Math.min(1, Math.max(0, status.budgetUsed / status.maxPages)) : 0;
}

/** Workers by id, so rows keep their places from one poll to the next. */
export function sortedWorkers(workers: readonly ClusterWorkerView[]): ClusterWorkerView[] {
  return workers.slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Keys for the error list: the same text may be reported twice. */
export function keyedErrors(errors: readonly string[]): { key: string; text: string }[] {
  const seen = new Map<string, number>();
  return errors.map((text) => {
    const n = seen.get(text) ?? 0;
    seen.set(text, n + 1);
    return { key: n === 0 ? text : `${text}|${n}`, text };
  });
}
