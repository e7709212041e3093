import type { CrawlState } from '../../../crawler/protocol/api.ts';
import { describeState } from '../lib/words.ts';

export function StateBadge({ state, refreshing = false }: { state: CrawlState; refreshing?: boolean }) {
  return <span className={`badge state-${state}`}>{describeState(state, refreshing)}</span>;
}
