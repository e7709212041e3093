import { pageRow, pageTable } from '../library/page-table.ts';
import { PageLookup } from '../library/page-lookup.ts';
import type { PageList, PageListInput, PageRow, PageSort } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { createCollectionPageSource, isHtmlPage, MAX_REDIRECT_HOPS, type StoredPageSource } from '../viewer/page-source.ts';
import { shardSeq, shardSeqParts, type OpenShard, type ShardSet } from './shard-set.ts';
import { mergeSorted } from './sorted-merge.ts';

/*
 * The library's reads across a shard set. A list runs on every shard for its own first
 * offset + limit rows, and those are merged in the order one merged collection (`forager
 * merge`) would give (a search likewise, in shard-search.ts); a page, a URL or a stored page is read from one shard only:
 * the page's, named by its number (shardSeq), or the URL's owner by partition.
 *
 * The merged collection numbers pages by fetch time across shards (merge/fetch-order.ts), and
 * sorts ties by that number: ties here go by the shard's own number within a shard, and by
 * fetch time, then partition, across shards, which is the same order.
 */

/** A row with the shard it came from and its number there. */
export interface FromShard<Row> {
  row: Row;
  partition: number;
  seq: number;
  /** Epoch ms: the tie-break across shards. */
  fetchedAt: number;
}

/** Whether `a` was stored before `b` in the merged collection's fetch order. */
export function fetchedBefore<Row>(a: FromShard<Row>, b: FromShard<Row>): boolean {
  if (a.partition === b.partition) return a.seq < b.seq;
  return a.fetchedAt < b.fetchedAt || (a.fetchedAt === b.fetchedAt && a.partition < b.partition);
}

const PAGE_ORDER: Record<PageSort, (a: FromShard<PageRow>, b: FromShard<PageRow>) => boolean> = {
  relevance: (a, b) => {
    const x = a.row.relevance;
    const y = b.row.relevance;
    if (x === null || y === null) return x !== null || (y === null && fetchedBefore(a, b));
    return x > y || (x === y && fetchedBefore(a, b));
  },
  time: (a, b) => fetchedBefore(b, a),
  // SQLite compares text as bytes; canonical URLs are ASCII, where that is JavaScript's order too.
  url: (a, b) => a.row.url < b.row.url || (a.row.url === b.row.url && fetchedBefore(a, b)),
};

/** One page of the page list across the shards: their totals added, their first rows merged. */
export function listShardPages(shards: readonly OpenShard[], query: Omit<PageListInput, 'collection'>): PageList {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 50;
  let total = 0;
  const streams = shards.map((shard) => {
    const list = pageTable(shard.db, { ...query, offset: 0, limit: offset + limit });
    total += list.total;
    return list.pages.map((row) => ({ row: { ...row, seq: shardSeq(shard.partition, row.seq) }, partition: shard.partition, seq: row.seq, fetchedAt: Date.parse(row.fetchedAt) }));
  });
  const pages = mergeSorted(streams, PAGE_ORDER[query.sort ?? 'relevance'], offset, limit).map((item) => item.row);
  return { total, offset, pages };
}

/** A page's shard and its number there; undefined when the number names no open shard. */
export function pageShard(shards: ShardSet, seq: number): { shard: OpenShard; seq: number } | undefined {
  const parts = shardSeqParts(seq);
  const shard = parts === undefined ? undefined : shards.shard(parts.partition);
  return shard === undefined || parts === undefined ? undefined : { shard, seq: parts.seq };
}

/**
 * Stored pages for the viewer from the shards: a page from its own shard, a link's target
 * from its URL's owner (through stored redirects, which may lead to another partition), a
 * requisite from its URL's owner first and then from the shards that fetched it for a page.
 */
export function shardPageSource(shards: ShardSet): StoredPageSource {
  const byKey = (key: string): ReadonlyDb => (shards.shard(Number(key)) as OpenShard).db;
  const inner = createCollectionPageSource(byKey);
  const at = (collection: string, seq: number): { shard: OpenShard; seq: number } | undefined => {
    shards.check(collection);
    return pageShard(shards, seq);
  };

  return {
    page(collection, seq, version) {
      const page = at(collection, seq);
      return page === undefined ? undefined : inner.page(String(page.shard.partition), page.seq, version);
    },

    file(collection, seq) {
      const page = at(collection, seq);
      return page === undefined ? undefined : inner.file(String(page.shard.partition), page.seq);
    },

    requisite(collection, url) {
      shards.check(collection);
      const owner = shards.owner(url);
      const order = owner === undefined ? shards.shards() : [owner, ...shards.shards().filter((s) => s !== owner)];
      for (const shard of order) {
        const found = inner.requisite(String(shard.partition), url);
        if (found !== undefined) return found;
      }
      return undefined;
    },

    seqOfUrl(collection, canonicalUrl) {
      shards.check(collection);
      let url: string | undefined = canonicalUrl;
      for (let hop = 0; url !== undefined && hop <= MAX_REDIRECT_HOPS; hop++) {
        const shard = shards.owner(url);
        if (shard === undefined) return undefined;
        const lookup = lookupOf(shard.db);
        const id = lookup.urlId(url);
        const page = id === undefined ? undefined : lookup.pageOfUrl(id);
        if (id === undefined || page === undefined) return undefined;
        if (page.status >= 200 && page.status < 300) {
          const shown = isHtmlPage(page.contentType, page.hasBody, page.note) || (page.hasBody && page.documentType !== null);
          return shown ? shardSeq(shard.partition, page.seq) : undefined;
        }
        url = page.status >= 300 && page.status < 400 ? lookup.redirectTarget(id) : undefined;
      }
      return undefined;
    },
  };
}

/** Each shard's point lookups, their statements prepared once. */
const lookups = new WeakMap<ReadonlyDb, PageLookup>();

function lookupOf(db: ReadonlyDb): PageLookup {
  let lookup = lookups.get(db);
  if (lookup === undefined) {
    lookup = new PageLookup(db);
    lookups.set(db, lookup);
  }
  return lookup;
}

/** The page fetched from a canonical URL, read from the URL's owner shard only; its seq is its number in the shards' collection. */
export function findPage(shards: ShardSet, canonicalUrl: string): PageRow | undefined {
  const shard = shards.owner(canonicalUrl);
  if (shard === undefined) return undefined;
  const lookup = lookupOf(shard.db);
  const id = lookup.urlId(canonicalUrl);
  const page = id === undefined ? undefined : lookup.pageOfUrl(id);
  if (page === undefined) return undefined;
  return { ...pageRow(shard.db, page.seq), seq: shardSeq(shard.partition, page.seq) };
}
