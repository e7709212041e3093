import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RobotsGate } from '../../../../crawler/engine/robots-gate.ts';
import type { HostState } from '../../../../crawler/engine/host-state.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { HostStore } from '../../../../crawler/store/host-store.ts';
import { tempDir } from '../../../support/crawl-harness.ts';

test("a stored robots.txt is read when its host first needs it, not when the run starts", () => {
  const dir = tempDir('forager-robots-gate-');
  const db = openCollection(join(dir.dir, 'c.db'), { create: true });
  try {
    const hosts = new HostStore(db);
    const id = hosts.idFor('http://a.example');
    hosts.saveRobots(id, 200, Buffer.from('User-agent: *\nDisallow: /private\n'), Date.now(), 0);
    const reads: number[] = [];
    const counting = Object.assign(Object.create(HostStore.prototype) as HostStore, {
      robotsBody: (hostId: number) => {
        reads.push(hostId);
        return hosts.robotsBody(hostId);
      },
    });
    const gate = new RobotsGate(DEFAULT_SETTINGS, counting, async () => ({ kind: 'failure', reason: 'unused', responseMs: 0 }));
    const [row] = hosts.all();
    assert.ok(row !== undefined && !('robotsBody' in row), 'the host rows of a run start carry no robots.txt');
    const host = { id, origin: 'http://a.example', robots: gate.restore(row) } as HostState;
    assert.equal(host.robots.kind, 'stored');
    assert.equal(gate.needsFetch(host, Date.now()), false, 'a stored file within its 24 hours is not fetched again');
    assert.deepEqual(reads, []);
    assert.equal(gate.blockReason(host, 'http://a.example/private/x'), 'robots:disallowed');
    assert.equal(gate.blockReason(host, 'http://a.example/public'), null);
    assert.deepEqual(reads, [id], 'read once, on first need');
  } finally {
    db.close();
    dir.cleanup();
  }
});
