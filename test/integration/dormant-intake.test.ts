import { WorkerRequests } from '../../crawler/cluster/worker-requests.ts';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { admitToDormantShard } from '../../crawler/cluster/dormant-intake.ts';
import type { LinkBatch, SentLink } from '../../crawler/cluster/link-streams.ts';
import { PartitionMap, partitionOf } from '../../crawler/cluster/partition.ts';
import { ShardRunner } from '../../crawler/cluster/shard-runner.ts';
import { shardTemplate } from '../../crawler/cluster/shard-template.ts';
import { ResponseReader } from '../../crawler/parse/response-reader.ts';
import { DEFAULT_SETTINGS } from '../../crawler/protocol/settings.ts';
import { validateSettings } from '../../crawler/settings.ts';
import { openCollection } from '../../crawler/store/database.ts';
import { shardFileName } from '../../crawler/store/shard-names.ts';
import { html, respond, startTestSite, type TestSite } from '../support/test-site.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * A sleeping shard's links are stored without an engine, exactly as its engine would store
 * them (states and reasons: queued, robots-blocked, a rule's refusal, too deep, another
 * partition's stub), and crawled when the shard is opened again.
 */

describe('links for a sleeping shard', { timeout: 120_000 }, () => {
  let site: TestSite;
  const dir = mkdtempSync(join(tmpdir(), 'forager-dormant-'));
  const parser = new ResponseReader({ parseWorkers: 0 });
  let settings: ReturnType<typeof validateSettings>;
  let partition: number;
  const partitions = new PartitionMap();

  const runnerIn = (shards: string, paused: boolean): ShardRunner =>
    new ShardRunner(partition, 1, {
      dir: shards, settings, partitions, parser, worker: 'dormant-test', paused, template: shardTemplate(), leaseFresh: () => true, requests: new WorkerRequests(4),
      budget: { forShard: () => ({ available: () => 1000, spent: () => false, reserve: () => undefined, giveBack: () => undefined }) },
    });
  const shardRows = (shards: string, sql: string): unknown[] => {
    const db = openCollection(join(shards, shardFileName(partition)), { create: false, readonly: true });
    try {
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  };
  /** Another partition's site: its links are stored as stubs, never fetched here. */
  const foreign = (): string => {
    for (let i = 0; ; i++) if (partitionOf(`http://other${i}.test/`) !== partition) return `http://other${i}.test/x`;
  };

  before(async () => {
    site = await startTestSite({
      '/robots.txt': respond('text/plain', 'User-agent: *\nDisallow: /private/\n'),
      '/': html('<a href="/a">a</a>', 'home'),
      '/a': html('<p>a page</p>', 'a'),
      '/b': html('<p>the page the intake stored</p>', 'b'),
    });
    settings = validateSettings({ ...DEFAULT_SETTINGS, query: 'page', seeds: [`${site.origin}/`], scope: 'any', exclude: ['**/skip/**'], maxDepth: 3, delayMs: 0, probeSoft404: false });
    partition = partitionOf(`${site.origin}/`);
    // The shard's first life: the seed crawled, robots.txt stored, then the shard closed (asleep).
    const runner = runnerIn(dir, false);
    assert.equal(await runner.opened, true);
    runner.admit([{ partition, id: '1-0', links: [{ url: `${site.origin}/`, depth: 0, anchor: '', context: '', isSeed: true }], dropped: 0 }]);
    await waitFor(() => site.count('/a') === 1 && runner.idle);
    await runner.close(async () => undefined);
  });

  after(async () => {
    await site.close();
    await parser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('are stored as its engine stores them, with no engine, and crawled when it opens again', async () => {
    const link = (url: string, depth = 2, more: Partial<SentLink> = {}): SentLink => ({ url, depth, anchor: 'see', context: 'a link', isSeed: false, ...more });
    const links = [
      link(`${site.origin}/b`, 2, { parentRelevance: 0.7 }),
      link(`${site.origin}/a`),
      link(`${site.origin}/private/secret`),
      link(`${site.origin}/skip/this`),
      link(`${site.origin}/too/deep`, 4),
      link(foreign()),
      link(`${site.origin}/bad-depth`, -1),
    ];
    const batches: LinkBatch[] = [{ partition, id: '2-0', links, dropped: 0 }];
    // The same links through a running engine, on a copy of the sleeping shard: what the intake must store.
    const copy = join(dir, 'engine-copy');
    mkdirSync(copy);
    copyFileSync(join(dir, shardFileName(partition)), join(copy, shardFileName(partition)));
    const engineRunner = runnerIn(copy, true);
    assert.equal(await engineRunner.opened, true);
    assert.equal(engineRunner.admit(batches), 1);
    await engineRunner.close(async () => undefined);

    const urlsSql = 'SELECT u.url, u.state, u.reason, u.depth, u.parent_id AS parentId, h.origin FROM urls u JOIN hosts h ON h.id = u.host_id ORDER BY u.id';
    const runsBefore = shardRows(dir, 'SELECT count(*) AS n FROM runs');
    const outcome = admitToDormantShard(partition, 1, { dir, settings, partitions }, batches);
    assert.deepEqual({ queued: outcome.queued, refused: outcome.refused }, { queued: 1, refused: 1 });
    assert.deepEqual(shardRows(dir, 'SELECT count(*) AS n FROM runs'), runsBefore, 'no engine ran: no run was recorded');
    assert.deepEqual(shardRows(dir, urlsSql), shardRows(copy, urlsSql), 'the intake stored what the engine stored');
    const stored = new Map((shardRows(dir, urlsSql) as { url: string; state: number; reason: string | null }[]).map((r) => [r.url, [r.state, r.reason]]));
    assert.deepEqual(stored.get(`${site.origin}/b`), [0, null]);
    assert.deepEqual(stored.get(`${site.origin}/private/secret`), [5, 'robots:disallowed']);
    assert.deepEqual(stored.get(`${site.origin}/skip/this`), [4, 'rule:exclude']);
    assert.deepEqual(stored.get(`${site.origin}/too/deep`), [4, 'depth']);
    assert.equal(stored.get(foreign())?.[1], `partition:${partitionOf(foreign())}`);
    assert.equal(site.count('/b'), 0);

    // Opened again, the shard crawls what its intake stored.
    const runner = runnerIn(dir, false);
    try {
      assert.equal(await runner.opened, true);
      await waitFor(() => site.count('/b') === 1 && runner.idle);
    } finally {
      await runner.close(async () => undefined);
    }
    assert.deepEqual(shardRows(dir, `SELECT p.status FROM pages p JOIN urls u ON u.id = p.url_id WHERE u.url = '${site.origin}/b'`), [{ status: 200 }]);
    assert.equal(site.count('/private/secret'), 0);
  });

  test('refuse a stale owner: a later epoch in the shard stores nothing', () => {
    const before = shardRows(dir, 'SELECT count(*) AS n FROM urls');
    const batches: LinkBatch[] = [{ partition, id: '3-0', links: [{ url: `${site.origin}/c`, depth: 1, anchor: '', context: '', isSeed: false }], dropped: 0 }];
    assert.equal(admitToDormantShard(partition, 2, { dir, settings, partitions }, batches).queued, 1);
    assert.throws(() => admitToDormantShard(partition, 1, { dir, settings, partitions }, batches), /fenced/);
    assert.equal((shardRows(dir, 'SELECT count(*) AS n FROM urls')[0] as { n: number }).n, (before[0] as { n: number }).n + 1);
  });
});
