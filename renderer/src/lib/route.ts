/*
 * Hash routes, so the same build works from `forager serve` and from Electron's file-like
 * origin without a router: #/collections, #/new, #/cluster, #/c/<id>/dashboard,
 * #/c/<id>/library[/<seq>[/v<version>|/p<page>]], #/c/<id>/lab, #/c/<id>/export. A page
 * without a version is shown as its latest; a document opens at its first page unless one is named.
 */
export type CollectionScreen = 'dashboard' | 'library' | 'lab' | 'export';

export type Route =
  | { screen: 'collections' }
  | { screen: 'new' }
  | { screen: 'cluster' }
  | { screen: CollectionScreen; collection: string; seq?: number; version?: number; documentPage?: number }
  | { screen: 'not-found'; hash: string };

const COLLECTION_SCREENS: readonly string[] = ['dashboard', 'library', 'lab', 'export'];

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/^\/+/, '').replace(/\/+$/, '');
  if (path === '' || path === 'collections') return { screen: 'collections' };
  if (path === 'new') return { screen: 'new' };
  if (path === 'cluster') return { screen: 'cluster' };
  const parts = path.split('/');
  if (parts[0] === 'c' && parts[1] !== undefined && parts.length <= 5) {
    const collection = decode(parts[1]);
    const screen = parts[2] ?? 'dashboard';
    if (collection !== null && collection !== '' && COLLECTION_SCREENS.includes(screen)) {
      if (parts[3] === undefined) return { screen: screen as CollectionScreen, collection };
      if (screen === 'library' && /^[1-9]\d{0,15}$/.test(parts[3])) {
        const seq = Number(parts[3]);
        if (parts[4] === undefined) return { screen: 'library', collection, seq };
        const version = /^v([1-9]\d{0,8})$/.exec(parts[4]);
        if (version !== null) return { screen: 'library', collection, seq, version: Number(version[1]) };
        const documentPage = /^p([1-9]\d{0,8})$/.exec(parts[4]);
        if (documentPage !== null) return { screen: 'library', collection, seq, documentPage: Number(documentPage[1]) };
      }
    }
  }
  return { screen: 'not-found', hash };
}

export function routeHash(route: Route): string {
  switch (route.screen) {
    case 'collections':
      return '#/collections';
    case 'new':
      return '#/new';
    case 'cluster':
      return '#/cluster';
    case 'not-found':
      return route.hash;
    default: {
      const base = `#/c/${encodeURIComponent(route.collection)}/${route.screen}`;
      if (route.screen !== 'library' || route.seq === undefined) return base;
      if (route.version !== undefined) return `${base}/${route.seq}/v${route.version}`;
      return route.documentPage === undefined ? `${base}/${route.seq}` : `${base}/${route.seq}/p${route.documentPage}`;
    }
  }
}
