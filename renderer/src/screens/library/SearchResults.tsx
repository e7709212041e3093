import { memo } from 'react';
import type { SearchResult } from '../../../../crawler/protocol/api.ts';
import { Snippet } from '../../components/Snippet.tsx';
import { formatDateTime, formatScore } from '../../lib/format.ts';
import { typeName } from '../../lib/page-types.ts';
import { routeHash } from '../../lib/route.ts';
import { HotBadge } from './badges.tsx';

/** Where a hit opens: an earlier version, the page of a PDF the words are on, or the page as it is. */
function hitPlace(result: SearchResult): { version?: number; documentPage?: number } {
  if (!result.latest) return { version: result.version };
  return result.documentPage === null ? {} : { documentPage: result.documentPage };
}

export const SearchResults = memo(function SearchResults({ collection, results, openSeq }: { collection: string; results: SearchResult[]; openSeq: number | null }) {
  return (
    <ol className="search-results">
      {results.map((result) => (
        <li key={`${result.seq}-${result.version}`} className={result.seq === openSeq ? 'selected' : undefined}>
          <a
            href={routeHash({ screen: 'library', collection, seq: result.seq, ...hitPlace(result) })}
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
            {result.documentPage !== null && <span className="page-of-hit">p. {result.documentPage}</span>}
            <Snippet text={result.snippet} />
          </p>
          <div className="muted small">
            {result.type !== 'html' && <span className="badge badge-type">{typeName(result.type)}</span>} relevance {formatScore(result.relevance)} <HotBadge hot={result.hot} />
          </div>
        </li>
      ))}
    </ol>
  );
});
