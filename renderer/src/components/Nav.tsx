import { memo, useEffect } from 'react';
import { useCollections } from '../hooks/use-service.ts';
import { routeHash, type CollectionScreen, type Route } from '../lib/route.ts';

const COLLECTION_LINKS: readonly { screen: CollectionScreen; label: string }[] = [
  { screen: 'dashboard', label: 'Dashboard' },
  { screen: 'library', label: 'Library' },
  { screen: 'lab', label: 'Lab' },
  { screen: 'export', label: 'Export' },
];

function NavLink({ href, current, children }: { href: string; current: boolean; children: string }) {
  return (
    <a href={href} className="nav-link" aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

/** `cluster` is true when the service watches a crawl cluster: only then is its screen offered. */
export const Nav = memo(function Nav({ route, canManage, cluster }: { route: Route; canManage: boolean; cluster: boolean }) {
  const collection = 'collection' in route ? route.collection : null;
  return (
    <header className="topbar">
      <a className="brand" href="#/collections">
        Forager
      </a>
      <nav aria-label="Main">
        <NavLink href="#/collections" current={route.screen === 'collections'}>
          Collections
        </NavLink>
        {canManage && (
          <NavLink href="#/new" current={route.screen === 'new'}>
            New crawl
          </NavLink>
        )}
        {cluster && (
          <NavLink href="#/cluster" current={route.screen === 'cluster'}>
            Cluster
          </NavLink>
        )}
      </nav>
      {collection !== null && (
        <nav aria-label="Collection" className="collection-nav">
          <CollectionName id={collection} />
          {COLLECTION_LINKS.map((link) => (
            <NavLink key={link.screen} href={routeHash({ screen: link.screen, collection })} current={route.screen === link.screen}>
              {link.label}
            </NavLink>
          ))}
        </nav>
      )}
    </header>
  );
});

function CollectionName({ id }: { id: string }) {
  const { collections, reload } = useCollections();
  useEffect(() => {
    // The name is a nicety: if the list cannot be loaded the id stands in.
    if (collections === null) reload().catch(() => undefined);
  }, [collections, reload]);
  const query = collections?.find((c) => c.id === id)?.query;
  return (
    <span className="collection-name" title={query ?? id}>
      {query ?? id}
    </span>
  );
}
