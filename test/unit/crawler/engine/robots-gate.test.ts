import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RobotsGate } from '../../../../crawler/engine/robots-gate.ts';
import type { HostState } from '../../../../crawler/engine/host-state.ts';
import { DEFAULT_SETTINGS } from '../../../../crawler/protocol/settings.ts';
import { openCollection } from '../../../../crawler/store/database.ts';
import { type HostRow, HostStore } from '../../../../crawler/store/host-store.ts';
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

test('a robots.txt given up on says why: the fetch failure, the status, or what a later run can still tell', async () => {
  const dir = tempDir('forager-robots-gate-');
  const db = openCollection(join(dir.dir, 'c.db'), { create: true });
  try {
    const hosts = new HostStore(db);
    const settings = { ...DEFAULT_SETTINGS, robotsMaxAttempts: 1 };
    const failing = new RobotsGate(settings, hosts, async () => ({ kind: 'failure', reason: 'tls', responseMs: 1 }));
    const tls = { id: hosts.idFor('https://a.example'), origin: 'https://a.example', robots: { kind: 'unknown' } } as HostState;
    await failing.refresh(tls);
    assert.equal(failing.givenUp(tls), true);
    assert.equal(failing.blockReason(tls, 'https://a.example/x'), 'robots:unavailable:tls');

    const busy = new RobotsGate(settings, hosts, async () => ({ kind: 'response', status: 503, body: undefined, responseMs: 1 }));
    const overloaded = { id: hosts.idFor('http://b.example'), origin: 'http://b.example', robots: { kind: 'unknown' } } as HostState;
    await busy.refresh(overloaded);
    assert.equal(busy.blockReason(overloaded, 'http://b.example/x'), 'robots:unavailable:http:503');

    // The failure's own reason is not stored: a later run knows only that the host was unreachable.
    const rows = new Map(hosts.all().map((row) => [row.origin, row]));
    const restoredTls = { ...tls, robots: failing.restore(rows.get('https://a.example') as HostRow) } as HostState;
    assert.equal(failing.blockReason(restoredTls, 'https://a.example/x'), 'robots:unavailable:unreachable');
    const restoredBusy = { ...overloaded, robots: busy.restore(rows.get('http://b.example') as HostRow) } as HostState;
    assert.equal(busy.blockReason(restoredBusy, 'http://b.example/x'), 'robots:unavailable:http:503');
  } finally {
    db.close();
    dir.cleanup();
  }
});
