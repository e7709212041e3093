import { memo } from 'react';
import type { PageRow } from '../../../../crawler/protocol/api.ts';
import { formatDateTime, formatScore } from '../../lib/format.ts';
import { documentSummary } from '../../lib/page-types.ts';
import { routeHash } from '../../lib/route.ts';
import { HotBadge, LabelBadge } from './badges.tsx';

export const PageTable = memo(function PageTable({ collection, pages, openSeq }: { collection: string; pages: PageRow[]; openSeq: number | null }) {
  return (
    <table className="table pages-table">
      <thead>
        <tr>
          <th scope="col">Page</th>
          <th scope="col" className="num">
            Relevance
          </th>
        </tr>
      </thead>
      <tbody>
        {pages.map((page) => {
          const summary = documentSummary(page);
          return (
            <tr key={page.seq} className={page.seq === openSeq ? 'selected' : undefined}>
              <td className="page-cell">
                <a href={routeHash({ screen: 'library', collection, seq: page.seq })} aria-current={page.seq === openSeq ? 'true' : undefined}>
                  {page.title !== null && page.title.trim() !== '' ? page.title : page.url}
                </a>
                <div className="url-cell muted small" title={page.url}>
                  {page.url}
                </div>
                {(summary !== null || page.hot || page.label !== null || page.duplicate !== null || page.soft404 || page.version > 1 || page.goneAt !== null) && (
                  <div className="badges">
                    {summary !== null && <span className="badge badge-type">{summary}</span>}
                    <HotBadge hot={page.hot} />
                    <LabelBadge label={page.label} />
                    {page.duplicate !== null && (
                      <span className="badge" title={`${page.duplicate.kind === 'exact' ? 'The same page as' : 'Nearly the same text as'} ${page.duplicate.of}`}>
                        {page.duplicate.kind === 'exact' ? 'duplicate' : 'near-duplicate'}
                      </span>
                    )}
                    {page.soft404 && (
                      <span className="badge" title="The site answers this way for pages that do not exist">
                        soft 404
                      </span>
                    )}
                    {page.lastChangedAt !== null && (
                      <span className="badge badge-changed" title={`Found changed on ${formatDateTime(page.lastChangedAt)}`}>
                        {page.version} versions
                      </span>
                    )}
                    {page.goneAt !== null && (
                      <span className="badge badge-gone" title={`Found gone on ${formatDateTime(page.goneAt)}`}>
                        gone
                      </span>
                    )}
                  </div>
                )}
              </td>
              <td className="num">{formatScore(page.relevance)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
});
