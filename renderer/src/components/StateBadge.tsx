import type { CrawlState } from '../../../crawler/protocol/api.ts';
import { describeState } from '../lib/words.ts';

export function StateBadge({ state }: { state: CrawlState }) {
  return <span className={`badge state-${state}`}>{describeState(state)}</span>;
}
