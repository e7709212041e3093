/**
 * Viewer addresses under both transports (wire.ts):
 *   serve     /stored/<viewPath>              /stored/external?url=<url>
 *   protocol  forager-page://<viewPath>       forager-page://external/?url=<url>
 * forager-page is a non-standard scheme, so the URL parser keeps its host (the encoded
 * collection) opaque and as written; a page's path is always /<seq>, so a collection
 * named "external" does not collide with the external-link page. An earlier version of a
 * page is its viewPath with `?version=<n>` (versionViewPath); a document's bytes as received,
 * as a download, are its viewPath and `/file` (documentFilePath).
 */
import { STORED_PAGE_SCHEME, STORED_PREFIX, parseViewPath, viewPath } from '../protocol/wire.ts';

/** A stored page (an earlier version of it when `version` is given), a stored document's file, or the page about an external link. */
export type ViewerTarget =
  | { kind: 'page'; collection: string; seq: number; version?: number }
  | { kind: 'file'; collection: string; seq: number }
  | { kind: 'external'; url: string };

const VERSION_PARAM = 'version';
const FILE_SUFFIX = '/file';

/** Where a stored document's bytes are downloaded, under either transport. */
export function documentFilePath(collection: string, seq: number): string {
  return `${viewPath(collection, seq)}${FILE_SUFFIX}`;
}

/** Where version `version` of a page is shown, under either transport: its viewPath with the version asked for. */
export function versionViewPath(collection: string, seq: number, version: number): string {
  return `${viewPath(collection, seq)}?${VERSION_PARAM}=${version}`;
}

/** How the viewer writes links: to another stored page, and to the external-link page. */
export interface ViewerRoutes {
  pageHref(collection: string, seq: number): string;
  externalHref(url: string): string;
}

export type ViewerTransport = 'serve' | 'protocol';

const EXTERNAL = 'external';
const PROTOCOL = `${STORED_PAGE_SCHEME}:`;

/** What a viewer URL shows, or undefined when it is no viewer URL. The external URL is not checked here. */
export function parseViewerUrl(url: URL, base: ViewerTransport): ViewerTarget | undefined {
  let path: string;
  let external: boolean;
  if (base === 'serve') {
    if (!url.pathname.startsWith(STORED_PREFIX)) return undefined;
    path = url.pathname.slice(STORED_PREFIX.length);
    external = path === EXTERNAL;
  } else {
    if (url.protocol !== PROTOCOL || url.host === '') return undefined;
    path = `${url.host}${url.pathname}`;
    external = url.host === EXTERNAL && (url.pathname === '/' || url.pathname === '');
  }
  if (external) {
    const target = url.searchParams.get('url');
    return target === null ? undefined : { kind: 'external', url: target };
  }
  if (path.endsWith(FILE_SUFFIX)) {
    const document = parseViewPath(path.slice(0, -FILE_SUFFIX.length));
    return document === undefined || url.search !== '' ? undefined : { kind: 'file', collection: document.collection, seq: document.seq };
  }
  const page = parseViewPath(path);
  if (page === undefined) return undefined;
  const version = url.searchParams.get(VERSION_PARAM);
  if (version === null) return { kind: 'page', collection: page.collection, seq: page.seq };
  return /^[1-9]\d{0,8}$/.test(version) ? { kind: 'page', collection: page.collection, seq: page.seq, version: Number(version) } : undefined;
}

/** The routes that parseViewerUrl reads back; `prefix` replaces STORED_PREFIX under serve. */
export function viewerRoutes(base: ViewerTransport, prefix = STORED_PREFIX): ViewerRoutes {
  const root = base === 'serve' ? prefix : `${STORED_PAGE_SCHEME}://`;
  const externalPath = base === 'serve' ? EXTERNAL : `${EXTERNAL}/`;
  return {
    pageHref: (collection, seq) => `${root}${viewPath(collection, seq)}`,
    externalHref: (url) => `${root}${externalPath}?url=${encodeURIComponent(url)}`,
  };
}
