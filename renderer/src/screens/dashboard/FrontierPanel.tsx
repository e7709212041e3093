import { memo, useEffect, useState } from 'react';
import type { FrontierItem } from '../../../../crawler/protocol/api.ts';
import { ErrorNote } from '../../components/Notes.tsx';
import { formatScore } from '../../lib/format.ts';
import { topContributions } from '../../lib/signals.ts';
import { useClient } from '../../state/contexts.ts';

const POLL_MS = 2000;
const LIMIT = 20;

/** The next URLs the crawl will fetch, polled while it runs, each with why it ranks there. */
export const FrontierPanel = memo(function FrontierPanel({ collection, running }: { collection: string; running: boolean }) {
  const client = useClient();
  const [items, setItems] = useState<FrontierItem[] | null>(null);
  const [error, setError] = useState<unknown>(undefined);

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (): Promise<void> => {
      try {
        const next = await client.api.frontier({ collection, limit: LIMIT });
        if (cancelled) return;
        setItems(next);
        setError(undefined);
      } catch (e) {
        if (!cancelled) setError(e);
      }
      // The next request waits for this one, so a slow service never piles requests up.
      if (!cancelled && running) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [client, collection, running]);

  return (
    <section className="panel" aria-labelledby="frontier-title">
      <h2 id="frontier-title">Top of the frontier</h2>
      <ErrorNote error={error} />
      {items === null ? (
        error === undefined && <p className="muted">Loading…</p>
      ) : items.length === 0 ? (
        <p className="muted">{running ? 'The frontier is empty: no URL is waiting to be fetched.' : 'The frontier is shown while a crawl runs.'}</p>
      ) : (
        <ol className="frontier">
          {items.map((item) => (
            <FrontierRow key={item.url} item={item} />
          ))}
        </ol>
      )}
    </section>
  );
});

const FrontierRow = memo(
  function FrontierRow({ item }: { item: FrontierItem }) {
    return (
      <li className="frontier-item">
        <div className="frontier-line">
          <span className="url-cell" title={item.url}>
            {item.url}
          </span>
          <span className="muted small nowrap">
            priority {formatScore(item.priority)} · depth {item.depth}
          </span>
        </div>
        {item.signals.length > 0 && <p className="muted small signals-top">{topContributions(item.signals)}</p>}
        {item.signals.length > 0 && (
          <details className="signals">
            <summary>Why this score ({item.signals.length} signals)</summary>
            <table className="table compact">
              <thead>
                <tr>
                  <th scope="col">Signal</th>
                  <th scope="col" className="num">
                    Value
                  </th>
                  <th scope="col" className="num">
                    Adds
                  </th>
                  <th scope="col">Meaning</th>
                </tr>
              </thead>
              <tbody>
                {item.signals.map((signal) => (
                  <tr key={signal.name}>
                    <td>{signal.name}</td>
                    <td className="num">{formatScore(signal.value)}</td>
                    <td className="num">{signal.contribution >= 0 ? `+${formatScore(signal.contribution)}` : formatScore(signal.contribution)}</td>
                    <td>{signal.note ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        )}
      </li>
    );
  },
  (a, b) => a.item.url === b.item.url && a.item.priority === b.item.priority && a.item.depth === b.item.depth && a.item.signals.length === b.item.signals.length,
);
