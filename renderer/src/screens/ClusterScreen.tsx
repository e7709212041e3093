import { memo } from 'react';
import type { ClusterStatusView, ClusterWorkerView } from '../../../crawler/protocol/api.ts';
import { EmptyState, ErrorNote, LoadingNote } from '../components/Notes.tsx';
import { usePoll } from '../hooks/use-poll.ts';
import { budgetShare, clusterFigures, clusterStateClass, describeClusterState, keyedErrors, sortedWorkers, workerState, workerStateClass } from '../lib/cluster.ts';
import { formatCount, formatPlain } from '../lib/format.ts';
import { useClient } from '../state/contexts.ts';

/** Workers publish their status each second; every 2 s is live enough and light on Redis. */
const POLL_MS = 2000;
const ERRORS_SHOWN = 10;

/**
 * A crawl cluster's live status, read-only: `forager serve --redis URL --cluster NAME`.
 * Pausing and stopping stay with `forager cluster`, where the operator's terminal is.
 */
export function ClusterScreen() {
  const client = useClient();
  const polled = usePoll(() => client.api.clusterStatus(), POLL_MS);

  if (polled.data === undefined) {
    return (
      <section className="screen">
        <h1>Cluster</h1>
        {polled.error !== undefined ? <ErrorNote error={polled.error} /> : <LoadingNote>Reading the cluster’s status…</LoadingNote>}
      </section>
    );
  }
  if (!polled.data.configured) {
    return (
      <section className="screen">
        <h1>Cluster</h1>
        <EmptyState title="No cluster to show">
          <p>
            This Forager watches no crawl cluster. Start it with <code>forager serve --redis URL --cluster NAME</code> to follow one here.
          </p>
        </EmptyState>
      </section>
    );
  }
  const status = polled.data.status;
  return (
    <section className="screen cluster">
      <div className="screen-head">
        <div>
          <h1>Cluster {status.name}</h1>
          <p className="muted">
            <span className={`badge ${clusterStateClass(status.state)}`} data-testid="cluster-state">
              {describeClusterState(status.state)}
            </span>{' '}
            Query: {status.query}
          </p>
        </div>
      </div>
      {polled.error !== undefined && (
        <>
          <ErrorNote error={polled.error} />
          {polled.at !== null && <p className="muted small">Showing the status read at {new Date(polled.at).toLocaleTimeString()}; trying again every {POLL_MS / 1000} s.</p>}
        </>
      )}
      <ClusterFigures status={status} />
      <WorkersPanel workers={status.workers} ended={status.state === 'finished' || status.state === 'stopped'} />
      <ErrorsPanel errors={status.errors} />
    </section>
  );
}

function ClusterFigures({ status }: { status: ClusterStatusView }) {
  return (
    <section aria-label="Cluster figures">
      <div className="figures cluster-figures">
        {clusterFigures(status).map((f) => (
          <div className="figure" key={f.testId}>
            <div className="figure-label">{f.label}</div>
            <div className="figure-value" data-testid={f.testId}>
              {f.value}
            </div>
            <div className="figure-detail">{f.detail}</div>
          </div>
        ))}
      </div>
      <progress className="budget-progress" max={1} value={budgetShare(status)} aria-label="Share of the page budget handed out" />
    </section>
  );
}

const WorkersPanel = memo(function WorkersPanel({ workers, ended }: { workers: ClusterWorkerView[]; ended: boolean }) {
  return (
    <section className="panel" aria-labelledby="workers-title">
      <h2 id="workers-title">Workers</h2>
      {workers.length === 0 ? (
        <p className="muted">
          No worker is alive.{!ended && <> Start one with <code>forager worker --redis URL --name NAME --dir DATA</code>.</>}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table compact" data-testid="cluster-workers">
            <thead>
              <tr>
                <th scope="col">Worker</th>
                <th scope="col" className="num">Partitions</th>
                <th scope="col" className="num" title="Shards open among the leased partitions">Shards</th>
                <th scope="col" className="num">Pages</th>
                <th scope="col" className="num">Pages/s</th>
                <th scope="col" className="num">Queued</th>
                <th scope="col">State</th>
                <th scope="col" className="num">Errors</th>
              </tr>
            </thead>
            <tbody>
              {sortedWorkers(workers).map((w) => {
                const state = workerState(w);
                return (
                  <tr key={w.id}>
                    <td className="url-cell" title={`${w.host}, process ${w.pid}`}>
                      {w.id}
                    </td>
                    <td className="num">{formatCount(w.partitions)}</td>
                    <td className="num">{formatCount(w.shards)}</td>
                    <td className="num">{formatCount(w.pagesStored)}</td>
                    <td className="num">{formatPlain(w.pagesPerSecond, 1)}</td>
                    <td className="num">{formatCount(w.queued)}</td>
                    <td>
                      <span className={`badge ${workerStateClass(state)}`}>{state}</span>
                    </td>
                    <td className="num" title={w.lastError ?? undefined}>
                      {formatCount(w.errors)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}, (a, b) => a.ended === b.ended && JSON.stringify(a.workers) === JSON.stringify(b.workers));

const ErrorsPanel = memo(function ErrorsPanel({ errors }: { errors: string[] }) {
  return (
    <section className="panel" aria-labelledby="cluster-errors-title">
      <h2 id="cluster-errors-title">Latest errors</h2>
      {errors.length === 0 ? (
        <p className="muted">No worker has reported an error.</p>
      ) : (
        <ul className="error-list">
          {keyedErrors(errors.slice(0, ERRORS_SHOWN)).map(({ key, text }) => (
            <li key={key}>{text}</li>
          ))}
        </ul>
      )}
    </section>
  );
}, (a, b) => a.errors.join('\n') === b.errors.join('\n'));
