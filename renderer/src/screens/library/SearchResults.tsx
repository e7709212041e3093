import { memo } from 'react';
import type { SearchResult } from '../../../../crawler/protocol/api.ts';
import { Snippet } from '../../components/Snippet.tsx';
import { formatDateTime, formatScore } from '../../lib/format.ts';
import { routeHash } from '../../lib/route.ts';
import { HotBadge } from './badges.tsx';

export const SearchResults = memo(function SearchResults({ collection, results, openSeq }: { collection: string; results: SearchResult[]; openSeq: number | null }) {
  return (
    <ol className="search-results">
      {results.map((result) => (
        <li key={`${result.seq}-${result.version}`} className={result.seq === openSeq ? 'selected' : undefined}>
          <a
            href={routeHash({ screen: 'library', collection, seq: result.seq, ...(result.latest ? {} : { version: result.version }) })}
            aria-current={result.seq === openSeq ? 'true' : undefined}
          >
            {result.title !== null && result.title.trim() !== '' ? result.title : result.url}
          </a>
          <div className="url-cell muted small" title={result.url}>
            {result.url}
          </div>
          {!result.latest && (
            <div className="small">
              <span className="badge">earlier version</span> found in version {result.version}, fetched{' '}
              <time dateTime={result.fetchedAt}>{formatDateTime(result.fetchedAt)}</time>; the page has changed since
            </div>
          )}
          <p className="snippet-line">
            <Snippet text={result.snippet} />
          </p>
          <div className="muted small">
            relevance {formatScore(result.relevance)} <HotBadge hot={result.hot} />
          </div>
        </li>
      ))}
    </ol>
  );
});
