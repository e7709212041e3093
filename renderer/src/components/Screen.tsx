import { lazy, Suspense } from 'react';
import { CollectionsScreen } from '../screens/CollectionsScreen.tsx';
import type { Route } from '../lib/route.ts';
import { EmptyState, LoadingNote } from './Notes.tsx';

// Each screen but the landing one is its own chunk: the start-up script stays small, uPlot
// loads with the first chart, and the first screen never waits for a chunk (React holds a
// suspended transition back for 300 ms).
const NewCrawlScreen = lazy(() => import('../screens/NewCrawlScreen.tsx').then((m) => ({ default: m.NewCrawlScreen })));
const DashboardScreen = lazy(() => import('../screens/dashboard/DashboardScreen.tsx').then((m) => ({ default: m.DashboardScreen })));
const LibraryScreen = lazy(() => import('../screens/library/LibraryScreen.tsx').then((m) => ({ default: m.LibraryScreen })));
const LabScreen = lazy(() => import('../screens/LabScreen.tsx').then((m) => ({ default: m.LabScreen })));
const ClusterScreen = lazy(() => import('../screens/ClusterScreen.tsx').then((m) => ({ default: m.ClusterScreen })));
const ExportScreen = lazy(() => import('../screens/ExportScreen.tsx').then((m) => ({ default: m.ExportScreen })));

export function Screen({ route }: { route: Route }) {
  return (
    <Suspense fallback={<LoadingNote />}>
      <RouteScreen route={route} />
    </Suspense>
  );
}

/** One screen per route; keyed by collection so switching collections starts afresh. */
function RouteScreen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'collections':
      return <CollectionsScreen />;
    case 'new':
      return <NewCrawlScreen />;
    case 'cluster':
      return <ClusterScreen />;
    case 'dashboard':
      return <DashboardScreen key={route.collection} collection={route.collection} />;
    case 'library':
      return <LibraryScreen key={route.collection} collection={route.collection} openSeq={route.seq ?? null} openVersion={route.version ?? null} openDocumentPage={route.documentPage ?? null} />;
    case 'lab':
      return <LabScreen key={route.collection} collection={route.collection} />;
    case 'export':
      return <ExportScreen key={route.collection} collection={route.collection} />;
    case 'not-found':
      return (
        <EmptyState title="Nothing here">
          <p>
            There is no screen at this address. Go back to <a href="#/collections">your collections</a>.
          </p>
        </EmptyState>
      );
  }
}
