import { linkContext, type OrderingStrategy } from '../ordering/strategy.ts';
import { DEFAULT_SETTINGS } from '../settings.ts';
import type { Db } from '../store/database.ts';
import { loadSettings } from '../store/settings-store.ts';
import { urlKindOf } from '../store/url-kind.ts';
import { UrlState } from '../store/url-state.ts';
import { UrlStore } from '../store/url-store.ts';
import { storedResourceHints } from './resource-hints.ts';
import { linkKind } from './url-admission.ts';

interface StoredPage {
  seq: number;
  urlId: number;
  url: string;
  kind: number;
  status: number;
  relevance: number | null;
  hot: number;
}

interface StoredLink {
  dstId: number;
  url: string;
  depth: number;
  kind: number;
  anchor: string;
  contextBefore: string;
  contextAfter: string;
}

/**
 * Rebuilds a strategy's state when a crawl resumes: the seeds, the site resources no page
 * listed (robots.txt Sitemap lines and a seed host's /sitemap.xml, which the crawl admitted
 * on reading the host's robots.txt, before its pages), then every stored page in fetch
 * order with its links, exactly as the engine first reported them; a stored site resource
 * then gives its hints again, re-read from its stored body, before its fetched(). Queued
 * URLs the links do not explain (redirect targets, canonical hints) are reported last, so
 * the strategy knows every URL the frontier holds.
 */
export function replayHistory(db: Db, strategy: OrderingStrategy): void {
  const known = new Set<number>();
  const urls = new UrlStore(db);
  const seedRow = db.prepare('SELECT url, depth, kind FROM urls WHERE id = ?');
  for (const id of urls.seedIds()) {
    const row = seedRow.get(id) as { url: string; depth: number; kind: number } | undefined;
    if (row === undefined || known.has(id)) continue;
    known.add(id);
    strategy.linked({ srcId: null, dstId: id, isNew: true, url: row.url, depth: row.depth, anchor: '', context: '', ...linkKind(urlKindOf(row.kind)) });
  }
  for (const resource of urls.rootResources()) {
    if (known.has(resource.id)) continue;
    known.add(resource.id);
    strategy.linked({ srcId: null, dstId: resource.id, isNew: true, url: resource.url, depth: resource.depth, anchor: '', context: '', kind: resource.kind });
  }
  // Statements cannot run while another iterates, so the page list (a few numbers a page) is read first.
  const pages = db
    .prepare('SELECT p.seq, p.url_id AS urlId, u.url, u.kind, p.status, p.relevance, p.hot FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.seq')
    .all() as StoredPage[];
  const termsOf = db.prepare('SELECT terms FROM pages WHERE seq = ?').pluck();
  const bodyOf = db.prepare('SELECT body FROM pages WHERE seq = ?').pluck();
  const linksOf = db.prepare(
    `SELECT l.dst_id AS dstId, u.url, u.depth, u.kind, l.anchor, l.context_before AS contextBefore, l.context_after AS contextAfter
     FROM links l JOIN urls u ON u.id = l.dst_id WHERE l.src_seq = ?`,
  );
  const limits = loadSettings(db) ?? DEFAULT_SETTINGS;
  for (const page of pages) {
    const outlinks: number[] = [];
    // A stored site resource gives its hints again (re-reading it costs a parse: only for strategies that listen).
    const linkIds = page.kind !== 0 && strategy.hinted !== undefined ? new Map<string, number>() : undefined;
    for (const link of linksOf.all(page.seq) as StoredLink[]) {
      const context = linkContext(link.contextBefore, link.contextAfter);
      strategy.linked({
        srcId: page.urlId,
        dstId: link.dstId,
        isNew: !known.has(link.dstId),
        url: link.url,
        depth: link.depth,
        anchor: link.anchor,
        context,
        ...linkKind(urlKindOf(link.kind)),
      });
      known.add(link.dstId);
      outlinks.push(link.dstId);
      linkIds?.set(link.url, link.dstId);
    }
    if (linkIds !== undefined) {
      const resource = { url: page.url, kind: urlKindOf(page.kind), status: page.status, body: bodyOf.get(page.seq) as Buffer | null };
      for (const hint of storedResourceHints(resource, linkIds, limits)) strategy.hinted?.(hint);
    }
    const stored = termsOf.get(page.seq) as string | null;
    const terms = stored === null || stored === '' ? [] : stored.split(' ');
    strategy.fetched({ id: page.urlId, relevance: page.relevance ?? 0, hot: page.hot === 1, terms, outlinks });
  }
  const queued = db.prepare(`SELECT id, url, depth, parent_id AS parentId, kind FROM urls WHERE state = ${UrlState.queued}`).iterate() as IterableIterator<{
    id: number;
    url: string;
    depth: number;
    parentId: number | null;
    kind: number;
  }>;
  for (const row of queued) {
    if (known.has(row.id)) continue;
    strategy.linked({ srcId: row.parentId, dstId: row.id, isNew: true, url: row.url, depth: row.depth, anchor: '', context: '', ...linkKind(urlKindOf(row.kind)) });
  }
  strategy.takeChanged();
}
