import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ShardPolicy } from '../../../../crawler/cluster/shard-policy.ts';
import { WorkerRequests } from '../../../../crawler/cluster/worker-requests.ts';
import type { RunProgress } from '../../../../crawler/engine/run-policy.ts';
import { testSettings } from '../../../support/crawl-harness.ts';

const IDLE: RunProgress = { pagesAtStart: 0, pagesThisRun: 0, pageTasks: 0, revisitTasks: 0, revisitedThisRun: 0, queuedRevisits: 0 };

test('a shard spends the shared budget, holds a page of it until stored, and asks its gate before each request', () => {
  let available = 3;
  let leaseFresh = true;
  const forwarded: string[] = [];
  const policy = new ShardPolicy(testSettings(['http://127.0.0.1:9/'], { maxPages: 1_000 }), {
    budget: { available: () => available, reserve: () => available--, giveBack: () => available++ },
    mayDispatch: () => leaseFresh,
    requests: new WorkerRequests(4).gate(() => undefined),
    partition: { elsewhere: (url) => (url.includes('other') ? 'partition:7' : null), forward: (link) => forwarded.push(link.url) },
  });
  // The shared budget, not the settings' maxPages, decides.
  assert.equal(policy.budgetLeft(IDLE), 3);
  policy.pageStarted();
  assert.equal(policy.budgetLeft(IDLE), 2);
  policy.pageNotStored();
  assert.equal(policy.mayTakeNew(IDLE), true);
  available = 0;
  assert.equal(policy.mayTakeNew(IDLE), false);
  // With the budget spent, the revisits waiting still go.
  assert.equal(policy.budgetLeft({ ...IDLE, queuedRevisits: 2 }), 2);
  assert.equal(policy.mayDispatch(), true);
  leaseFresh = false;
  assert.equal(policy.mayDispatch(), false);
  assert.equal(policy.partition.elsewhere('http://other.example/'), 'partition:7');
});

test('a shard runs until stopped, admits no seeds and takes no writer lock', () => {
  const policy = new ShardPolicy(testSettings(['http://127.0.0.1:9/']), {
    budget: { available: () => 0, reserve: () => undefined, giveBack: () => undefined },
    mayDispatch: () => true,
    requests: new WorkerRequests(4).gate(() => undefined),
    partition: { elsewhere: () => null, forward: () => undefined },
  });
  assert.equal(policy.endsWhenIdle, false);
  assert.equal(policy.admitsSeeds, false);
  assert.equal(policy.locksCollection, false);
  assert.deepEqual(policy.frontier, { keepsRobots: true, keepsCrawlQueue: true });
});
