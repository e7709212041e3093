import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { PageList, PageRow, PageSort, SearchResult } from '../../../../crawler/protocol/api.ts';
import { CheckField } from '../../components/Field.tsx';
import { EmptyState, ErrorNote, LoadingNote } from '../../components/Notes.tsx';
import { useLoad } from '../../hooks/use-load.ts';
import { formatCount } from '../../lib/format.ts';
import { CHANGE_FILTERS, changeQuery, describeNoMatch, PERIODS, usesPeriod, type ChangeFilter, type Period } from '../../lib/page-filters.ts';
import { describeNoType, TYPE_CHOICES, typeMatches, typeQuery, type TypeChoice } from '../../lib/page-types.ts';
import { useClient } from '../../state/contexts.ts';
import { PageTable } from './PageTable.tsx';
import { PageViewer } from './PageViewer.tsx';
import { SearchResults } from './SearchResults.tsx';

const PAGE_SIZE = 50;
const SEARCH_LIMIT = 50;
const SEARCH_DELAY_MS = 300;

interface LibraryScreenProps {
  collection: string;
  openSeq: number | null;
  openVersion: number | null;
  /** The page of an open PDF to show first (a search hit's). */
  openDocumentPage: number | null;
}

/** The harvest: browse or search the stored pages and documents, read one offline, label it. */
export function LibraryScreen({ collection, openSeq, openVersion, openDocumentPage }: LibraryScreenProps) {
  const client = useClient();
  const [sort, setSort] = useState<PageSort>('relevance');
  const [hotOnly, setHotOnly] = useState(false);
  const [offset, setOffset] = useState(0);
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [change, setChange] = useState<ChangeFilter>('all');
  const [period, setPeriod] = useState<Period>('day');
  const [allVersions, setAllVersions] = useState(false);
  const [type, setType] = useState<TypeChoice>('all');

  useEffect(() => {
    const timer = setTimeout(() => setQuery(typed.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const list = useLoad<PageList>(
    () => client.api.listPages({ collection, sort, hotOnly, offset, limit: PAGE_SIZE, ...typeQuery(type), ...changeQuery(change, period, Date.now()) }),
    [client, collection, sort, hotOnly, offset, type, change, period],
  );
  const search = useLoad<SearchResult[] | null>(
    () => (query === '' ? Promise.resolve(null) : client.api.searchPages({ collection, text: query, limit: SEARCH_LIMIT, allVersions })),
    [client, collection, query, allVersions],
  );

  const onLabelled = useCallback(
    (row: PageRow) => {
      if (list.data === undefined) return;
      list.set({ ...list.data, pages: list.data.pages.map((p) => (p.seq === row.seq ? row : p)) });
    },
    [list],
  );

  const submitSearch = (event: FormEvent): void => {
    event.preventDefault();
    setQuery(typed.trim());
  };

  const searching = query !== '';
  const results = search.data?.filter((r) => (!hotOnly || r.hot) && typeMatches(type, r.type)) ?? null;

  return (
    <section className={`screen library${openSeq !== null ? ' with-viewer' : ''}`}>
      <div className="library-list">
        <h1>Library</h1>
        <form role="search" className="search-form" onSubmit={submitSearch}>
          <label htmlFor="library-search">Search pages</label>
          <input id="library-search" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="Words or “a phrase”" />
          <CheckField id="library-all-versions" label="Search earlier versions too" checked={allVersions} onChange={setAllVersions} />
        </form>
        <div className="list-controls">
          <div className="inline-field">
            <label htmlFor="library-sort">Sort by</label>
            <select
              id="library-sort"
              value={sort}
              onChange={(e) => {
                setSort(e.target.value as PageSort);
                setOffset(0);
              }}
            >
              <option value="relevance">Relevance</option>
              <option value="time">Time</option>
              <option value="url">URL</option>
            </select>
          </div>
          <CheckField
            id="library-hot"
            label="Hot only"
            checked={hotOnly}
            onChange={(checked) => {
              setHotOnly(checked);
              setOffset(0);
            }}
          />
        </div>
        <div className="list-controls">
          <div className="inline-field">
            <label htmlFor="library-type">Type</label>
            <select
              id="library-type"
              value={type}
              onChange={(e) => {
                setType(e.target.value as TypeChoice);
                setOffset(0);
              }}
            >
              {TYPE_CHOICES.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          </div>
          {!searching && (
            <>
              <div className="inline-field">
                <label htmlFor="library-changes">Show</label>
                <select
                  id="library-changes"
                  value={change}
                  onChange={(e) => {
                    setChange(e.target.value as ChangeFilter);
                    setOffset(0);
                  }}
                >
                  {CHANGE_FILTERS.map((f) => (
                    <option key={f.value} value={f.value}>
                      {f.label}
                    </option>
                  ))}
                </select>
              </div>
              {usesPeriod(change) && (
                <div className="inline-field">
                  <label htmlFor="library-period" className="visually-hidden">
                    When
                  </label>
                  <select
                    id="library-period"
                    value={period}
                    onChange={(e) => {
                      setPeriod(e.target.value as Period);
                      setOffset(0);
                    }}
                  >
                    {PERIODS.map((p) => (
                      <option key={p.value} value={p.value}>
                        {p.label}
                      </option>
                    ))}
                  </select>
                </div>
              )}
            </>
          )}
        </div>
        {searching ? (
          <>
            <p className="muted small">Search results are ordered by how well they match.</p>
            <ErrorNote error={search.error} onRetry={search.reload} />
            {results === null ? (
              search.error === undefined && <LoadingNote>Searching…</LoadingNote>
            ) : results.length === 0 ? (
              <p className="muted">
                No stored page matches “{query}”{hotOnly ? ' among the hot pages' : ''}
                {type !== 'all' ? ` of the type “${TYPE_CHOICES.find((t) => t.value === type)?.label ?? type}”` : ''}.
              </p>
            ) : (
              <>
                <SearchResults collection={collection} results={results} openSeq={openSeq} />
                {search.data?.length === SEARCH_LIMIT && <p className="muted small">Showing the best {SEARCH_LIMIT} matches; add words to narrow the search.</p>}
              </>
            )}
          </>
        ) : (
          <>
            <ErrorNote error={list.error} onRetry={list.reload} />
            {list.data === undefined ? (
              list.error === undefined && <LoadingNote />
            ) : list.data.total === 0 && change !== 'all' ? (
              <p className="muted">{describeNoMatch(change, period)}</p>
            ) : list.data.total === 0 && type !== 'all' ? (
              <p className="muted">{describeNoType(type)}</p>
            ) : list.data.total === 0 ? (
              <EmptyState title={hotOnly ? 'No hot pages yet' : 'No pages yet'}>
                <p>
                  {hotOnly
                    ? 'None of the stored pages matches the topic well enough to count as hot. Untick “Hot only” to see them all.'
                    : 'Pages appear here as the crawl stores them. Start or continue the crawl from the dashboard.'}
                </p>
              </EmptyState>
            ) : (
              <>
                <PageTable collection={collection} pages={list.data.pages} openSeq={openSeq} />
                <Pager total={list.data.total} offset={offset} count={list.data.pages.length} onOffset={setOffset} />
              </>
            )}
          </>
        )}
      </div>
      {openSeq !== null && (
        <PageViewer key={openSeq} collection={collection} seq={openSeq} version={openVersion} documentPage={openDocumentPage} onLabelled={onLabelled} />
      )}
    </section>
  );
}

function Pager({ total, offset, count, onOffset }: { total: number; offset: number; count: number; onOffset: (offset: number) => void }) {
  return (
    <nav className="pager" aria-label="Pages of the list">
      <button type="button" className="button-secondary" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - PAGE_SIZE))}>
        Previous
      </button>
      <span aria-live="polite">
        {count === 0 ? 'Nothing here' : `${formatCount(offset + 1)}–${formatCount(offset + count)} of ${formatCount(total)}`}
      </span>
      <button type="button" className="button-secondary" disabled={offset + count >= total} onClick={() => onOffset(offset + PAGE_SIZE)}>
        Next
      </button>
    </nav>
  );
}
