import type { OrderingContext, OrderingStrategy } from './strategy.ts';
import type { PriorityExplanation } from '../protocol/explanation.ts';

/** Murmur3's finaliser: every input bit flips each output bit with probability ~1/2. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform draw in [0, 1) with 53 random bits, a pure function of (seed, id). */
export function randomPriority(seed: number, id: number): number {
  const lo = id >>> 0;
  const hi = Math.floor(id / 2 ** 32) >>> 0;
  const a = mix32(mix32(lo ^ mix32(seed ^ 0x9e3779b9)) ^ hi);
  const b = mix32(a ^ 0x632be5ab ^ seed);
  return (a * 2 ** 21 + (b >>> 11)) / 2 ** 53;
}

/**
 * The random crawler, Cho et al.'s baseline (its PST is the diagonal K/T). Each URL's
 * priority is a counter-based pseudo-random draw keyed by (seed, URL id): the same seed
 * gives the same permutation whatever order the URLs arrive in, and nothing is stored,
 * so a resumed crawl needs no history.
 */
export function createRandomStrategy(context: OrderingContext): OrderingStrategy {
  const seed = context.randomSeed >>> 0;
  return {
    name: 'random',
    needsHistory: false,
    linked: () => undefined,
    fetched: () => undefined,
    priority: (id: number) => randomPriority(seed, id),
    takeChanged: () => [],
    explain: (id: number): PriorityExplanation => {
      const draw = randomPriority(seed, id);
      return { priority: draw, signals: [{ name: 'random-draw', value: draw, contribution: draw, note: `uniform draw for seed ${seed}` }] };
    },
  };
}
