import type { OrderingStrategy } from './strategy.ts';

/**
 * Breadth-first: every URL gets the same priority, so discovery order decides. Discovery
 * order is breadth-first because a page's links are queued when the page is fetched.
 */
export function createBfsStrategy(): OrderingStrategy {
  return {
    name: 'bfs',
    needsHistory: false,
    linked: () => undefined,
    fetched: () => undefined,
    priority: () => 0,
    takeChanged: () => [],
    explain: () => ({ priority: 0, signals: [{ name: 'discovery-order', value: 0, contribution: 0, note: 'breadth first: earlier discoveries go first' }] }),
  };
}
