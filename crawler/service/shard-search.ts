import { FtsStatistics, type FtsTotals } from '../library/fts-statistics.ts';
import { withVerdicts } from '../library/page-table.ts';
import { searchPages, toFtsQuery, type SearchHit } from '../library/search.ts';
import type { SearchResult } from '../protocol/api.ts';
import type { ReadonlyDb } from '../store/database.ts';
import { fetchedBefore, type FromShard } from './shard-pages.ts';
import { shardSeq, type OpenShard } from './shard-set.ts';
import { mergeSorted } from './sorted-merge.ts';

/*
 * Full-text search across a cluster's shards, ranked as one merged collection would rank it.
 * SQLite's bm25() scores a row with its own index's statistics: how many rows hold each
 * word, and the rows' average length. A word common in one shard and rare in the crawl would
 * rank that shard's pages apart from the merged file's. So each shard gives its best
 * CANDIDATES × limit rows by its own score, and each candidate is scored again with the
 * statistics of all the shards together: per word, the shard's own bm25() of that word alone
 * gives the row's term frequency back (the row's length and the shard's statistics being
 * known), and FTS5's formula is applied to it with the crawl's row count, average length and
 * rows holding the word. The best `limit` of all candidates are then a k-way merge of the
 * shards' lists. Exact unless a shard's best rows on the crawl's statistics lie past its
 * own best CANDIDATES × limit (a word's rarity would have to differ that much between shards).
 */

/** How many of its own best rows, per row asked for, each shard gives. */
const CANDIDATES = 2;
/** FTS5's bm25() constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

export interface ShardSearchOptions {
  limit: number;
  marks: [string, string];
  allVersions: boolean;
}

const statistics = new WeakMap<ReadonlyDb, FtsStatistics>();

function statisticsOf(db: ReadonlyDb): FtsStatistics {
  let stats = statistics.get(db);
  if (stats === undefined) {
    stats = new FtsStatistics(db);
    statistics.set(db, stats);
  }
  return stats;
}

/** FTS5's idf of a phrase held by `hits` of `rows` rows. */
function idf(rows: number, hits: number): number {
  const value = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return value <= 0 ? 1e-6 : value;
}

/** One shard's figures for a query: its totals and, per phrase, the rows that hold it. */
interface ShardTerms {
  shard: OpenShard;
  stats: FtsStatistics;
  totals: FtsTotals;
  hits: number[];
}

export function searchShards(shards: readonly OpenShard[], text: string, options: ShardSearchOptions): SearchResult[] {
  const phrases = toFtsQuery(text).split(' ').filter((p) => p !== '');
  if (phrases.length === 0) return [];
  // Earlier versions are in another index (versions_fts): their hits keep their shard's own scores.
  const rescore = !options.allVersions;
  const terms: ShardTerms[] = shards.map((shard) => {
    const stats = statisticsOf(shard.db);
    return { shard, stats, totals: stats.totals(), hits: rescore ? phrases.map((p) => stats.rowsWith(p)) : [] };
  });
  const rows = terms.reduce((n, t) => n + t.totals.rows, 0);
  const avgdl = terms.reduce((n, t) => n + t.totals.tokens, 0) / rows;
  const idfs = phrases.map((_, i) => idf(rows, terms.reduce((n, t) => n + (t.hits[i] as number), 0)));

  const streams = terms.map((t) => {
    const hits = searchPages(t.shard.db, text, { limit: CANDIDATES * options.limit, highlight: options.marks, allVersions: options.allVersions });
    const scored = hits.map((hit) => ({
      row: rescore ? { ...hit, score: crawlScore(t, phrases, idfs, avgdl, hit.seq) } : hit,
      partition: t.shard.partition,
      seq: hit.seq,
      fetchedAt: hit.fetchedAt,
    }));
    return rescore ? scored.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0)) : scored;
  });
  const best = mergeSorted(streams, better, 0, options.limit);
  // The verdicts are read from each hit's own shard, then put back in the merged order.
  const byShard = new Map<OpenShard, SearchHit[]>();
  for (const item of best) {
    const shard = shards.find((s) => s.partition === item.partition) as OpenShard;
    byShard.set(shard, [...(byShard.get(shard) ?? []), item.row]);
  }
  const results = new Map<SearchHit, SearchResult>();
  for (const [shard, hits] of byShard) {
    withVerdicts(shard.db, hits).forEach((result, i) => results.set(hits[i] as SearchHit, { ...result, seq: shardSeq(shard.partition, result.seq) }));
  }
  return best.map((item) => results.get(item.row) as SearchResult);
}

/** Best first: the higher score, then the later version (as search.ts orders), then the merged fetch order. */
function better(a: FromShard<SearchHit>, b: FromShard<SearchHit>): boolean {
  if (a.row.score !== b.row.score) return a.row.score > b.row.score;
  if (a.row.version !== b.row.version) return a.row.version > b.row.version;
  return fetchedBefore(a, b);
}

/** A row's bm25 score (higher is better) on the statistics of every shard together. */
function crawlScore(t: ShardTerms, phrases: readonly string[], idfs: readonly number[], avgdl: number, seq: number): number {
  const length = t.stats.rowTokens(seq);
  const ownAvgdl = t.totals.tokens / t.totals.rows;
  let score = 0;
  phrases.forEach((phrase, i) => {
    const own = -(t.stats.phraseScore(phrase, seq) ?? 0);
    // own = idf × f(k1+1) / (f + norm): solved for f, the phrase's weighted hits in the row (whole numbers, the weights being 5 and 1).
    const ratio = own / idf(t.totals.rows, t.hits[i] as number);
    const norm = K1 * (1 - B + (B * length) / ownAvgdl);
    const f = Math.round((ratio * norm) / (K1 + 1 - ratio));
    // As fts5_aux.c figures it, term by term.
    score += (idfs[i] as number) * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * length) / avgdl)));
  });
  return score;
}
