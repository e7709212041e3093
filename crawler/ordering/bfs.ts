import type { OrderingStrategy } from './strategy.ts';

/**
 * Breadth-first: every URL gets the same priority, so discovery order decides. Discovery
 * order is breadth-first because a page's links are queued when the page is fetched.
 */
export const bfsStrategy: OrderingStrategy = {
  name: 'bfs',
  priority: () => 0,
};
