/*
 * Reading a cluster's shards without a merge (issue 39, target 6), on a bench run's own
 * shards and the collection `forager merge` made of them, both in this process:
 *   (a) the top 100 pages by relevance from the shard set (`forager serve --shards`'s
 *       ShardService) equal the merged collection's (URL, relevance and title, in order), and
 *       so do the top 100 full-text search hits for the bench's query;
 *   (b) a page looked up by URL: the median time through the shard set (its owner shard) and
 *       through the merged file, one lookup of each in turn per URL, after a warm-up pass:
 *       the page's row (what a page view reads), and the bare URL → page number of the
 *       viewer's links (StoredPageSource.seqOfUrl), whose time is the lookup alone.
 *       Target: the shard set within 1.5× the merged file's time.
 */
import { PageLookup } from '../../crawler/library/page-lookup.ts';
import { pageRow } from '../../crawler/library/page-table.ts';
import type { PageList, PageRow, SearchResult } from '../../crawler/protocol/api.ts';
import { ForagerService } from '../../crawler/service/service.ts';
import { findPage } from '../../crawler/service/shard-pages.ts';
import { ShardService } from '../../crawler/service/shard-service.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { createCollectionPageSource } from '../../crawler/viewer/page-source.ts';

/** The issue's bound on a lookup through the shards, against the merged file's. */
export const LOOKUP_RATIO_TARGET = 1.5;
/** URLs looked up (an even spread of the merged collection's pages). */
const LOOKUPS = 2_000;
const TOP = 100;

export interface ShardReadingResult {
  shards: number;
  pages: number;
  /** How many of the top 100 by relevance are the merged collection's, place for place. */
  topSame: number;
  topCount: number;
  /** Likewise for the top 100 search hits of the bench's query. */
  searchSame: number;
  searchCount: number;
  lookups: number;
  shardLookupMedianUs: number;
  mergedLookupMedianUs: number;
  /** The viewer's URL → page number, through each. */
  shardLinkMedianUs: number;
  mergedLinkMedianUs: number;
  /** Lookups whose page differed between the two (must be 0). */
  lookupMismatches: number;
  openMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function samePlaces(a: readonly string[], b: readonly string[]): number {
  let same = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] === b[i]) same++;
  return same;
}

const pageKey = (p: PageList['pages'][number]): string => `${p.url} ${p.relevance} ${p.title}`;
const hitKey = (r: SearchResult): string => `${r.url} ${r.relevance} ${r.title}`;

export async function measureShardReading(shardsDir: string, mergedPath: string, query: string): Promise<ShardReadingResult> {
  const opened = performance.now();
  const shards = new ShardService(shardsDir);
  const openMs = performance.now() - opened;
  const merged = new ForagerService({ db: mergedPath });
  const db = openCollection(mergedPath, { create: false, readonly: true });
  try {
    const id = shards.shards.id;
    const mergedId = (await merged.listCollections())[0]?.id as string;
    const top = (await shards.listPages({ collection: id, sort: 'relevance', limit: TOP })).pages.map(pageKey);
    const mergedTop = (await merged.listPages({ collection: mergedId, sort: 'relevance', limit: TOP })).pages.map(pageKey);
    const hits = (await shards.searchPages({ collection: id, text: query, limit: TOP })).map(hitKey);
    const mergedHits = (await merged.searchPages({ collection: mergedId, text: query, limit: TOP })).map(hitKey);

    const all = db.prepare('SELECT u.url FROM pages p JOIN urls u ON u.id = p.url_id ORDER BY p.seq').pluck().all() as string[];
    const step = Math.max(1, Math.floor(all.length / LOOKUPS));
    const urls = all.filter((_, i) => i % step === 0).slice(0, LOOKUPS);
    const lookup = new PageLookup(db);
    const mergedFind = (url: string): PageRow | undefined => {
      const urlId = lookup.urlId(url);
      const page = urlId === undefined ? undefined : lookup.pageOfUrl(urlId);
      return page === undefined ? undefined : pageRow(db, page.seq);
    };
    // A warm-up pass: both read from their page caches afterwards, as a serving process does.
    for (const url of urls) {
      findPage(shards.shards, url);
      mergedFind(url);
    }
    const shardSource = shards.pageSource();
    const mergedSource = createCollectionPageSource(() => db);
    for (const url of urls) {
      shardSource.seqOfUrl(id, url);
      mergedSource.seqOfUrl(mergedId, url);
    }
    const shardTimes: number[] = [];
    const mergedTimes: number[] = [];
    const shardLinkTimes: number[] = [];
    const mergedLinkTimes: number[] = [];
    const timed = <T>(times: number[], read: () => T): T => {
      const started = performance.now();
      const value = read();
      times.push((performance.now() - started) * 1000);
      return value;
    };
    let mismatches = 0;
    urls.forEach((url, i) => {
      // Each in turn first, so that neither always runs on the other's warmed caches.
      let fromShards: PageRow | undefined;
      let fromMerged: PageRow | undefined;
      if (i % 2 === 0) {
        fromShards = timed(shardTimes, () => findPage(shards.shards, url));
        fromMerged = timed(mergedTimes, () => mergedFind(url));
        timed(shardLinkTimes, () => shardSource.seqOfUrl(id, url));
        timed(mergedLinkTimes, () => mergedSource.seqOfUrl(mergedId, url));
      } else {
        fromMerged = timed(mergedTimes, () => mergedFind(url));
        fromShards = timed(shardTimes, () => findPage(shards.shards, url));
        timed(mergedLinkTimes, () => mergedSource.seqOfUrl(mergedId, url));
        timed(shardLinkTimes, () => shardSource.seqOfUrl(id, url));
      }
      if (fromShards === undefined || fromMerged === undefined || fromShards.url !== fromMerged.url || fromShards.title !== fromMerged.title) mismatches++;
    });
    return {
      shards: shards.shards.shards().length,
      pages: all.length,
      topSame: samePlaces(top, mergedTop),
      topCount: mergedTop.length,
      searchSame: samePlaces(hits, mergedHits),
      searchCount: mergedHits.length,
      lookups: urls.length,
      shardLookupMedianUs: median(shardTimes),
      mergedLookupMedianUs: median(mergedTimes),
      shardLinkMedianUs: median(shardLinkTimes),
      mergedLinkMedianUs: median(mergedLinkTimes),
      lookupMismatches: mismatches,
      openMs,
    };
  } finally {
    db.close();
    await shards.close();
    await merged.close();
  }
}

/** The report's lines. */
export function formatShardReading(label: string, r: ShardReadingResult | undefined): string {
  if (r === undefined) return '  not measured (no cluster run of that size)';
  const ratio = r.shardLookupMedianUs / r.mergedLookupMedianUs;
  const linkRatio = r.shardLinkMedianUs / r.mergedLinkMedianUs;
  const equal = (same: number, count: number): string => `${same === count ? 'equal' : 'DIFFERENT'} (${same}/${count} in place)`;
  return [
    `  ${label}: ${r.shards} shards, ${r.pages} pages; shard set opened in ${r.openMs.toFixed(0)} ms`,
    `  (a) top ${TOP} pages by relevance, shard set vs merged collection: ${equal(r.topSame, r.topCount)}; top ${TOP} search hits: ${equal(r.searchSame, r.searchCount)}`,
    `  (b) page lookup by URL, median of ${r.lookups}: shard set ${r.shardLookupMedianUs.toFixed(1)} µs, merged file ${r.mergedLookupMedianUs.toFixed(1)} µs, ratio ${ratio.toFixed(2)}× (target ≤ ${LOOKUP_RATIO_TARGET}×: ${ratio <= LOOKUP_RATIO_TARGET ? 'met' : 'missed'})${r.lookupMismatches === 0 ? '' : `; ${r.lookupMismatches} lookups found another page`}`,
    `      the viewer's URL → page number alone: shard set ${r.shardLinkMedianUs.toFixed(1)} µs, merged file ${r.mergedLinkMedianUs.toFixed(1)} µs, ratio ${linkRatio.toFixed(2)}× (target ≤ ${LOOKUP_RATIO_TARGET}×: ${linkRatio <= LOOKUP_RATIO_TARGET ? 'met' : 'missed'})`,
  ].join('\n');
}

/**
 * The bench's one probe: it measures the first run of the largest cluster, while that run's
 * shards and merged file still exist (cluster-run.ts's readShards), and reports it.
 */
export class ShardReadingProbe {
  readonly #query: string;
  readonly #workers: number;
  #label = '';
  #result: ShardReadingResult | undefined;

  constructor(query: string, workers: number) {
    this.#query = query;
    this.#workers = workers;
  }

  /** The hook for one cluster run, or undefined for the runs it does not measure. */
  hookFor(round: number, workers: number): ((dir: string, merged: string) => Promise<void>) | undefined {
    if (round !== 1 || workers !== this.#workers) return undefined;
    return async (dir, merged) => {
      this.#label = `${workers} worker${workers === 1 ? '' : 's'}, run 1`;
      this.#result = await measureShardReading(dir, merged, this.#query);
    };
  }

  report(): string {
    return formatShardReading(this.#label, this.#result);
  }

  /** Smoke figures: the two equalities as 1 or 0, and the lookup ratio. */
  figures(): Record<string, number> {
    const r = this.#result;
    if (r === undefined) return { shardReadingMeasured: Number.NaN };
    return {
      shardReadingTopEqual: Number(r.topSame === r.topCount),
      shardReadingSearchEqual: Number(r.searchSame === r.searchCount),
      shardReadingLookupRatio: r.shardLookupMedianUs / r.mergedLookupMedianUs,
      shardReadingLinkLookupRatio: r.shardLinkMedianUs / r.mergedLinkMedianUs,
    };
  }
}
