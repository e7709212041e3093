import type { PageRevisit, PageVersions } from '../../../../crawler/protocol/api.ts';
import { formatCount, formatDateTime } from '../../lib/format.ts';
import { routeHash } from '../../lib/route.ts';
import { describeRevisit } from '../../lib/words.ts';

/** Checks listed per version; a page checked every day would otherwise push the stored page off the screen. */
const SHOWN_REVISITS = 3;

function Revisits({ revisits }: { revisits: PageRevisit[] }) {
  if (revisits.length === 0) return null;
  const shown = revisits.slice(-SHOWN_REVISITS);
  return (
    <ul className="revisit-list">
      {revisits.length > shown.length && <li className="muted">{formatCount(revisits.length - shown.length)} earlier checks</li>}
      {shown.map((r) => (
        <li key={`${r.at}-${r.outcome}`}>
          checked <time dateTime={r.at}>{formatDateTime(r.at)}</time>: {describeRevisit(r.outcome, r.status)}
        </li>
      ))}
    </ul>
  );
}

interface VersionHistoryProps {
  collection: string;
  history: PageVersions;
  /** The version in the frame. */
  shown: number;
  comparing: boolean;
  onCompare: (comparing: boolean) => void;
}

/**
 * A page's versions, newest first, each with its date and what the revisits of it found;
 * choosing one shows it in the frame. The list folds away, as the page's details do, so that
 * the stored page keeps the window's height.
 */
export function VersionHistory({ collection, history, shown, comparing, onCompare }: VersionHistoryProps) {
  const { versions } = history;
  const current = versions.find((v) => v.version === shown);
  return (
    <div className="viewer-versions">
      <details className="versions-fold">
        <summary>
          {versions.length === 1 ? 'One version' : `${formatCount(versions.length)} versions`}
          {current !== undefined && !comparing && (
            <>
              {' '}
              · showing version {current.version}
              {current.latest ? ' (latest)' : ''}, fetched <time dateTime={current.fetchedAt}>{formatDateTime(current.fetchedAt)}</time>
            </>
          )}
          {history.goneAt !== null && (
            <span className="badge badge-gone" title={`A revisit found the page gone on ${formatDateTime(history.goneAt)}`}>
              gone
            </span>
          )}
        </summary>
        <ol className="version-list" aria-label="Versions of this page">
          {versions.map((v) => {
            const isShown = v.version === shown && !comparing;
            return (
              <li key={v.version} className={isShown ? 'selected' : undefined}>
                <a
                  href={routeHash({ screen: 'library', collection, seq: history.seq, ...(v.latest ? {} : { version: v.version }) })}
                  aria-current={isShown ? 'true' : undefined}
                  onClick={() => onCompare(false)}
                >
                  Version {v.version}
                  {v.latest ? ' (latest)' : ''}
                </a>{' '}
                <span className="muted">
                  fetched <time dateTime={v.fetchedAt}>{formatDateTime(v.fetchedAt)}</time>
                  {v.status !== 200 && <> · HTTP {v.status}</>}
                </span>
                <Revisits revisits={v.revisits} />
              </li>
            );
          })}
        </ol>
      </details>
      {versions.length > 1 && (
        <button type="button" className="button-secondary" aria-pressed={comparing} onClick={() => onCompare(!comparing)}>
          {comparing ? 'Show the page' : 'Compare versions'}
        </button>
      )}
    </div>
  );
}
