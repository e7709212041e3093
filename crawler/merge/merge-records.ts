import type { IdMap } from './id-map.ts';
import type { FolderValues, MergedCollection, RunValues, SubresourceValues } from './merged-collection.ts';
import type { ShardReader } from './shard-reader.ts';

/*
 * What is not keyed by a page: the runs, the user's labels, the subresources renders and
 * requisites fetched, and the soft-404 probes of hosts' folders.
 */

/** Every shard's runs, one row each, ordered by when they started: `stats` adds their counters up as for any crawl. */
export function mergeRuns(shards: readonly ShardReader[], out: MergedCollection): number {
  const runs: (RunValues & { shard: number; id: number })[] = [];
  shards.forEach((shard, s) => {
    const rows = shard
      .query<RunValues & { id: number }>(
        'SELECT id, started_at AS startedAt, ended_at AS endedAt, pages, bytes, seen_lookups AS seenLookups, seen_hits AS seenHits, outcome FROM runs',
      )
      .all();
    for (const row of rows) runs.push({ ...row, shard: s });
  });
  runs.sort((a, b) => a.startedAt - b.startedAt || a.shard - b.shard || a.id - b.id);
  for (const run of runs) out.insertRun(run);
  return runs.length;
}

/**
 * The labels, on the merged URL ids; a URL labelled in two shards keeps the later label.
 * Then each labelled page's verdict is made its label, as labelling does, since the label
 * and the page may have been in different shards.
 */
export function mergeLabels(shards: readonly ShardReader[], urlIds: readonly IdMap[], out: MergedCollection): void {
  shards.forEach((shard, s) => {
    const ids = urlIds[s] as IdMap;
    for (const row of shard.query<{ urlId: number; relevant: number; labelledAt: number }>('SELECT url_id AS urlId, relevant, labelled_at AS labelledAt FROM labels').iterate()) {
      const urlId = ids.get(row.urlId);
      // A label of a URL the shard does not hold cannot name a page: there is nothing to keep.
      if (urlId !== 0) out.putLabel(urlId, row.relevant, row.labelledAt);
    }
  });
  out.applyLabelsToVerdicts();
}

/** Subresources by URL; one fetched by two shards keeps the first shard's copy. */
export function mergeSubresources(shards: readonly ShardReader[], out: MergedCollection): void {
  for (const shard of shards) {
    for (const row of shard.query<SubresourceValues>('SELECT url, status, headers, body, fetched_at AS fetchedAt FROM subresources ORDER BY url').iterate()) out.insertSubresource(row);
  }
}

/** The folders' soft-404 probes, on the merged host ids; one host's folder probed in two shards keeps the later probe. */
export function mergeSoft404Folders(shards: readonly ShardReader[], hostIds: readonly IdMap[], out: MergedCollection): void {
  shards.forEach((shard, s) => {
    const ids = hostIds[s] as IdMap;
    const rows = shard.query<FolderValues & { hostId: number }>('SELECT host_id AS hostId, folder, CAST(simhash AS TEXT) AS simhash, probed_at AS probedAt FROM soft404_folders');
    for (const row of rows.iterate()) {
      const hostId = ids.get(row.hostId);
      if (hostId === 0) throw shard.inconsistent(`the soft-404 probe of folder ${row.folder} names host ${row.hostId}, which the shard does not hold`);
      out.putSoft404Folder(hostId, row);
    }
  });
}
