/*
 * Entry point of the crawler's utility process (utilityProcess.fork). Main sends one
 * start message with the collections folder and the MessagePort to serve on; this file
 * only wires the service and the viewer to that port (crawler-host.ts does the rest).
 * The one module of electron/ that imports the service and viewer implementations.
 */
import { dispatchCall } from '../../crawler/service/dispatch.ts';
import { createForagerService } from '../../crawler/service/service.ts';
import { createCollectionPageSource } from '../../crawler/viewer/page-source.ts';
import { createStoredPageHandler } from '../../crawler/viewer/stored-page-handler.ts';
import { viewerRoutes } from '../../crawler/viewer/viewer-url.ts';
import { APP_SCHEME } from '../shared/app-origin.ts';
import type { CrawlerStart } from '../shared/crawler-protocol.ts';
import { serveCrawler } from './crawler-host.ts';

process.parentPort.once('message', ({ data, ports }) => {
  const start = data as Partial<CrawlerStart> | null;
  const port = ports[0];
  if (typeof start?.dir !== 'string' || port === undefined) {
    console.error('forager: the crawler process needs a collections folder and a port');
    process.exit(1);
  }
  const service = createForagerService({ dir: start.dir });
  const pages = createCollectionPageSource((collection: string) => service.reader(collection));
  // Stored pages are framed by the app (app://forager), not by a page of their own scheme.
  const viewPage = createStoredPageHandler(pages, viewerRoutes('protocol'), { frameAncestors: `${APP_SCHEME}:` });
  serveCrawler(port, service, (method, input) => dispatchCall(service, method, input), viewPage);
});
