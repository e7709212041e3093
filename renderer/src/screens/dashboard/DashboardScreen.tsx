import { useEffect, useState } from 'react';
import { ErrorNote, LoadingNote } from '../../components/Notes.tsx';
import { StateBadge } from '../../components/StateBadge.tsx';
import { useAfterFirstPaint } from '../../hooks/use-after-first-paint.ts';
import { useCollections, useCrawlStatus } from '../../hooks/use-service.ts';
import { formatAgo } from '../../lib/format.ts';
import { describeOutcome } from '../../lib/words.ts';
import { countDashboardUpdate } from '../../perf.ts';
import { useClient, useInfo, useStore } from '../../state/contexts.ts';
import { CrawlControls } from './CrawlControls.tsx';
import { Figures } from './Figures.tsx';
import { FrontierPanel } from './FrontierPanel.tsx';
import { HarvestChart } from './HarvestChart.tsx';
import { HostsPanel } from './HostsPanel.tsx';
import { ProblemsPanel } from './ProblemsPanel.tsx';
import { RevisitFigures } from './RevisitFigures.tsx';
import { SessionNotice } from './SessionNotice.tsx';

/**
 * The live view of one crawl. Statuses arrive several times a second, so every panel is
 * memoised on what it shows and the chart is updated in place.
 */
export function DashboardScreen({ collection }: { collection: string }) {
  const client = useClient();
  const store = useStore();
  const service = useInfo();
  const status = useCrawlStatus(collection);
  const [loadError, setLoadError] = useState<unknown>(undefined);
  const { collections } = useCollections();
  const info = collections?.find((c) => c.id === collection);

  const load = (): void => {
    setLoadError(undefined);
    client.api.crawlStatus({ collection }).then((s) => store.setStatus(s), setLoadError);
  };
  useEffect(load, [client, store, collection]);

  useEffect(() => {
    if (status !== undefined) countDashboardUpdate();
  }, [status]);
  const showPanels = useAfterFirstPaint(status !== undefined);

  if (status === undefined) {
    return (
      <section className="screen">
        <h1>Dashboard</h1>
        {loadError !== undefined ? <ErrorNote error={loadError} onRetry={load} /> : <LoadingNote>Loading the crawl…</LoadingNote>}
      </section>
    );
  }

  const outcome = status.state === 'idle' ? describeOutcome(status.lastOutcome, status.maxPages, status.refresh?.maxFetches) : null;
  const refreshing = status.refresh !== null && status.state !== 'idle';
  return (
    <section className="screen dashboard">
      <div className="screen-head">
        <div>
          <h1>{info?.query ?? collection}</h1>
          <p className="muted">
            <StateBadge state={status.state} refreshing={refreshing} /> {info !== undefined && <>Last crawled {formatAgo(info.lastCrawledAt, Date.now())}.</>}
          </p>
        </div>
        {!service.readOnly && <CrawlControls collection={collection} state={status.state} maxPages={status.maxPages} fetched={status.figures.fetched} />}
      </div>
      {outcome !== null && <p className="note">{outcome}</p>}
      {info !== undefined && info.session !== null && <SessionNotice collection={collection} session={info.session} idle={status.state === 'idle'} />}
      {status.figures.renderNotice !== undefined && (
        <p className="note" data-testid="render-notice">
          Pages built by JavaScript are stored as their HTML gives them: {status.figures.renderNotice}.
        </p>
      )}
      <Figures figures={status.figures} maxPages={status.maxPages} />
      {status.figures.revisits !== undefined && <RevisitFigures revisits={status.figures.revisits} refresh={status.refresh} running={status.state !== 'idle'} />}
      {showPanels && (
        <>
          <div className="dashboard-grid">
            <section className="panel" aria-labelledby="chart-title">
              <h2 id="chart-title">Harvest over the crawl</h2>
              <HarvestChart series={status.series} />
            </section>
            <HostsPanel collection={collection} hosts={status.hosts} idle={status.state === 'idle'} />
          </div>
          <FrontierPanel collection={collection} running={status.state === 'running'} />
          <ProblemsPanel problems={status.problems} />
        </>
      )}
    </section>
  );
}
