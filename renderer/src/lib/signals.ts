import type { FrontierItem } from '../../../crawler/protocol/api.ts';
import { formatScore } from './format.ts';

/** The signals that moved a priority most, as "name +1.200 · name −0.400". */
export function topContributions(signals: FrontierItem['signals'], count = 3): string {
  return [...signals]
    .filter((s) => s.contribution !== 0)
    .sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution))
    .slice(0, count)
    .map((s) => `${s.name} ${s.contribution >= 0 ? '+' : ''}${formatScore(s.contribution)}`)
    .join(' · ');
}
