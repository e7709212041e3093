import type { ForagerService } from '../service/service.ts';
import { createCollectionPageSource, type StoredPageSource } from '../viewer/page-source.ts';
import { storedPageHeaders } from '../viewer/stored-page-csp.ts';
import { createStoredPageHandler, parseViewerUrl, viewerRoutes } from '../viewer/stored-page-handler.ts';
import type { StoredPagesFactory } from './server.ts';

/** Stored pages under /stored/: in-collection links stay in the viewer, others go through the external-link page. */
export function createServeStoredPages(service: ForagerService): StoredPagesFactory {
  return storedPagesFrom(createCollectionPageSource((collection) => service.reader(collection)));
}

/** Stored pages read from any source (a directory's collections, or a cluster's shards). */
export function storedPagesFrom(source: StoredPageSource): StoredPagesFactory {
  return (linkPrefix) => {
    const handler = createStoredPageHandler(source, viewerRoutes('serve', linkPrefix));
    return async (request) => {
      const target = parseViewerUrl(new URL(request.url), 'serve');
      if (target === undefined) return new Response('not found\n', { status: 404, headers: { ...storedPageHeaders(), 'content-type': 'text/plain; charset=utf-8' } });
      return handler(request, target);
    };
  };
}
