import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FENCED_MESSAGE, isFenced, raiseFence } from '../../../../crawler/cluster/shard-fence.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { UrlStore } from '../../../../crawler/store/url-store.ts';
import { UrlState } from '../../../../crawler/store/url-state.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';

test('a shard refuses the writes of an owner whose epoch a later owner replaced, and only those', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forager-fence-'));
  try {
    const path = join(dir, 'shard-001.forager');
    const stale = openCollection(path, { create: true });
    raiseFence(stale, 1);
    const insert = (db: typeof stale, n: number): void => {
      const hostId = new HostStore(db).idFor('http://a.test');
      new UrlStore(db).insert({ fp: BigInt(n), url: `http://a.test/${n}`, hostId, depth: 0, state: UrlState.queued, parentId: null, redirects: 0, reason: null, kind: 'page' });
    };
    insert(stale, 1);
    const owner = openCollection(path, { create: false });
    raiseFence(owner, 2);
    assert.throws(() => insert(stale, 2), (err: unknown) => isFenced(err) && String(err).includes(FENCED_MESSAGE));
    insert(owner, 3);
    assert.equal(owner.prepare('SELECT count(*) FROM urls').pluck().get(), 2);
    // A lease older than the shard's epoch cannot open it again.
    assert.throws(() => raiseFence(stale, 1), /fenced/);
    stale.close();
    owner.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
