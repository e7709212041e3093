import { storedResourceHints } from '../parse/resource-hints.ts';
import { LabRows, type LabPageRow } from '../library/lab-rows.ts';
import { linkContext } from '../ordering/strategy.ts';
import type { UrlKind } from '../parse/url-kind.ts';
import type { HotRule } from '../relevance/hot.ts';
import { termCounts } from '../relevance/text.ts';
import { DEFAULT_SETTINGS } from '../protocol/settings.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { loadSettings } from '../store/settings-store.ts';
import { urlKindOf } from '../store/url-kind.ts';
import { type LabGraph, LabGraphBuilder } from './graph.ts';

export interface LoadLabGraphOptions {
  /** Judge pages hot when their stored relevance is at least this (Cho's threshold G); default: the stored hot flag. */
  hotThreshold?: number;
  /** Judge pages hot by a Cho-style predicate on their stored title and text instead. */
  hotRule?: HotRule;
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
export function loadLabGraph(db: ReadonlyDb, options: LoadLabGraphOptions = {}): LabGraph {
  const builder = new LabGraphBuilder();
  const rows = new LabRows(db);
  const withKinds = rows.hasUrlKinds();
  const resources = new Map<number, UrlKind>();
  for (const [id, url, code] of rows.urls(withKinds)) {
    builder.node(id, url);
    if (code === 0) continue;
    const kind = urlKindOf(code);
    builder.kind(id, kind);
    resources.set(id, kind);
  }
  for (const id of rows.seedIds()) builder.seed(id);
  if (withKinds) for (const root of rows.rootResources()) builder.resourceRoot(root.id, root.depth);

  // Statements cannot run while another iterates: the page list (a few numbers a page) is read first.
  const pages = rows.pages();
  const threshold = options.hotThreshold;
  const rule = options.hotRule;
  const nodeOfSeq = new Map<number, number>();
  for (const page of pages) {
    const relevance = page.relevance ?? 0;
    let hot: boolean;
    if (rule !== undefined) {
      const { title, text } = rows.text(page.seq);
      hot = text !== '' && rule.isHot({ title, text, relevance, titleTerms: termCounts(title), bodyTerms: termCounts(text) });
    } else {
      hot = threshold === undefined ? page.hot === 1 : page.relevance !== null && relevance >= threshold;
    }
    nodeOfSeq.set(page.seq, builder.page(page.urlId, { hot, relevance }));
  }

  if (resources.size > 0) loadHints(db, rows, builder, pages, resources, nodeOfSeq);

  for (const [seq, text] of rows.terms()) builder.setTerms(nodeOfSeq.get(seq) as number, text.split(' '));

  // Links come in src_seq order (the primary key), so each page's links are contiguous.
  let next = 0;
  const begin = (page: LabPageRow): void => {
    builder.beginLinks(nodeOfSeq.get(page.seq) as number);
    if (page.redirectTo !== null) builder.addLink(page.redirectTo, '', '', '');
  };
  for (const [srcSeq, dstId, anchor, before, after] of rows.links()) {
    while (next < pages.length && (pages[next] as LabPageRow).seq <= srcSeq) begin(pages[next++] as LabPageRow);
    if (!nodeOfSeq.has(srcSeq)) continue;
    builder.addLink(dstId, '', anchor, linkContext(before, after));
  }
  while (next < pages.length) begin(pages[next++] as LabPageRow);
  return builder.build();
}

/** The hints of every stored site resource, re-read from its body as history-replay.ts does. */
function loadHints(db: ReadonlyDb, rows: LabRows, builder: LabGraphBuilder, pages: readonly LabPageRow[], resources: ReadonlyMap<number, UrlKind>, nodeOfSeq: ReadonlyMap<number, number>): void {
  const limits = loadSettings(db) ?? DEFAULT_SETTINGS;
  for (const page of pages) {
    const kind = resources.get(page.urlId);
    if (kind === undefined) continue;
    const { url, body } = rows.resource(page.seq);
    const linkIds = new Map(rows.resourceLinks(page.seq));
    const hints = storedResourceHints({ url, kind, status: page.status, body }, linkIds, limits);
    if (hints.length > 0) builder.setHints(nodeOfSeq.get(page.seq) as number, hints);
  }
}
