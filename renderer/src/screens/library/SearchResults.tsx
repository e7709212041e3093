import { memo } from 'react';
import type { SearchResult } from '../../../../crawler/protocol/api.ts';
import { Snippet } from '../../components/Snippet.tsx';
import { formatScore } from '../../lib/format.ts';
import { routeHash } from '../../lib/route.ts';
import { HotBadge } from './badges.tsx';

export const SearchResults = memo(function SearchResults({ collection, results, openSeq }: { collection: string; results: SearchResult[]; openSeq: number | null }) {
  return (
    <ol className="search-results">
      {results.map((result) => (
        <li key={result.seq} className={result.seq === openSeq ? 'selected' : undefined}>
          <a href={routeHash({ screen: 'library', collection, seq: result.seq })} aria-current={result.seq === openSeq ? 'true' : undefined}>
            {result.title !== null && result.title.trim() !== '' ? result.title : result.url}
          </a>
          <div className="url-cell muted small" title={result.url}>
            {result.url}
          </div>
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
