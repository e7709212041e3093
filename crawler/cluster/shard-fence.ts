import type { Db } from '../store/database.ts';

/*
 * The epoch fence of a shard. A partition's lease carries an epoch that rises with every
 * acquisition; the owner writes its epoch into the shard when it opens it, and its
 * connection refuses (with temporary triggers, which live on this connection only) any
 * write of a page or a URL once the shard holds another epoch. So a worker that was paused
 * past its lease, and wakes while another worker owns the partition, cannot store a page:
 * its transaction fails as a store error and its engine stops.
 */

export const FENCED_MESSAGE = 'fenced: this partition is leased to another worker now';

/** The owner's epoch in the shard's cluster_fence table (made by store/migrations.ts); then this connection's triggers. */
export function raiseFence(db: Db, epoch: number): void {
  if (!Number.isSafeInteger(epoch) || epoch < 1) throw new RangeError(`a lease epoch is a positive integer, not ${epoch}`);
  db.transaction(() => {
    const current = db.prepare('SELECT epoch FROM cluster_fence WHERE id = 1').pluck().get() as number | undefined;
    // A later epoch in the shard means this lease is already stale: write nothing.
    if (current !== undefined && current > epoch) throw new Error(`${FENCED_MESSAGE} (epoch ${current} > ${epoch})`);
    db.prepare('INSERT INTO cluster_fence (id, epoch) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET epoch = excluded.epoch').run(epoch);
  }).immediate();
  const guard = `WHEN (SELECT epoch FROM main.cluster_fence WHERE id = 1) <> ${epoch} BEGIN SELECT RAISE(ABORT, '${FENCED_MESSAGE}'); END`;
  for (const [name, event] of [
    ['insert_pages', 'INSERT ON main.pages'],
    ['update_pages', 'UPDATE ON main.pages'],
    ['insert_urls', 'INSERT ON main.urls'],
    ['update_urls', 'UPDATE ON main.urls'],
  ] as const) {
    db.exec(`DROP TRIGGER IF EXISTS temp.cluster_fence_${name}`);
    db.exec(`CREATE TEMP TRIGGER cluster_fence_${name} BEFORE ${event} ${guard}`);
  }
}

/** Whether an error is the fence refusing a stale owner's write. */
export function isFenced(error: unknown): boolean {
  return error instanceof Error && error.message.includes(FENCED_MESSAGE);
}
