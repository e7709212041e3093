import { memo, useEffect, useState } from 'react';
import type { CollectionInfo } from '../../../crawler/protocol/api.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { EmptyState, ErrorNote, LoadingNote } from '../components/Notes.tsx';
import { StateBadge } from '../components/StateBadge.tsx';
import { useCollections, useCrawlStatus } from '../hooks/use-service.ts';
import { formatAgo, formatCount } from '../lib/format.ts';
import { routeHash } from '../lib/route.ts';
import { useClient, useInfo, useStore } from '../state/contexts.ts';

export function CollectionsScreen() {
  const client = useClient();
  const info = useInfo();
  const { collections, reload } = useCollections();
  const [loadError, setLoadError] = useState<unknown>(undefined);
  const [toDelete, setToDelete] = useState<CollectionInfo | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>(undefined);

  const load = (): void => {
    setLoadError(undefined);
    reload().catch(setLoadError);
  };
  useEffect(load, [reload]);

  const confirmDelete = async (): Promise<void> => {
    if (toDelete === null) return;
    setDeleting(true);
    setDeleteError(undefined);
    try {
      await client.api.deleteCollection({ collection: toDelete.id });
      setToDelete(null);
      await reload();
    } catch (error) {
      setDeleteError(error);
    } finally {
      setDeleting(false);
    }
  };

  return (
    <section className="screen">
      <div className="screen-head">
        <h1>Collections</h1>
        {info.canManageCollections && (
          <a className="button" href="#/new">
            New crawl
          </a>
        )}
      </div>
      {info.readOnly && <p className="hint">Read-only: {info.location}</p>}
      <ErrorNote error={loadError} onRetry={load} />
      {collections === null ? (
        loadError === undefined && <LoadingNote />
      ) : collections.length === 0 ? (
        <EmptyState title="No collections yet">
          <p>
            A collection is everything one focused crawl gathers: you describe a topic with a driving query, give a few
            seed sites, and Forager fetches pages politely, judges how well each matches the query, and keeps them all
            in one file on this computer so you can search and read them offline.
          </p>
          {info.canManageCollections ? (
            <a className="button" href="#/new">
              New crawl
            </a>
          ) : (
            <p>This Forager was opened on a single file, so new collections cannot be made here.</p>
          )}
        </EmptyState>
      ) : (
        <table className="table collections-table">
          <thead>
            <tr>
              <th scope="col">Query</th>
              <th scope="col" className="num">
                Pages
              </th>
              <th scope="col" className="num">
                Hot
              </th>
              <th scope="col">Crawl</th>
              <th scope="col">Last crawled</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {collections.map((collection) => (
              <CollectionRow
                key={collection.id}
                collection={collection}
                canDelete={info.canManageCollections}
                onDelete={() => {
                  setDeleteError(undefined);
                  setToDelete(collection);
                }}
              />
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete this collection?"
        confirmLabel={deleting ? 'Deleting…' : 'Delete collection'}
        busy={deleting}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setToDelete(null)}
      >
        <p>
          “{toDelete?.query ?? toDelete?.id}” and its {formatCount(toDelete?.pages ?? 0)} stored pages will be removed
          from this computer. This cannot be undone.
        </p>
        <ErrorNote error={deleteError} />
      </ConfirmDialog>
    </section>
  );
}

const CollectionRow = memo(function CollectionRow({
  collection,
  canDelete,
  onDelete,
}: {
  collection: CollectionInfo;
  canDelete: boolean;
  onDelete: () => void;
}) {
  const client = useClient();
  const store = useStore();
  const live = useCrawlStatus(collection.id);
  const [refreshing, setRefreshing] = useState(false);
  const [refreshError, setRefreshError] = useState<unknown>(undefined);
  const href = routeHash({ screen: 'dashboard', collection: collection.id });
  const state = live?.state ?? collection.crawl;
  const name = collection.query ?? collection.id;
  const refresh = async (): Promise<void> => {
    setRefreshing(true);
    setRefreshError(undefined);
    try {
      store.setStatus(await client.api.refreshCollection({ collection: collection.id }));
    } catch (error) {
      setRefreshError(error);
    } finally {
      setRefreshing(false);
    }
  };
  return (
    <tr>
      <td>
        {collection.problem === null ? (
          <a href={href} className="row-title">
            {collection.query ?? 'No crawl yet'}
          </a>
        ) : (
          <span className="row-title">{collection.id}</span>
        )}
        <div className="muted small">{collection.problem === null ? collection.id : `Cannot be opened: ${collection.problem}`}</div>
        <ErrorNote error={refreshError} />
      </td>
      <td className="num">{formatCount(collection.pages)}</td>
      <td className="num">{formatCount(collection.hot)}</td>
      <td>
        <StateBadge state={state} refreshing={live?.refresh !== null && live?.refresh !== undefined} />
      </td>
      <td>{formatAgo(collection.lastCrawledAt, Date.now())}</td>
      <td className="actions">
        {collection.problem === null && (
          <a className="button button-secondary" href={href}>
            Open
          </a>
        )}
        {collection.problem === null && collection.pages > 0 && (
          <button
            type="button"
            className="button-secondary"
            onClick={() => void refresh()}
            disabled={refreshing || state !== 'idle'}
            aria-label={`Refresh ${name}`}
            title="Revisit the stored pages: keep a new version of each page that changed, and mark the pages that are gone"
          >
            Refresh
          </button>
        )}
        {canDelete && (
          <button type="button" className="button-secondary" onClick={onDelete} aria-label={`Delete ${collection.query ?? collection.id}`}>
            Delete
          </button>
        )}
      </td>
    </tr>
  );
});
