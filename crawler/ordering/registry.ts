import { UsageError } from '../errors.ts';
import { bfsStrategy } from './bfs.ts';
import type { OrderingStrategy } from './strategy.ts';

const STRATEGIES = new Map<string, () => OrderingStrategy>([['bfs', () => bfsStrategy]]);

export function strategyNames(): string[] {
  return [...STRATEGIES.keys()];
}

export function createStrategy(name: string): OrderingStrategy {
  const make = STRATEGIES.get(name);
  if (make === undefined) throw new UsageError(`unknown strategy "${name}"; choose one of: ${strategyNames().join(', ')}`, { strategy: name });
  return make();
}
