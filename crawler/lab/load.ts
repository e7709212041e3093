import { storedResourceHints } from '../engine/resource-hints.ts';
import { linkContext, type UrlKind } from '../ordering/strategy.ts';
import type { HotRule } from '../relevance/hot.ts';
import { termCounts } from '../relevance/text.ts';
import { DEFAULT_SETTINGS } from '../settings.ts';
import type { Db } from '../store/database.ts';
import { loadSettings } from '../store/settings-store.ts';
import { urlKindOf } from '../store/url-kind.ts';
import { storedSeedIds, UrlStore } from '../store/url-store.ts';
import { type LabGraph, LabGraphBuilder } from './graph.ts';

export interface LoadLabGraphOptions {
  /** Judge pages hot when their stored relevance is at least this (Cho's threshold G); default: the stored hot flag. */
  hotThreshold?: number;
  /** Judge pages hot by a Cho-style predicate on their stored title and text instead. */
  hotRule?: HotRule;
}

interface PageRow {
  seq: number;
  urlId: number;
  relevance: number | null;
  hot: number;
  redirectTo: number | null;
  status: number;
}

/** False for a collection older than schema 3 opened as it is (a read-only tool's raw handle): it has no site resources. */
function hasUrlKinds(db: Db): boolean {
  return db.prepare("SELECT count(*) FROM pragma_table_info('urls') WHERE name = 'kind'").pluck().get() === 1;
}

/**
 * Builds the lab graph of a Forager collection: every URL row is a node, every pages row
 * a stored page (whatever its status: the original crawl spent a fetch on it), its links
 * the links rows plus the redirect target of a 3xx, which the engine also reports as a
 * link. The seeds are the URLs the engine treats as seeds (depth 0, no parent).
 *
 * Site resources keep their kind; the ones no page listed are the graph's resource roots,
 * and each stored resource's body is re-read for the hints it gave the crawl.
 *
 * Not recoverable from the store: the page order of links (rows come back by target id),
 * and the canonical and meta-refresh targets the engine also counts as outlinks.
 */
export function loadLabGraph(db: Db, options: LoadLabGraphOptions = {}): LabGraph {
  const builder = new LabGraphBuilder();
  const withKinds = hasUrlKinds(db);
  const resources = new Map<number, UrlKind>();
  const urls = db.prepare(`SELECT id, url, ${withKinds ? 'kind' : '0'} FROM urls ORDER BY id`).raw().iterate() as IterableIterator<[number, string, number]>;
  for (const [id, url, code] of urls) {
    builder.node(id, url);
    if (code === 0) continue;
    const kind = urlKindOf(code);
    builder.kind(id, kind);
    resources.set(id, kind);
  }
  for (const id of storedSeedIds(db)) builder.seed(id);
  if (withKinds) for (const root of new UrlStore(db).rootResources()) builder.resourceRoot(root.id, root.depth);

  // Statements cannot run while another iterates: the page list (a few numbers a page) is read first.
  const pages = db
    .prepare('SELECT seq, url_id AS urlId, relevance, hot, redirect_to AS redirectTo, status FROM pages ORDER BY seq')
    .all() as PageRow[];
  const threshold = options.hotThreshold;
  const rule = options.hotRule;
  const textOf = db.prepare("SELECT coalesce(title, '') AS title, coalesce(text, '') AS text FROM pages WHERE seq = ?");
  const nodeOfSeq = new Map<number, number>();
  for (const page of pages) {
    const relevance = page.relevance ?? 0;
    let hot: boolean;
    if (rule !== undefined) {
      const { title, text } = textOf.get(page.seq) as { title: string; text: string };
      hot = text !== '' && rule.isHot({ title, text, relevance, titleTerms: termCounts(title), bodyTerms: termCounts(text) });
    } else {
      hot = threshold === undefined ? page.hot === 1 : page.relevance !== null && relevance >= threshold;
    }
    nodeOfSeq.set(page.seq, builder.page(page.urlId, { hot, relevance }));
  }

  if (resources.size > 0) loadHints(db, builder, pages, resources, nodeOfSeq);

  const terms = db.prepare("SELECT seq, terms FROM pages WHERE terms IS NOT NULL AND terms <> ''").raw().iterate() as IterableIterator<[number, string]>;
  for (const [seq, text] of terms) builder.setTerms(nodeOfSeq.get(seq) as number, text.split(' '));

  // Links come in src_seq order (the primary key), so each page's links are contiguous.
  const links = db
    .prepare('SELECT src_seq, dst_id, anchor, context_before, context_after FROM links ORDER BY src_seq')
    .raw()
    .iterate() as IterableIterator<[number, number, string, string, string]>;
  let next = 0;
  const begin = (page: PageRow): void => {
    builder.beginLinks(nodeOfSeq.get(page.seq) as number);
    if (page.redirectTo !== null) builder.addLink(page.redirectTo, '', '', '');
  };
  for (const [srcSeq, dstId, anchor, before, after] of links) {
    while (next < pages.length && (pages[next] as PageRow).seq <= srcSeq) begin(pages[next++] as PageRow);
    if (!nodeOfSeq.has(srcSeq)) continue;
    builder.addLink(dstId, '', anchor, linkContext(before, after));
  }
  while (next < pages.length) begin(pages[next++] as PageRow);
  return builder.build();
}

/** The hints of every stored site resource, re-read from its body as history-replay.ts does. */
function loadHints(db: Db, builder: LabGraphBuilder, pages: readonly PageRow[], resources: ReadonlyMap<number, UrlKind>, nodeOfSeq: ReadonlyMap<number, number>): void {
  const limits = loadSettings(db) ?? DEFAULT_SETTINGS;
  const resourceOf = db.prepare('SELECT u.url, p.body FROM pages p JOIN urls u ON u.id = p.url_id WHERE p.seq = ?');
  const linksOf = db.prepare('SELECT u.url, l.dst_id FROM links l JOIN urls u ON u.id = l.dst_id WHERE l.src_seq = ?').raw();
  for (const page of pages) {
    const kind = resources.get(page.urlId);
    if (kind === undefined) continue;
    const { url, body } = resourceOf.get(page.seq) as { url: string; body: Buffer | null };
    const linkIds = new Map(linksOf.all(page.seq) as [string, number][]);
    const hints = storedResourceHints({ url, kind, status: page.status, body }, linkIds, limits);
    if (hints.length > 0) builder.setHints(nodeOfSeq.get(page.seq) as number, hints);
  }
}
