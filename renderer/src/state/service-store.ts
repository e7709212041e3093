import type { CollectionInfo, CrawlStatus } from '../../../crawler/protocol/api.ts';

type Listener = () => void;

/**
 * The latest pushed state: one crawl status per collection and the collection list.
 * Listeners subscribe per collection, so a status event re-renders only the screen
 * that shows that crawl.
 */
export class ServiceStore {
  readonly #statuses = new Map<string, CrawlStatus>();
  readonly #statusListeners = new Map<string, Set<Listener>>();
  #collections: CollectionInfo[] | null = null;
  readonly #collectionListeners = new Set<Listener>();

  status(collection: string): CrawlStatus | undefined {
    return this.#statuses.get(collection);
  }

  setStatus(status: CrawlStatus): void {
    this.#statuses.set(status.collection, status);
    for (const listener of this.#statusListeners.get(status.collection) ?? []) listener();
  }

  subscribeStatus(collection: string, listener: Listener): () => void {
    let set = this.#statusListeners.get(collection);
    if (set === undefined) this.#statusListeners.set(collection, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#statusListeners.delete(collection);
    };
  }

  collections(): CollectionInfo[] | null {
    return this.#collections;
  }

  setCollections(collections: CollectionInfo[]): void {
    this.#collections = collections;
    for (const listener of this.#collectionListeners) listener();
  }

  subscribeCollections(listener: Listener): () => void {
    this.#collectionListeners.add(listener);
    return () => this.#collectionListeners.delete(listener);
  }
}
