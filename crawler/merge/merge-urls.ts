import { UrlState } from '../store/url-state.ts';
import { FingerprintIds } from './fingerprint-ids.ts';
import { IdMap } from './id-map.ts';
import type { MergedCollection, UrlValues } from './merged-collection.ts';
import type { ShardReader } from './shard-reader.ts';
import { UrlMarks, UrlRank, urlTextHash, type UrlRankValue } from './url-marks.ts';

/*
 * One urls row per canonical URL (its fingerprint), whichever shards knew it. A shard keeps a
 * URL another partition owns as a stub (skipped, reason `partition:N`, under its
 * out-of-scope host) for its links to point at; the owner's shard holds the real row. The
 * owner's row wins, wherever it is; a URL only ever seen as a stub stays one, reason and
 * all. New ids are handed out in shard order, then in each shard's discovery order.
 */

/** The reason a shard stores for a URL that another partition owns. */
const PARTITION_REASON = 'partition:';

interface ShardUrl extends Omit<UrlValues, 'hostId' | 'parentId'> {
  id: number;
  hostId: number;
  parentId: number | null;
  hasPage: number;
}

const URL_ROWS = `SELECT u.id, CAST(u.fp AS TEXT) AS fp, u.url, u.host_id AS hostId, u.depth, u.state, u.parent_id AS parentId,
  u.redirects, u.attempts, u.reason, u.kind, EXISTS (SELECT 1 FROM pages p WHERE p.url_id = u.id) AS hasPage
  FROM urls u ORDER BY u.id`;

export interface MergedUrls {
  /** Per shard (in the order given): its URL ids' new ids. */
  urlIds: IdMap[];
  /** Which row each merged URL holds, and whether its page is stored yet (the pages pass reads and sets it). */
  marks: UrlMarks;
  /** Two different URLs with one fingerprint in different shards: kept as one URL, as each shard's own seen test would. */
  clashes: number;
}

export function mergeUrls(shards: readonly ShardReader[], hostIds: readonly IdMap[], out: MergedCollection): MergedUrls {
  const fingerprints = new FingerprintIds();
  const marks = new UrlMarks();
  let nextId = 1;
  let clashes = 0;
  const urlIds = shards.map((shard, s) => {
    const extent = shard.query<{ maxId: number | null; n: number }>('SELECT max(id) AS maxId, count(*) AS n FROM urls').get() as { maxId: number | null; n: number };
    const ids = new IdMap(extent.maxId ?? 0, extent.n);
    // First every id of the shard, so that a row's parent has its new id whatever their order.
    for (const [id, hi, lo] of shard.query<[number, number, number]>('SELECT id, fp >> 32, fp & 4294967295 FROM urls', true).iterate()) {
      const newId = fingerprints.idFor(hi, lo, nextId);
      if (newId === nextId) nextId++;
      ids.set(id, newId);
    }
    const hosts = hostIds[s] as IdMap;
    for (const row of shard.query<ShardUrl>(URL_ROWS).iterate()) {
      const newId = ids.get(row.id);
      const isStub = row.state === UrlState.skipped && row.reason !== null && row.reason.startsWith(PARTITION_REASON);
      const rank: UrlRankValue = row.hasPage === 1 ? UrlRank.fetched : isStub ? UrlRank.stub : UrlRank.owner;
      const held = marks.rank(newId);
      const textHash = urlTextHash(row.url);
      if (held !== UrlRank.none && marks.textHash(newId) !== textHash) {
        clashes++;
        continue;
      }
      if (isStub) marks.markStub(newId);
      if (held !== UrlRank.none && rank <= held) continue;
      const hostId = hosts.get(row.hostId);
      if (hostId === 0) throw shard.inconsistent(`URL ${row.id} (${row.url}) names host ${row.hostId}, which the shard does not hold`);
      // A parent the shard does not hold (it never should) leaves the URL without one rather than pointing at another URL.
      const parentId = row.parentId === null ? null : ids.get(row.parentId) || null;
      const values: UrlValues = { ...row, hostId, parentId };
      if (held === UrlRank.none) out.insertUrl(newId, values);
      else out.updateUrl(newId, values);
      marks.setRank(newId, rank);
      marks.setTextHash(newId, textHash);
    }
    return ids;
  });
  return { urlIds, marks, clashes };
}
