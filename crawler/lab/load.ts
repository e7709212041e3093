import { linkContext } from '../ordering/strategy.ts';
import type { HotRule } from '../relevance/hot.ts';
import { termCounts } from '../relevance/text.ts';
import type { Db } from '../store/database.ts';
import { UrlStore } from '../store/url-store.ts';
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
}

/**
 * Builds the lab graph of a Forager collection: every URL row is a node, every pages row
 * a stored page (whatever its status: the original crawl spent a fetch on it), its links
 * the links rows plus the redirect target of a 3xx, which the engine also reports as a
 * link. The seeds are the URLs the engine treats as seeds (depth 0, no parent).
 *
 * Not recoverable from the store: the page order of links (rows come back by target id),
 * and the canonical and meta-refresh targets the engine also counts as outlinks.
 */
export function loadLabGraph(db: Db, options: LoadLabGraphOptions = {}): LabGraph {
  const builder = new LabGraphBuilder();
  const urls = db.prepare('SELECT id, url FROM urls ORDER BY id').raw().iterate() as IterableIterator<[number, string]>;
  for (const [id, url] of urls) builder.node(id, url);
  for (const id of new UrlStore(db).seedIds()) builder.seed(id);

  // Statements cannot run while another iterates: the page list (a few numbers a page) is read first.
  const pages = db
    .prepare('SELECT seq, url_id AS urlId, relevance, hot, redirect_to AS redirectTo FROM pages ORDER BY seq')
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
