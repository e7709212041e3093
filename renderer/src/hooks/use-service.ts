import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type { CollectionInfo, CrawlStatus } from '../../../crawler/protocol/api.ts';
import { useClient, useStore } from '../state/contexts.ts';

/** The latest pushed status of one crawl, or undefined until the first one arrives. */
export function useCrawlStatus(collection: string): CrawlStatus | undefined {
  const store = useStore();
  const subscribe = useCallback((listener: () => void) => store.subscribeStatus(collection, listener), [store, collection]);
  return useSyncExternalStore(subscribe, () => store.status(collection));
}

/** The collection list, loaded on first use and kept current by 'collections' events. */
export function useCollections(): { collections: CollectionInfo[] | null; reload: () => Promise<void> } {
  const store = useStore();
  const client = useClient();
  const subscribe = useCallback((listener: () => void) => store.subscribeCollections(listener), [store]);
  const collections = useSyncExternalStore(subscribe, () => store.collections());
  const reload = useCallback(async () => {
    store.setCollections(await client.api.listCollections());
  }, [store, client]);
  return { collections, reload };
}

/** Feeds pushed events into the store for the app's lifetime. */
export function useServiceEvents(onError: (error: unknown) => void): void {
  const store = useStore();
  const client = useClient();
  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type === 'status') {
          store.setStatus(event.status);
        } else if (event.type === 'collections') {
          // The list may come with the event or not: without it, fetch it.
          if (Array.isArray(event.collections)) store.setCollections(event.collections);
          else client.api.listCollections().then((list) => store.setCollections(list), onError);
        }
      }),
    [store, client, onError],
  );
}
