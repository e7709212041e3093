import { memo, useState } from 'react';
import type { CrawlState, CrawlStatus } from '../../../../crawler/protocol/api.ts';
import { ErrorNote } from '../../components/Notes.tsx';
import { formatCount } from '../../lib/format.ts';
import { parseNumberField } from '../../lib/forms.ts';
import { useClient, useStore } from '../../state/contexts.ts';

type Action = 'start' | 'refresh' | 'pause' | 'resume' | 'stop';

interface CrawlControlsProps {
  collection: string;
  state: CrawlState;
  maxPages: number;
  fetched: number;
}

/** Pause, Resume and Stop as the run's state allows; a way to start or continue a crawl, or to refresh, when idle. */
export const CrawlControls = memo(function CrawlControls({ collection, state, maxPages, fetched }: CrawlControlsProps) {
  const client = useClient();
  const store = useStore();
  const [pending, setPending] = useState<Action | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [budget, setBudget] = useState('');

  const run = async (action: Action, call: () => Promise<CrawlStatus>): Promise<void> => {
    setPending(action);
    setError(undefined);
    try {
      store.setStatus(await call());
    } catch (e) {
      setError(e);
    } finally {
      setPending(null);
    }
  };

  const start = (): void => {
    const parsed = parseNumberField(budget, { what: 'The page budget', min: 1, max: 100_000_000, integer: true });
    if (!parsed.ok) {
      setError(parsed.error);
      return;
    }
    const input = parsed.value === undefined ? { collection } : { collection, maxPages: parsed.value };
    void run('start', () => client.api.startCrawl(input));
  };

  const busy = pending !== null;
  const budgetReached = fetched >= maxPages;
  return (
    <div className="controls">
      <div className="button-row">
        {state === 'idle' && (
          <>
            <label htmlFor="continue-budget" className="inline-label">
              Total page budget
            </label>
            <input
              id="continue-budget"
              className="budget-input"
              type="number"
              min={1}
              placeholder={String(budgetReached ? maxPages * 2 : maxPages)}
              value={budget}
              onChange={(e) => setBudget(e.target.value)}
            />
            <button type="button" onClick={start} disabled={busy} title={fetched > 0 ? 'Continues where the last run stopped' : undefined}>
              Start crawl
            </button>
            <button
              type="button"
              className="button-secondary"
              onClick={() => void run('refresh', () => client.api.refreshCollection({ collection }))}
              disabled={busy || fetched === 0}
              title="Revisit the stored pages: keep a new version of each page that changed, and mark the pages that are gone"
            >
              Refresh
            </button>
          </>
        )}
        <button type="button" className="button-secondary" onClick={() => void run('pause', () => client.api.pauseCrawl({ collection }))} disabled={busy || state !== 'running'}>
          Pause
        </button>
        <button type="button" className="button-secondary" onClick={() => void run('resume', () => client.api.resumeCrawl({ collection }))} disabled={busy || state !== 'paused'}>
          Resume
        </button>
        <button type="button" className="button-danger" onClick={() => void run('stop', () => client.api.stopCrawl({ collection }))} disabled={busy || (state !== 'running' && state !== 'paused')}>
          Stop
        </button>
      </div>
      {state === 'idle' && fetched > 0 && (
        <p className="hint">
          {budgetReached && budget === ''
            ? `The budget of ${formatCount(maxPages)} pages is used up: enter a larger total to fetch more.`
            : 'Starting again continues where the last run stopped; nothing is fetched twice.'}
        </p>
      )}
      <ErrorNote error={error} />
    </div>
  );
});
