import { newPageOf, PAGE_ROW_SQL, type NewPage, type PageRow } from '../store/page-row.ts';
import { storedBodySql, storedPayloadSql } from '../store/stored-body.ts';
import { fetchOrder, type FetchedPage } from './fetch-order.ts';
import { IdMap } from './id-map.ts';
import type { DocumentValues, MergedCollection, PageHistoryValues, RenderValues } from './merged-collection.ts';
import type { MergedUrls } from './merge-urls.ts';
import type { ShardQuery, ShardReader } from './shard-reader.ts';

/*
 * Pages, in the merged fetch order (fetch-order.ts), each written with what hangs on its seq
 * (its links, render, requisites, pending requisites, revisit bookkeeping) as a crawl stores
 * a page: through PageStore, which gives the next seq and fills the full-text index by the
 * store's own rule. Its earlier versions and revisits follow once every seq is known
 * (merge-versions.ts).
 * A page is never stored twice: should two shards hold a page of one URL (a fenced worker,
 * a bug), the first in fetch order is kept and the other counted as a conflict, its links
 * and side rows dropped with it.
 */

/** A shard page left out as a conflict; its seq maps here rather than to a merged seq. */
export const DROPPED = -1;
/** Light rows read ahead per shard: the heap's heads cost little, whatever the pages' sizes. */
const READ_AHEAD = 256;

interface ShardLink {
  dstId: number;
  anchor: string;
  contextBefore: string;
  contextAfter: string;
}

/** One shard's reads for the pages pass, and its page seqs' new seqs. */
class ShardPages {
  readonly shard: ShardReader;
  readonly urlIds: IdMap;
  readonly seqs: IdMap;
  readonly page: ShardQuery<PageRow>;
  /** A page's own bytes, or those of the page or earlier version it duplicates exactly. */
  readonly bytes: ShardQuery<{ body: Buffer | null; payload: Buffer | null }>;
  readonly links: ShardQuery<ShardLink>;
  readonly render: ShardQuery<RenderValues> | undefined;
  readonly document: ShardQuery<DocumentValues> | undefined;
  readonly requisites: ShardQuery<[string]> | undefined;
  readonly pending: ShardQuery<{ pageUrl: string; requisites: string }> | undefined;
  readonly history: ShardQuery<PageHistoryValues> | undefined;

  constructor(shard: ShardReader, urlIds: IdMap) {
    this.shard = shard;
    this.urlIds = urlIds;
    const extent = shard.query<{ maxSeq: number | null; n: number }>('SELECT max(seq) AS maxSeq, count(*) AS n FROM pages').get() as { maxSeq: number | null; n: number };
    this.seqs = new IdMap(extent.maxSeq ?? 0, extent.n);
    this.page = shard.query(PAGE_ROW_SQL);
    this.bytes = shard.query(shard.read((db) => `SELECT ${storedBodySql(db, 'p')} AS body, ${storedPayloadSql(db, 'p')} AS payload FROM pages p WHERE p.seq = ?`));
    this.links = shard.query('SELECT dst_id AS dstId, anchor, context_before AS contextBefore, context_after AS contextAfter FROM links WHERE src_seq = ?');
    // Most crawls render nothing and fetch no requisites: a page then costs no lookups in those tables.
    const has = (table: string): boolean => (shard.query<[number]>(`SELECT EXISTS (SELECT 1 FROM ${table})`, true).get() as [number])[0] === 1;
    this.render = has('renders')
      ? shard.query('SELECT dom, rendered_at AS renderedAt, render_ms AS renderMs, timed_out AS timedOut, links_added AS linksAdded, requests FROM renders WHERE page_seq = ?')
      : undefined;
    this.document = has('documents')
      ? shard.query('SELECT type, page_count AS pageCount, pages_read AS pagesRead, page_starts AS pageStarts, metadata FROM documents WHERE page_seq = ?')
      : undefined;
    this.requisites = has('requisites') ? shard.query('SELECT url FROM requisites WHERE page_seq = ?', true) : undefined;
    this.pending = has('requisites_pending') ? shard.query('SELECT page_url AS pageUrl, requisites FROM requisites_pending WHERE page_seq = ?') : undefined;
    // Only a revisit moves a page off a new page's bookkeeping, and every revisit leaves a revisits row.
    this.history = has('revisits')
      ? shard.query(
          `SELECT version, first_fetched_at AS firstFetchedAt, checked_at AS checkedAt, gone_at AS goneAt, revisit_count AS revisitCount, change_count AS changeCount
           FROM pages WHERE seq = ?`,
        )
      : undefined;
  }

  /**
   * The shard's pages' seqs and first fetch times in seq order, read a few hundred at a time
   * (keyset paging, not one open iterator): the connection stays free for the page rows,
   * read one at a time as their turn comes. A page's place is its first version's fetch: a
   * revisit that stored a new one moved fetched_at, not the page.
   */
  *byFetch(): Generator<FetchedPage> {
    const next = this.shard.query<[number, number]>('SELECT seq, coalesce(first_fetched_at, fetched_at) FROM pages WHERE seq > ? ORDER BY seq LIMIT ?', true);
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const rows = next.all(after, READ_AHEAD);
      for (const [seq, fetchedAt] of rows) yield { seq, fetchedAt };
      if (rows.length < READ_AHEAD) return;
      after = (rows[rows.length - 1] as [number, number])[0];
    }
  }
}

export interface MergedPages {
  pages: number;
  /** Per shard (in the order given): its page seqs' new seqs, DROPPED for a conflict. */
  seqs: IdMap[];
  /** Pages left out because another shard's page of the same URL came first. */
  conflicts: number;
  /**
   * Duplicates whose original was such a conflict, or comes later in the merged order (a
   * revisit's new version can repeat a later page's body): kept with their own bytes, no
   * longer marked duplicates.
   */
  unlinkedDuplicates: number;
}

export function mergePages(shards: readonly ShardReader[], urls: MergedUrls, out: MergedCollection): MergedPages {
  const sources = shards.map((shard, s) => new ShardPages(shard, urls.urlIds[s] as IdMap));
  let pages = 0;
  let conflicts = 0;
  let unlinkedDuplicates = 0;
  for (const { shard, seq } of fetchOrder(sources.map((source) => source.byFetch()))) {
    const source = sources[shard] as ShardPages;
    const row = source.page.get(seq);
    if (row === undefined) throw source.shard.inconsistent(`page ${seq} vanished while the shard was read`);
    const urlId = source.urlIds.get(row.urlId);
    if (urlId === 0) throw source.shard.inconsistent(`page ${seq} is of URL ${row.urlId}, which the shard does not hold`);
    if (urls.marks.hasPage(urlId)) {
      conflicts++;
      source.seqs.set(seq, DROPPED);
      continue;
    }
    const page = newPage(source, row, urlId);
    if (row.duplicateOf !== null && page.duplicateOf === null) unlinkedDuplicates++;
    const newSeq = out.pages.insert(page);
    if (newSeq !== pages + 1) throw new Error(`merge: page stored as seq ${newSeq}, expected ${pages + 1}: the new collection was not empty`);
    pages = newSeq;
    urls.marks.markPage(urlId);
    source.seqs.set(seq, newSeq);
    out.wrote();
    copyPageRows(source, seq, newSeq, out);
  }
  return { pages, seqs: sources.map((source) => source.seqs), conflicts, unlinkedDuplicates };
}

/** A shard's page row as PageStore takes it, its ids made the merged collection's. */
function newPage(source: ShardPages, row: PageRow, urlId: number): NewPage {
  let page: NewPage;
  try {
    page = newPageOf(row);
  } catch {
    throw source.shard.inconsistent(`page ${row.seq} has headers that are not JSON`);
  }
  let duplicateOf: NewPage['duplicateOf'] = null;
  if (page.duplicateOf !== null) {
    const original = source.seqs.get(page.duplicateOf.seq);
    if (original > 0) duplicateOf = { seq: original, kind: page.duplicateOf.kind };
    else if (page.duplicateOf.kind === 'exact' && page.body === null) {
      // Its original lost a conflict or is not stored yet, so the bytes it shared are not in the merge: it keeps them itself.
      const bytes = source.bytes.get(row.seq);
      page.body = bytes?.body ?? null;
      page.payload = bytes?.payload ?? null;
    }
  }
  // A redirect's target is a URL of the same shard (the owner's row or a stub): 0 would be a URL it does not hold.
  const redirectTo = page.redirectTo === null ? null : source.urlIds.get(page.redirectTo) || null;
  return { ...page, urlId, redirectTo, duplicateOf };
}

/** A new page's bookkeeping: version 1, never revisited. */
function isNew(h: PageHistoryValues): boolean {
  return h.version === 1 && h.firstFetchedAt === null && h.checkedAt === null && h.goneAt === null && h.revisitCount === 0 && h.changeCount === 0;
}

/** The rows keyed by the page's seq: its revisit bookkeeping, links (to the merged URL ids), render, document facts, requisites and pending requisites. */
function copyPageRows(source: ShardPages, seq: number, newSeq: number, out: MergedCollection): void {
  const history = source.history?.get(seq);
  if (history !== undefined && !isNew(history)) out.setPageHistory(newSeq, history);
  const links = source.links.all(seq);
  for (const link of links) {
    const dstId = source.urlIds.get(link.dstId);
    if (dstId === 0) throw source.shard.inconsistent(`a link of page ${seq} points at URL ${link.dstId}, which the shard does not hold`);
    out.pages.insertLink(newSeq, { ...link, dstId });
  }
  out.wrote(links.length);
  const render = source.render?.get(seq);
  if (render !== undefined) out.insertRender(newSeq, render);
  const document = source.document?.get(seq);
  if (document !== undefined) out.insertDocument(newSeq, document);
  for (const [url] of source.requisites?.all(seq) ?? []) out.insertRequisite(newSeq, url);
  const pending = source.pending?.get(seq);
  if (pending !== undefined) out.insertPendingRequisites(newSeq, pending.pageUrl, pending.requisites);
}
