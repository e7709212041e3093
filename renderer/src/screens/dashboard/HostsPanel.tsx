import { memo } from 'react';
import type { HostActivity } from '../../../../crawler/protocol/api.ts';
import { formatCount, formatWait } from '../../lib/format.ts';

const SHOWN = 25;

function byActivity(a: HostActivity, b: HostActivity): number {
  if (a.inFlight !== b.inFlight) return a.inFlight ? -1 : 1;
  const aNext = a.nextAllowedAt === null ? 0 : Date.parse(a.nextAllowedAt);
  const bNext = b.nextAllowedAt === null ? 0 : Date.parse(b.nextAllowedAt);
  return aNext - bNext || b.queued - a.queued;
}

export const HostsPanel = memo(function HostsPanel({ hosts }: { hosts: HostActivity[] }) {
  const now = Date.now();
  const shown = hosts.slice().sort(byActivity).slice(0, SHOWN);
  return (
    <section className="panel" aria-labelledby="hosts-title">
      <h2 id="hosts-title">Active hosts</h2>
      {hosts.length === 0 ? (
        <p className="muted">No host is being crawled right now.</p>
      ) : (
        <>
          <table className="table compact">
            <thead>
              <tr>
                <th scope="col">Host</th>
                <th scope="col" className="num">
                  Queued
                </th>
                <th scope="col" className="num">
                  Fetched
                </th>
                <th scope="col">Next request</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((host) => (
                <tr key={host.origin}>
                  <td className="url-cell" title={host.origin}>
                    {host.origin.replace(/^https?:\/\//, '')}
                  </td>
                  <td className="num">{formatCount(host.queued)}</td>
                  <td className="num">{formatCount(host.pagesFetched)}</td>
                  <td>{host.inFlight ? <span className="badge state-running">fetching</span> : formatWait(host.nextAllowedAt, now)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {hosts.length > SHOWN && <p className="muted small">and {formatCount(hosts.length - SHOWN)} more hosts</p>}
        </>
      )}
    </section>
  );
});
