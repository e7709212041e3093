import { useCallback, useEffect, useState, type MouseEvent } from 'react';
import type { ServiceInfo } from '../../../crawler/protocol/api.ts';
import type { ForagerClient } from '../api/client.ts';
import { useHashRoute } from '../hooks/use-hash-route.ts';
import { useLoad } from '../hooks/use-load.ts';
import { useServiceEvents } from '../hooks/use-service.ts';
import { markFirstRender } from '../perf.ts';
import { ClientContext, InfoContext, StoreContext, useClient } from '../state/contexts.ts';
import type { ServiceStore } from '../state/service-store.ts';
import { Nav } from './Nav.tsx';
import { ErrorNote, LoadingNote } from './Notes.tsx';
import { Screen } from './Screen.tsx';

export function App({ client, store }: { client: ForagerClient; store: ServiceStore }) {
  useEffect(markFirstRender, []);
  return (
    <ClientContext.Provider value={client}>
      <StoreContext.Provider value={store}>
        <Shell />
      </StoreContext.Provider>
    </ClientContext.Provider>
  );
}

function Shell() {
  const client = useClient();
  const route = useHashRoute();
  const [eventError, setEventError] = useState<unknown>(undefined);
  useServiceEvents(useCallback((error: unknown) => setEventError(error), []));
  const info = useLoad<ServiceInfo>(() => client.api.info(), [client]);

  return (
    <div className="app">
      <a className="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <Nav route={route} canManage={info.data?.canManageCollections ?? true} cluster={(info.data?.cluster ?? null) !== null} />
      <main id="main" tabIndex={-1}>
        <ErrorNote error={eventError} />
        {info.data !== undefined ? (
          <InfoContext.Provider value={info.data}>
            <Screen route={route} />
          </InfoContext.Provider>
        ) : info.error !== undefined ? (
          <section className="startup-error">
            <h1>Forager cannot start</h1>
            <ErrorNote error={info.error} onRetry={info.reload} />
          </section>
        ) : (
          <LoadingNote>Connecting to Forager…</LoadingNote>
        )}
      </main>
    </div>
  );
}

/** The hash is the router, so the skip link moves focus instead of changing it. */
function skipToMain(event: MouseEvent<HTMLAnchorElement>): void {
  event.preventDefault();
  document.getElementById('main')?.focus();
}
