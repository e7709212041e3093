import { FtsStatistics, type FtsTotals, type ScoredRow } from '../library/fts-statistics.ts';
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

/** One shard's figures for a query: its totals, its candidates and, per phrase, the rows that hold it and each candidate's own score for it. */
interface ShardTerms {
  shard: OpenShard;
  stats: FtsStatistics;
  totals: FtsTotals;
  candidates: ScoredRow[];
  hits: number[];
  /** Per phrase: bm25() of the phrase alone, as SQLite gives it, by candidate. */
  scores: Map<number, number>[];
}

/** A shard's candidates and figures: one pass over each phrase's rows (the count its idf needs, and the candidates' scores for it). */
function shardTerms(shard: OpenShard, match: string, phrases: readonly string[], candidates: number): ShardTerms {
  const stats = statisticsOf(shard.db);
  const best = stats.best(match, candidates);
  // One phrase: the query's own score is the phrase's, and the count is all its pass has to give.
  if (phrases.length === 1) {
    return { shard, stats, totals: stats.totals(), candidates: best, hits: [stats.rowsWith(phrases[0] as string)], scores: [new Map(best.map((row) => [row.seq, row.score]))] };
  }
  const wanted = new Set(best.map((row) => row.seq));
  const passes = phrases.map((phrase) => stats.phraseScores(phrase, wanted));
  return { shard, stats, totals: stats.totals(), candidates: best, hits: passes.map((p) => p.rows), scores: passes.map((p) => p.scores) };
}

export function searchShards(shards: readonly OpenShard[], text: string, options: ShardSearchOptions): SearchResult[] {
  const match = toFtsQuery(text);
  if (match === '') return [];
  // Earlier versions are in another index (versions_fts): with them, hits keep their shard's own scores.
  if (options.allVersions) {
    const streams = shards.map((shard) => fromShard(shard, searchPages(shard.db, text, { limit: options.limit, highlight: options.marks, allVersions: true })));
    return results(shards, mergeSorted(streams, better, 0, options.limit), (_shard, hits) => hits);
  }
  const phrases = match.split(' ');
  const terms = shards.map((shard) => shardTerms(shard, match, phrases, CANDIDATES * options.limit));
  const rows = terms.reduce((n, t) => n + t.totals.rows, 0);
  const avgdl = terms.reduce((n, t) => n + t.totals.tokens, 0) / rows;
  const idfs = phrases.map((_, i) => idf(rows, terms.reduce((n, t) => n + (t.hits[i] as number), 0)));
  const streams = terms.map((t) => {
    const scored = t.candidates.map((row) => ({ ...row, score: crawlScore(t, idfs, avgdl, row.seq) }));
    return fromShard(t.shard, scored).sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  });
  // Snippets are made for the hits shown only: making one costs more than scoring a row.
  return results(shards, mergeSorted(streams, better, 0, options.limit), (shard, best) => {
    const hits = new Map(searchPages(shard.db, text, { limit: best.length, highlight: options.marks, seqs: best.map((row) => row.seq) }).map((hit) => [hit.seq, hit]));
    return best.map((row) => ({ ...(hits.get(row.seq) as SearchHit), score: row.score }));
  });
}

interface Ranked {
  seq: number;
  score: number;
  version: number;
  fetchedAt: number;
}

function fromShard<Row extends Ranked>(shard: OpenShard, rows: readonly Row[]): FromShard<Row>[] {
  return rows.map((row) => ({ row, partition: shard.partition, seq: row.seq, fetchedAt: row.fetchedAt }));
}

/**
 * The merged best rows as the API's results, in their order: each shard's rows made hits by
 * `hitsOf` (in the order given) and given their verdicts, in one call per shard.
 */
function results<Row extends Ranked>(shards: readonly OpenShard[], best: readonly FromShard<Row>[], hitsOf: (shard: OpenShard, rows: Row[]) => SearchHit[]): SearchResult[] {
  const byPartition = new Map<number, Row[]>();
  for (const item of best) byPartition.set(item.partition, [...(byPartition.get(item.partition) ?? []), item.row]);
  const found = new Map<Row, SearchResult>();
  for (const shard of shards) {
    const rows = byPartition.get(shard.partition);
    if (rows === undefined) continue;
    withVerdicts(shard.db, hitsOf(shard, rows)).forEach((result, i) => found.set(rows[i] as Row, { ...result, seq: shardSeq(shard.partition, result.seq) }));
  }
  return best.map((item) => found.get(item.row) as SearchResult);
}

/** Best first: the higher score, then the later version (as search.ts orders), then the merged fetch order. */
function better(a: FromShard<Ranked>, b: FromShard<Ranked>): boolean {
  if (a.row.score !== b.row.score) return a.row.score > b.row.score;
  if (a.row.version !== b.row.version) return a.row.version > b.row.version;
  return fetchedBefore(a, b);
}

/** A row's bm25 score (higher is better) on the statistics of every shard together. */
function crawlScore(t: ShardTerms, idfs: readonly number[], avgdl: number, seq: number): number {
  const length = t.stats.rowTokens(seq);
  const ownAvgdl = t.totals.tokens / t.totals.rows;
  let score = 0;
  idfs.forEach((crawlIdf, i) => {
    const own = -((t.scores[i] as Map<number, number>).get(seq) ?? 0);
    // own = idf × f(k1+1) / (f + norm): solved for f, the phrase's weighted hits in the row (whole numbers, the weights being 5 and 1).
    const ratio = own / idf(t.totals.rows, t.hits[i] as number);
    const norm = K1 * (1 - B + (B * length) / ownAvgdl);
    const f = Math.round((ratio * norm) / (K1 + 1 - ratio));
    // As fts5_aux.c figures it, term by term.
    score += crawlIdf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * length) / avgdl)));
  });
  return score;
}
