import { versionBodySql, versionPayloadSql } from '../store/stored-body.ts';
import { fetchOrder, type FetchedPage } from './fetch-order.ts';
import type { IdMap } from './id-map.ts';
import type { MergedCollection, RevisitValues, VersionValues } from './merged-collection.ts';
import { DROPPED } from './merge-pages.ts';
import type { ShardReader } from './shard-reader.ts';

/*
 * A page's history: its earlier versions (page_versions) and each revisit's answer
 * (revisits), copied once the pages pass has given every page its merged seq, so that a
 * version duplicating a page stored later still finds it. A conflict's history goes with it:
 * the page kept has its own. Versions keep their order and numbers under the page's new seq;
 * revisits are interleaved by fetch time across the shards, as one crawl's would be.
 */

/** Revisit heads read ahead per shard (keyset paging, as the pages pass reads). */
const READ_AHEAD = 256;

const VERSION_ROWS = `SELECT v.id, v.page_seq AS pageSeq, v.version, v.status, v.http_version AS httpVersion, v.status_text AS statusText, v.headers,
  v.content_type AS contentType, v.charset, v.body, v.body_bytes AS bodyBytes, v.wire_bytes AS wireBytes, v.title, v.text, v.relevance, v.hot, v.note,
  v.started_at AS startedAt, v.fetched_at AS fetchedAt, v.response_ms AS responseMs, v.remote_address AS remoteAddress, v.request_head AS requestHead,
  v.payload, v.body_hash AS bodyHash, v.duplicate_of AS duplicateOf,
  EXISTS (SELECT 1 FROM versions_fts_docsize d WHERE d.id = v.id) AS indexed
  FROM page_versions v ORDER BY v.id`;

const REVISIT_ROW = `SELECT page_seq AS pageSeq, version, outcome, status, http_version AS httpVersion, status_text AS statusText, headers,
  request_head AS requestHead, started_at AS startedAt, fetched_at AS fetchedAt, response_ms AS responseMs, wire_bytes AS wireBytes, remote_address AS remoteAddress
  FROM revisits WHERE id = ?`;

interface ShardVersion extends VersionValues {
  id: number;
  pageSeq: number;
  /** 1 when the version's text is in the shard's earlier-versions index (a noindex page's never was). */
  indexed: number;
}

export interface MergedVersions {
  versions: number;
  /** Versions that were exact duplicates of a page left out or not stored: kept with their own bytes. */
  unlinkedDuplicates: number;
}

/** The merged seq of a shard's page, undefined for a conflict left out; a seq the shard does not hold is damage. */
function pageOf(shard: ShardReader, seqs: IdMap, seq: number, what: string): number | undefined {
  const merged = seqs.get(seq);
  if (merged === DROPPED) return undefined;
  if (merged === 0) throw shard.inconsistent(`${what} is of page ${seq}, which the shard does not hold`);
  return merged;
}

/**
 * Every shard's earlier versions, in the shard's order, under the pages' merged seqs. An
 * exact duplicate's bytes are where its original is (a page, or one of that page's earlier
 * versions), so duplicate_of takes the original's merged seq; when the original was left out
 * the version keeps the bytes itself, as a page does.
 */
export function mergeVersions(shards: readonly ShardReader[], seqs: readonly IdMap[], out: MergedCollection): MergedVersions {
  let versions = 0;
  let unlinkedDuplicates = 0;
  shards.forEach((shard, s) => {
    const shardSeqs = seqs[s] as IdMap;
    const bytes = shard.query<{ body: Buffer | null; payload: Buffer | null }>(
      shard.read((db) => `SELECT ${versionBodySql(db, 'v')} AS body, ${versionPayloadSql(db, 'v')} AS payload FROM page_versions v WHERE v.id = ?`),
    );
    for (const row of shard.query<ShardVersion>(VERSION_ROWS).iterate()) {
      const pageSeq = pageOf(shard, shardSeqs, row.pageSeq, `version ${row.version} (page_versions ${row.id})`);
      if (pageSeq === undefined) continue;
      const { id, pageSeq: _, indexed, ...values } = row;
      if (values.duplicateOf !== null) {
        const original = shardSeqs.get(values.duplicateOf);
        if (original > 0) values.duplicateOf = original;
        else {
          const own = bytes.get(id);
          values.body = own?.body ?? null;
          values.payload = own?.payload ?? null;
          values.duplicateOf = null;
          unlinkedDuplicates++;
        }
      }
      out.insertVersion(pageSeq, values, indexed === 1);
      versions++;
    }
  });
  return { versions, unlinkedDuplicates };
}

/** Every shard's revisits of the pages kept, merged by fetch time (each shard's in its own order). Returns how many. */
export function mergeRevisits(shards: readonly ShardReader[], seqs: readonly IdMap[], out: MergedCollection): number {
  const rows = shards.map((shard) => shard.query<RevisitValues & { pageSeq: number }>(REVISIT_ROW));
  let revisits = 0;
  for (const { shard: s, seq: id } of fetchOrder(shards.map((shard) => revisitsByFetch(shard)))) {
    const shard = shards[s] as ShardReader;
    const row = rows[s]?.get(id);
    if (row === undefined) throw shard.inconsistent(`revisit ${id} vanished while the shard was read`);
    const pageSeq = pageOf(shard, seqs[s] as IdMap, row.pageSeq, `revisit ${id}`);
    if (pageSeq === undefined) continue;
    const { pageSeq: _, ...values } = row;
    out.insertRevisit(pageSeq, values);
    revisits++;
  }
  return revisits;
}

/** A shard's revisits' ids and fetch times in id order, a few hundred at a time. */
function* revisitsByFetch(shard: ShardReader): Generator<FetchedPage> {
  const next = shard.query<[number, number]>('SELECT id, fetched_at FROM revisits WHERE id > ? ORDER BY id LIMIT ?', true);
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const batch = next.all(after, READ_AHEAD);
    for (const [seq, fetchedAt] of batch) yield { seq, fetchedAt };
    if (batch.length < READ_AHEAD) return;
    after = (batch[batch.length - 1] as [number, number])[0];
  }
}
