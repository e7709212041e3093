import { UsageError } from '../errors.ts';
import { createBacklinkStrategy } from './backlink.ts';
import { createBfsStrategy } from './bfs.ts';
import { createChoStrategy } from './cho.ts';
import { createFocusedStrategy } from './focused/focused.ts';
import { createFprStrategy } from './fpr.ts';
import { createNaiveStrategy } from './naive.ts';
import { createPageRankStrategy } from './pagerank.ts';
import { createRandomStrategy } from './random.ts';
import type { OrderingContext, OrderingStrategy } from './strategy.ts';
import { documentTypesOf } from '../parse/documents/document-facts.ts';
import type { CrawlSettings } from '../protocol/settings.ts';

type StrategyFactory = (context: OrderingContext) => OrderingStrategy;

const STRATEGIES = new Map<string, StrategyFactory>([
  ['bfs', createBfsStrategy],
  ['random', createRandomStrategy],
  ['backlink', createBacklinkStrategy],
  ['pagerank', createPageRankStrategy],
  ['fpr', createFprStrategy],
  ['cho', createChoStrategy],
  ['focused', createFocusedStrategy],
  ['naive', createNaiveStrategy],
]);

export function strategyNames(): string[] {
  return [...STRATEGIES.keys()];
}

/** Checks a strategy name before anything else is set up. */
export function requireStrategy(name: string): void {
  if (!STRATEGIES.has(name)) throw new UsageError(`unknown strategy "${name}"; choose one of: ${strategyNames().join(', ')}`, { strategy: name });
}

/** What a crawl's settings tell its ordering. */
export function orderingContextOf(settings: Pick<CrawlSettings, 'query' | 'randomSeed' | 'documents'>): OrderingContext {
  return { query: settings.query, randomSeed: settings.randomSeed, documents: documentTypesOf(settings.documents) };
}

export function createStrategy(name: string, context: OrderingContext): OrderingStrategy {
  requireStrategy(name);
  return (STRATEGIES.get(name) as StrategyFactory)(context);
}
