import type { CookieJarSink } from '../net/cookie-jar.ts';
import { CookieStore } from '../store/cookie-store.ts';
import type { Db } from '../store/database.ts';

/**
 * Where the session's cookies are written as they change (before the page that set one is
 * stored, so a kill loses none a stored page received); a write the collection refuses goes
 * to `onError`, which pauses the crawl as any other refused write does.
 */
export function cookieSink(db: Db, onError: (err: unknown) => void): CookieJarSink {
  const store = new CookieStore(db);
  const guarded = (write: () => void): void => {
    try {
      write();
    } catch (err) {
      onError(err);
    }
  };
  return {
    put: (domain, path, name, serialized) => guarded(() => store.put(domain, path, name, serialized)),
    remove: (domain, path, name) => guarded(() => store.remove(domain, path, name)),
  };
}
