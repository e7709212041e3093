import { memo, useState } from 'react';
import type { CollectionHost, HostActivity } from '../../../../crawler/protocol/api.ts';
import type { RenderMode } from '../../../../crawler/protocol/settings.ts';
import { ErrorNote, LoadingNote } from '../../components/Notes.tsx';
import { useLoad } from '../../hooks/use-load.ts';
import { formatAgo, formatCount, formatPercent, formatScore, formatWait } from '../../lib/format.ts';
import { useClient, useStore } from '../../state/contexts.ts';

/** The crawl's own mode is the first choice: a host set to nothing follows it. */
const RENDER_CHOICES: { value: '' | RenderMode; label: string }[] = [
  { value: '', label: 'As the crawl' },
  { value: 'auto', label: 'When needed' },
  { value: 'always', label: 'Always' },
  { value: 'never', label: 'Never' },
];

const SHOWN = 25;

/** How one host's pages are rendered: set here, stored with the collection, and applied to the running crawl at once. */
function HostRenderChoice({ collection, host, onError }: { collection: string; host: HostActivity; onError: (error: unknown) => void }) {
  const client = useClient();
  const [mode, setMode] = useState<'' | RenderMode>(host.render ?? '');
  const name = new URL(host.origin).hostname;
  const choose = async (value: '' | RenderMode): Promise<void> => {
    const previous = mode;
    setMode(value);
    try {
      await client.api.setHostRender({ collection, host: name, mode: value === '' ? null : value });
    } catch (error) {
      setMode(previous);
      onError(error);
    }
  };
  return (
    <select aria-label={`Render ${name} with a browser`} value={mode} onChange={(e) => void choose(e.target.value as '' | RenderMode)}>
      {RENDER_CHOICES.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </select>
  );
}

/** While nothing runs: the collection's hosts, each with a way to refresh its pages alone. */
function StoredHosts({ collection }: { collection: string }) {
  const client = useClient();
  const store = useStore();
  const hosts = useLoad<CollectionHost[]>(() => client.api.collectionHosts({ collection }), [client, collection]);
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const refresh = async (origin: string): Promise<void> => {
    setPending(origin);
    setError(undefined);
    try {
      store.setStatus(await client.api.refreshCollection({ collection, host: origin }));
    } catch (e) {
      setError(e);
    } finally {
      setPending(null);
    }
  };
  const now = Date.now();
  return (
    <section className="panel" aria-labelledby="hosts-title">
      <h2 id="hosts-title">Hosts</h2>
      <ErrorNote error={hosts.error} onRetry={hosts.reload} />
      {hosts.data === undefined ? (
        hosts.error === undefined && <LoadingNote />
      ) : hosts.data.length === 0 ? (
        <p className="muted">No page is stored yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table compact">
            <thead>
              <tr>
                <th scope="col">Host</th>
                <th scope="col" className="num">
                  Pages
                </th>
                <th scope="col">
                  <span className="visually-hidden">Refresh</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {hosts.data.map((host) => {
                const name = host.origin.replace(/^https?:\/\//, '');
                return (
                  <tr key={host.origin}>
                    <td>
                      <div className="url-cell" title={host.origin}>
                        {name}
                      </div>
                      <div className="muted small">
                        checked {formatAgo(host.lastCheckedAt, now)}
                        {host.changed > 0 && <> · {formatCount(host.changed)} changed</>}
                        {host.gone > 0 && <> · {formatCount(host.gone)} gone</>}
                      </div>
                    </td>
                    <td className="num">{formatCount(host.pages)}</td>
                    <td>
                      <button
                        type="button"
                        className="button-secondary button-small"
                        aria-label={`Refresh ${name}`}
                        title={`Revisit the stored pages of ${name} only`}
                        disabled={pending !== null}
                        onClick={() => void refresh(host.origin)}
                      >
                        Refresh
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

/** The hosts of the running crawl or refresh (where its turns go); the collection's hosts while nothing runs. */
export const HostsPanel = memo(function HostsPanel({ collection, hosts, idle }: { collection: string; hosts: HostActivity[]; idle: boolean }) {
  if (idle) return <StoredHosts collection={collection} />;
  return <ActiveHosts collection={collection} hosts={hosts} />;
});

function ActiveHosts({ collection, hosts }: { collection: string; hosts: HostActivity[] }) {
  const now = Date.now();
  const [error, setError] = useState<unknown>(undefined);
  // The service sends the hosts holding the best URLs first: the crawl's next turns go to them.
  const shown = hosts.slice(0, SHOWN);
  return (
    <section className="panel" aria-labelledby="hosts-title">
      <h2 id="hosts-title">Active hosts</h2>
      {hosts.length === 0 ? (
        <p className="muted">No host is being crawled right now.</p>
      ) : (
        <>
          <div className="table-scroll">
            <table className="table compact">
              <thead>
                <tr>
                  <th scope="col">Host</th>
                  <th scope="col" className="num">
                    Queued
                  </th>
                  <th scope="col" className="num" title="The priority of the host's best waiting URL, as the frontier panel explains it">
                    Best waiting
                  </th>
                  <th scope="col" className="num" title="Pages fetched from the host, and its share of every page fetched">
                    Fetched
                  </th>
                  <th scope="col">Next request</th>
                  <th scope="col">Render</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((host) => (
                  <tr key={host.origin}>
                    <td className="url-cell" title={host.origin}>
                      {host.origin.replace(/^https?:\/\//, '')}
                    </td>
                    <td className="num">{formatCount(host.queued)}</td>
                    <td className="num">{formatScore(host.bestPriority)}</td>
                    <td className="num">
                      {formatCount(host.pagesFetched)} <span className="muted">({formatPercent(host.fetchShare, 0)})</span>
                    </td>
                    <td>{host.inFlight ? <span className="badge state-running">fetching</span> : formatWait(host.nextAllowedAt, now)}</td>
                    <td>
                      <HostRenderChoice collection={collection} host={host} onError={setError} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {hosts.length > SHOWN && <p className="muted small">and {formatCount(hosts.length - SHOWN)} more hosts</p>}
          {error !== undefined && <ErrorNote error={error} />}
        </>
      )}
    </section>
  );
}
