import { linkContext, type OrderingStrategy } from '../ordering/strategy.ts';
import type { Db } from '../store/database.ts';
import { UrlState } from '../store/url-state.ts';
import { UrlStore } from '../store/url-store.ts';

interface StoredPage {
  seq: number;
  urlId: number;
  relevance: number | null;
  hot: number;
}

interface StoredLink {
  dstId: number;
  url: string;
  depth: number;
  anchor: string;
  contextBefore: string;
  contextAfter: string;
}

/**
 * Rebuilds a strategy's state when a crawl resumes: the seeds, then every stored page in
 * fetch order with its links, exactly as the engine first reported them. Queued URLs the
 * links do not explain (redirect targets, canonical hints) are reported last, so the
 * strategy knows every URL the frontier holds.
 */
export function replayHistory(db: Db, strategy: OrderingStrategy): void {
  const known = new Set<number>();
  const seedRow = db.prepare('SELECT url, depth FROM urls WHERE id = ?');
  for (const id of new UrlStore(db).seedIds()) {
    const row = seedRow.get(id) as { url: string; depth: number } | undefined;
    if (row === undefined || known.has(id)) continue;
    known.add(id);
    strategy.linked({ srcId: null, dstId: id, isNew: true, url: row.url, depth: row.depth, anchor: '', context: '' });
  }
  // Statements cannot run while another iterates, so the page list (a few numbers a page) is read first.
  const pages = db.prepare('SELECT seq, url_id AS urlId, relevance, hot FROM pages ORDER BY seq').all() as StoredPage[];
  const termsOf = db.prepare('SELECT terms FROM pages WHERE seq = ?').pluck();
  const linksOf = db.prepare(
    `SELECT l.dst_id AS dstId, u.url, u.depth, l.anchor, l.context_before AS contextBefore, l.context_after AS contextAfter
     FROM links l JOIN urls u ON u.id = l.dst_id WHERE l.src_seq = ?`,
  );
  for (const page of pages) {
    const outlinks: number[] = [];
    for (const link of linksOf.all(page.seq) as StoredLink[]) {
      const context = linkContext(link.contextBefore, link.contextAfter);
      strategy.linked({ srcId: page.urlId, dstId: link.dstId, isNew: !known.has(link.dstId), url: link.url, depth: link.depth, anchor: link.anchor, context });
      known.add(link.dstId);
      outlinks.push(link.dstId);
    }
    const stored = termsOf.get(page.seq) as string | null;
    const terms = stored === null || stored === '' ? [] : stored.split(' ');
    strategy.fetched({ id: page.urlId, relevance: page.relevance ?? 0, hot: page.hot === 1, terms, outlinks });
  }
  const queued = db.prepare(`SELECT id, url, depth, parent_id AS parentId FROM urls WHERE state = ${UrlState.queued}`).iterate() as IterableIterator<{
    id: number;
    url: string;
    depth: number;
    parentId: number | null;
  }>;
  for (const row of queued) {
    if (known.has(row.id)) continue;
    strategy.linked({ srcId: row.parentId, dstId: row.id, isNew: true, url: row.url, depth: row.depth, anchor: '', context: '' });
  }
  strategy.takeChanged();
}
