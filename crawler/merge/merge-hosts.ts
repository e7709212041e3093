import { IdMap } from './id-map.ts';
import type { HostValues, MergedCollection } from './merged-collection.ts';
import type { ShardReader } from './shard-reader.ts';

/*
 * One hosts row per origin. A host lives in one partition, so normally one shard holds its
 * row; should several (a partition that moved, a bug), the row of the shard that fetched
 * most of its pages is the owner's and gives robots.txt, the page count and the soft-404
 * probe, since that shard's politeness and robots verdicts are the ones its pages obeyed.
 * Every shard's out-of-scope row (OUT_OF_SCOPE_ORIGIN) becomes the one such row.
 */

interface ShardHost extends HostValues {
  id: number;
}

interface Owner {
  id: number;
  pagesFetched: number;
  robotsFetchedAt: number | null;
}

const HOSTS = `SELECT id, origin, robots_status AS robotsStatus, robots_body AS robotsBody, robots_fetched_at AS robotsFetchedAt,
  robots_failures AS robotsFailures, pages_fetched AS pagesFetched, soft404_probed AS soft404Probed,
  CAST(soft404_simhash AS TEXT) AS soft404Simhash FROM hosts ORDER BY id`;

/** Whether `row` speaks for its origin rather than the row kept so far. */
function outranks(row: ShardHost, kept: Owner): boolean {
  if (row.pagesFetched !== kept.pagesFetched) return row.pagesFetched > kept.pagesFetched;
  return (row.robotsFetchedAt ?? -1) > (kept.robotsFetchedAt ?? -1);
}

/** Writes the merged hosts; returns, per shard (in the order given), its host ids' new ids. */
export function mergeHosts(shards: readonly ShardReader[], out: MergedCollection): IdMap[] {
  const owners = new Map<string, Owner>();
  return shards.map((shard) => {
    const extent = shard.query<{ maxId: number | null; n: number }>('SELECT max(id) AS maxId, count(*) AS n FROM hosts').get() as { maxId: number | null; n: number };
    const ids = new IdMap(extent.maxId ?? 0, extent.n);
    for (const row of shard.query<ShardHost>(HOSTS).iterate()) {
      const kept = owners.get(row.origin);
      if (kept === undefined) {
        const id = out.insertHost(row);
        owners.set(row.origin, { id, pagesFetched: row.pagesFetched, robotsFetchedAt: row.robotsFetchedAt });
        ids.set(row.id, id);
        continue;
      }
      if (outranks(row, kept)) {
        out.updateHost(kept.id, row);
        kept.pagesFetched = row.pagesFetched;
        kept.robotsFetchedAt = row.robotsFetchedAt;
      }
      ids.set(row.id, kept.id);
    }
    return ids;
  });
}
