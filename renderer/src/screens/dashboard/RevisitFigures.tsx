import { memo } from 'react';
import type { RefreshInfo, RevisitCounts } from '../../../../crawler/protocol/api.ts';
import { formatCount, formatDateTime } from '../../lib/format.ts';

const COUNTS: readonly { key: keyof RevisitCounts; label: string; detail: string }[] = [
  { key: 'notModified', label: 'Not modified', detail: 'the server said so (304)' },
  { key: 'identical', label: 'Unchanged', detail: 'the same page again' },
  { key: 'changed', label: 'Changed', detail: 'a new version was kept' },
  { key: 'gone', label: 'Gone', detail: '404, 410 or a soft 404' },
  { key: 'queued', label: 'Waiting', detail: 'revisits still to make' },
];

/**
 * What the revisits of a refresh (or of a crawl that revisits, --revisit-after) found so far,
 * or those of the last run once it ended; each value element holds just the number.
 */
export const RevisitFigures = memo(function RevisitFigures({ revisits, refresh, running }: { revisits: RevisitCounts; refresh: RefreshInfo | null; running: boolean }) {
  const done = revisits.notModified + revisits.identical + revisits.changed + revisits.gone;
  const hosts = refresh === null || refresh.origins.length === 0 ? 'every host' : refresh.origins.map((o) => o.replace(/^https?:\/\//, '')).join(', ');
  return (
    <section className="panel revisits" aria-labelledby="revisits-title">
      <h2 id="revisits-title">{!running ? 'Revisits of the last run' : refresh !== null ? 'Refreshing: revisits so far' : 'Revisits during this crawl'}</h2>
      {refresh !== null && (
        <p className="muted small">
          Pages of {hosts} last checked before {formatDateTime(refresh.since)}, at most {formatCount(refresh.maxFetches)} fetches.
        </p>
      )}
      <div className="figures revisit-figures">
        {COUNTS.map((count) => (
          <div className="figure" key={count.key}>
            <div className="figure-label">{count.label}</div>
            <div className="figure-value" data-testid={`revisits-${count.key}`}>
              {revisits[count.key]}
            </div>
            <div className="figure-detail">{count.detail}</div>
          </div>
        ))}
      </div>
      {running && done + revisits.queued > 0 && <progress className="budget-progress" max={done + revisits.queued} value={done} aria-label="Share of the revisits made" />}
    </section>
  );
});
