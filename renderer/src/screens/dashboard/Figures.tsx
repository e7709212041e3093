import { memo } from 'react';
import type { CrawlFigures } from '../../../../crawler/protocol/api.ts';
import { formatBytes, formatCount, formatDuration, formatPercent, formatPlain } from '../../lib/format.ts';

function Figure({ testId, label, value, detail }: { testId: string; label: string; value: string; detail: string }) {
  return (
    <div className="figure">
      <div className="figure-label">{label}</div>
      <div className="figure-value" data-testid={testId}>
        {value}
      </div>
      <div className="figure-detail">{detail}</div>
    </div>
  );
}

/** The five headline numbers; each value element holds just the number, for people and tests alike. */
export const Figures = memo(function Figures({ figures, maxPages }: { figures: CrawlFigures; maxPages: number }) {
  const progress = maxPages > 0 ? Math.min(1, figures.fetched / maxPages) : 0;
  return (
    <section aria-label="Crawl figures">
      <div className="figures">
        <Figure testId="figure-fetched" label="Pages fetched" value={formatPlain(figures.fetched, 0)} detail={`of ${formatCount(maxPages)} (${formatPercent(progress, 0)})`} />
        <Figure testId="figure-hot" label="Hot found" value={formatPlain(figures.hot, 0)} detail="pages that match the topic" />
        <Figure testId="figure-harvest" label="Harvest rate" value={formatPlain(figures.harvestRate, 3)} detail={`${formatPercent(figures.harvestRate)} of fetched pages are hot`} />
        <Figure testId="figure-frontier" label="Frontier size" value={formatPlain(figures.queued, 0)} detail={`${formatCount(figures.inflight)} in flight`} />
        <Figure testId="figure-rate" label="Pages/s" value={formatPlain(figures.pagesPerSecond, 1)} detail={`${formatBytes(figures.bytesFetched)} in ${formatDuration(figures.elapsedMs)}`} />
      </div>
      <progress className="budget-progress" max={1} value={progress} aria-label="Share of the page budget fetched" />
      <p className="muted small">
        {formatCount(figures.failed)} failed · {formatCount(figures.robotsBlocked)} blocked by robots.txt · {formatCount(figures.skipped)} skipped
        {figures.rendered > 0 && <> · <span data-testid="figure-rendered">{formatCount(figures.rendered)}</span> rendered in a browser</>}
        {figures.documents > 0 && (
          <>
            {' '}· of the pages fetched, <span data-testid="figure-documents">{formatCount(figures.documents)}</span> {figures.documents === 1 ? 'is a document' : 'are documents'} (PDF, plain text)
          </>
        )}
      </p>
    </section>
  );
}, sameFigures);

function sameFigures(a: { figures: CrawlFigures; maxPages: number }, b: { figures: CrawlFigures; maxPages: number }): boolean {
  if (a.maxPages !== b.maxPages) return false;
  for (const key of Object.keys(a.figures) as (keyof CrawlFigures)[]) if (a.figures[key] !== b.figures[key]) return false;
  return true;
}
