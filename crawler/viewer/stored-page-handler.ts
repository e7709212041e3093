/**
 * The viewer's one entry point for both transports: a web-standard Request and what it
 * asks for in, a Response out. A stored HTML page comes back sanitised, its links sent to
 * other stored pages or to the external-link page, its stored images and stylesheets
 * inlined; a plain-text document comes back as escaped text; anything else gets a small
 * notice page. Every such response carries the stored-page policy (stored-page-csp.ts). A
 * document's file is its bytes as received, always as an attachment (documentFileHeaders).
 */
import { CollectionError, UsageError } from '../errors.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import { externalLinkPage, messagePage, nonHtmlPage, pdfNoticePage, plainTextPage, type NonHtmlFacts } from './notice-pages.ts';
import { MAX_STORED_URL_LENGTH, type StoredPage, type StoredPageSource } from './page-source.ts';
import { sanitizeStoredHtml, type LinkTarget } from './sanitize-html.ts';
import { documentFileHeaders, storedPageHeaders, type StoredPagePolicyOptions } from './stored-page-csp.ts';
import type { ViewerRoutes, ViewerTarget } from './viewer-url.ts';

export { parseViewerUrl, versionViewPath, viewerRoutes, type ViewerRoutes, type ViewerTarget, type ViewerTransport } from './viewer-url.ts';

export type StoredPageHandler = (request: Request, target: ViewerTarget) => Promise<Response>;

/** The longest URL a crawl may store (settings' max-url-length bound): longer links cannot be in a collection. */
/** Longer addresses get no external-link page. */
const MAX_EXTERNAL_URL_LENGTH = 8_192;

export function createStoredPageHandler(
  source: StoredPageSource,
  routes: ViewerRoutes,
  options: StoredPagePolicyOptions = {},
): StoredPageHandler {
  const headers = storedPageHeaders(options);
  const respond = (request: Request, status: number, body: string, extra: Record<string, string> = {}): Response =>
    new Response(request.method === 'HEAD' ? null : body, { status, headers: { ...headers, ...extra } });

  /** Where the links of one page go; a page often repeats a link, so each is looked up once. */
  const linkMapper = (collection: string): ((absoluteUrl: string) => LinkTarget) => {
    const known = new Map<string, LinkTarget>();
    return (absoluteUrl) => {
      let target = known.get(absoluteUrl);
      if (target === undefined) {
        target = linkTarget(source, routes, collection, absoluteUrl);
        known.set(absoluteUrl, target);
      }
      return target;
    };
  };

  const showPage = (request: Request, collection: string, seq: number, version: number | undefined): Response => {
    const page = source.page(collection, seq, version);
    if (page === undefined) {
      const what = version === undefined ? `page ${seq}` : `version ${version} of page ${seq}`;
      return respond(request, 404, messagePage('Page not found', `The collection "${collection}" has no ${what}.`));
    }
    if (page.plainText !== null) return respond(request, 200, plainTextPage(page.url, page.plainText));
    if (page.documentType === 'pdf') return respond(request, 200, pdfNoticePage(page.url, page.bodyBytes));
    const linkFor = linkMapper(collection);
    if (page.html === null) return respond(request, 200, nonHtmlPage(nonHtmlFacts(page, linkFor)));
    return respond(request, 200, sanitizeStoredHtml(page.html, { pageUrl: page.url, linkFor, requisite: (url) => source.requisite(collection, url) }));
  };

  const sendFile = (request: Request, collection: string, seq: number): Response => {
    const file = source.file(collection, seq);
    if (file === undefined) return respond(request, 404, messagePage('No document here', `Page ${seq} of the collection "${collection}" is no stored document.`));
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(file.bytes), { status: 200, headers: documentFileHeaders(file.contentType, file.fileName) });
  };

  const showExternal = (request: Request, raw: string): Response => {
    const url = raw.length <= MAX_EXTERNAL_URL_LENGTH ? URL.parse(raw) : null;
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      return respond(request, 400, messagePage('Not a web address', 'Only http and https links can be opened outside the collection.'));
    }
    return respond(request, 200, externalLinkPage(url));
  };

  return async (request, target) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return respond(request, 405, messagePage('Method not allowed', 'Stored pages are only read.'), { allow: 'GET, HEAD' });
    }
    try {
      switch (target.kind) {
        case 'external':
          return showExternal(request, target.url);
        case 'file':
          return sendFile(request, target.collection, target.seq);
        case 'page':
          return showPage(request, target.collection, target.seq, target.version);
      }
    } catch (err) {
      if (err instanceof CollectionError || err instanceof UsageError) return respond(request, 404, messagePage('Collection not found', err.message));
      // A local app: the reader is the user, and the cause (a locked or damaged file) helps them.
      return respond(request, 500, messagePage('The page cannot be shown', err instanceof Error ? err.message : String(err)));
    }
  };
}

function linkTarget(source: StoredPageSource, routes: ViewerRoutes, collection: string, absoluteUrl: string): LinkTarget {
  const canonical = tryCanonicalize(absoluteUrl, undefined, { maxLength: MAX_STORED_URL_LENGTH });
  if (canonical.ok) {
    const seq = source.seqOfUrl(collection, canonical.url);
    if (seq !== undefined) {
      const hash = absoluteUrl.indexOf('#');
      return { kind: 'internal', href: routes.pageHref(collection, seq) + (hash === -1 ? '' : absoluteUrl.slice(hash)) };
    }
  }
  return { kind: 'external', href: routes.externalHref(absoluteUrl) };
}

function nonHtmlFacts(page: StoredPage, linkFor: (absoluteUrl: string) => LinkTarget): NonHtmlFacts {
  const facts = { url: page.url, status: page.status, contentType: page.contentType, bodyBytes: page.bodyBytes };
  return page.redirectTo === null ? facts : { ...facts, redirect: { url: page.redirectTo, href: linkFor(page.redirectTo).href } };
}
