/*
 * A shard's outbox on a real SQLite file: links for a blocked destination wait while the
 * oldest of the others are taken, only the rows Redis took leave, the held rows are never
 * read to find the others, and a shard written before destinations were stored still works.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ShardOutbox, type OutboxBatch } from '../../../../crawler/cluster/shard-outbox.ts';
import { openCollection, type Db } from '../../../../crawler/store/database.ts';
import { APPLICATION_ID, MIGRATIONS } from '../../../../crawler/store/migrations.ts';

/** The test's partitioning: http://dN.test/… belongs to partition N. */
function destinationOf(url: string): number {
  return Number(/^d(\d+)\./.exec(new URL(url).hostname)?.[1]);
}

function link(destination: number, name: string): { url: string; parentId: number; depth: number; anchor: string; context: string } {
  return { url: `http://d${destination}.test/${name}`, parentId: 1, depth: 1, anchor: name, context: `around ${name}` };
}

const names = (batch: OutboxBatch | undefined): string[] => (batch?.links ?? []).map((l) => new URL(l.url).pathname.slice(1));

describe('shard outbox', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'forager-outbox-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function shard(name: string): { db: Db; outbox: ShardOutbox } {
    const db = openCollection(join(dir, name), { create: true });
    return { db, outbox: new ShardOutbox(db, destinationOf) };
  }

  test('links for a blocked destination wait, in order, while the oldest of the others are taken; only the rows sent leave, and a batch never confirmed stays', () => {
    const path = 'order.forager';
    const { db, outbox } = shard(path);
    const blocked = new Set([7]);
    for (const [destination, name] of [[7, 'a'], [3, 'b'], [7, 'c'], [9, 'd'], [3, 'e']] as const) outbox.add(link(destination, name));

    assert.deepEqual(names(outbox.next(10, blocked)), ['b', 'd', 'e']);
    const first = outbox.next(2, blocked);
    assert.deepEqual(names(first), ['b', 'd']);
    assert.deepEqual(first?.links[0], { url: 'http://d3.test/b', depth: 1, anchor: 'b', context: 'around b', isSeed: false });
    outbox.sent(first as OutboxBatch);
    // The held rows older than the batch's last one are still there.
    assert.equal(outbox.size, 3);
    assert.deepEqual(outbox.held(blocked), new Map([[7, 2]]));
    outbox.sent(outbox.next(10, blocked) as OutboxBatch);
    assert.equal(outbox.next(10, blocked), undefined, 'only held links are left');
    assert.deepEqual(outbox.held(blocked), new Map([[7, 2]]));
    assert.deepEqual(outbox.held(new Set([3, 9])), new Map());

    // A link written after the others were all sent is taken past the held ones.
    outbox.add(link(3, 'f'));
    assert.deepEqual(names(outbox.next(10, blocked)), ['f']);
    // Blocked as well: destination 3 holds it too.
    assert.equal(outbox.next(10, new Set([3, 7])), undefined);
    assert.deepEqual(outbox.held(new Set([3, 7])), new Map([[3, 1], [7, 2]]));

    // The worker is killed before Redis confirmed: the batch's rows are all there when the shard opens again.
    const unconfirmed = outbox.next(10);
    assert.deepEqual(names(unconfirmed), ['a', 'c', 'f']);
    db.close();
    const reopened = shard(path);
    const again = reopened.outbox.next(10);
    assert.deepEqual(again?.links, unconfirmed?.links);
    reopened.outbox.sent(again as OutboxBatch);
    assert.equal(reopened.outbox.size, 0);
    assert.equal(reopened.outbox.next(10), undefined);
    reopened.db.close();
  });

  test('with several destinations waiting in numbers past a batch, a batch is the oldest of those not blocked, in order', () => {
    const { db, outbox } = shard('many.forager');
    const expected: string[] = [];
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) {
        for (const destination of [9, 7, 3]) {
          outbox.add(link(destination, `${destination}-${i}`));
          if (destination !== 7) expected.push(`${destination}-${i}`);
        }
      }
    })();
    const blocked = new Set([7]);
    for (let start = 0; start < expected.length; start += 2000) {
      const batch = outbox.next(2000, blocked);
      assert.deepEqual(names(batch), expected.slice(start, start + 2000));
      outbox.sent(batch as OutboxBatch);
    }
    assert.equal(outbox.next(2000, blocked), undefined);
    assert.deepEqual(outbox.held(blocked), new Map([[7, 3000]]));
    assert.equal(outbox.size, 3000);
    db.close();
  });

  test('taking links past a large held backlog reads only what it takes: as fast as with nothing held', () => {
    const HELD = 200_000;
    const ROUNDS = 40;
    /** Milliseconds to write one link for destination 3 and take it, ROUNDS times, with destination 7 blocked. */
    const roundTrips = (outbox: ShardOutbox): number => {
      const blocked = new Set([7]);
      const started = performance.now();
      for (let i = 0; i < ROUNDS; i++) {
        outbox.add(link(3, `fresh-${i}`));
        const batch = outbox.next(2000, blocked);
        assert.deepEqual(names(batch), [`fresh-${i}`]);
        outbox.sent(batch as OutboxBatch);
      }
      return performance.now() - started;
    };
    const empty = shard('empty.forager');
    const full = shard('held.forager');
    full.db.transaction(() => {
      for (let i = 0; i < HELD; i++) full.outbox.add(link(7, `held-${i}`));
    })();
    // Interleaved, so that the machine's load weighs on both alike.
    let emptyMs = 0;
    let fullMs = 0;
    for (let i = 0; i < 3; i++) {
      emptyMs += roundTrips(empty.outbox);
      fullMs += roundTrips(full.outbox);
    }
    assert.deepEqual(full.outbox.held(new Set([7])), new Map([[7, HELD]]));
    assert.ok(fullMs < emptyMs * 4 + 30, `${ROUNDS * 3} takes took ${fullMs.toFixed(1)} ms past ${HELD} held links, ${emptyMs.toFixed(1)} ms with none`);
    empty.db.close();
    full.db.close();
  });

  test('a shard written before the outbox stored destinations (schema 11) is migrated, and its waiting links get theirs', () => {
    const path = join(dir, 'schema11.forager');
    const old = new Database(path);
    old.pragma(`application_id = ${APPLICATION_ID}`);
    for (const migration of MIGRATIONS.slice(0, 11)) old.exec(migration);
    old.pragma('user_version = 11');
    const insert = old.prepare('INSERT INTO cluster_outbox (url, parent_id, depth, anchor, context) VALUES (?, ?, ?, ?, ?)');
    for (const [destination, name] of [[7, 'a'], [3, 'b'], [7, 'c']] as const) {
      const l = link(destination, name);
      insert.run(l.url, l.parentId, l.depth, l.anchor, l.context);
    }
    old.close();

    const db = openCollection(path, { create: false });
    const outbox = new ShardOutbox(db, destinationOf);
    assert.equal(db.prepare('SELECT count(*) FROM cluster_outbox WHERE destination IS NULL').pluck().get(), 0);
    assert.deepEqual(names(outbox.next(10, new Set([7]))), ['b']);
    assert.deepEqual(outbox.held(new Set([7])), new Map([[7, 2]]));
    assert.deepEqual(names(outbox.next(10)), ['a', 'b', 'c']);
    db.close();
  });
});
