import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ShardPolicy } from '../../../../crawler/cluster/shard-policy.ts';
import { WorkerRequests } from '../../../../crawler/cluster/worker-requests.ts';
import type { RunProgress } from '../../../../crawler/engine/run-policy.ts';
import { testSettings } from '../../../support/crawl-harness.ts';

const IDLE: RunProgress = { pagesAtStart: 0, pagesThisRun: 0, pageTasks: 0, revisitTasks: 0, revisitedThisRun: 0, queuedRevisits: 0 };

test('a shard spends the shared budget, holds a page of it until stored, and asks its gate before each request', () => {
  let available = 3;
  let spent = false;
  let leaseFresh = true;
  const forwarded: string[] = [];
  const policy = new ShardPolicy(testSettings(['http://127.0.0.1:9/'], { maxPages: 1_000 }), {
    budget: { available: () => available, spent: () => spent, reserve: () => available--, giveBack: () => available++ },
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
  // The worker's allowance empty for now (a refill under way): nothing starts, revisits included,
  // so that the frontier drops no new URL it may not hand out yet.
  assert.equal(policy.budgetLeft({ ...IDLE, queuedRevisits: 2 }), 0);
  // With the budget spent for good, the revisits waiting still go, as in a plain crawl.
  spent = true;
  assert.equal(policy.budgetLeft({ ...IDLE, queuedRevisits: 2 }), 2);
  assert.equal(policy.budgetLeft({ ...IDLE, queuedRevisits: 2, revisitTasks: 1 }), 1);
  assert.equal(policy.mayDispatch(), true);
  leaseFresh = false;
  assert.equal(policy.mayDispatch(), false);
  assert.equal(policy.partition.elsewhere('http://other.example/'), 'partition:7');
});

test('a shard runs until stopped, admits no seeds and takes no writer lock', () => {
  const policy = new ShardPolicy(testSettings(['http://127.0.0.1:9/']), {
    budget: { available: () => 0, spent: () => false, reserve: () => undefined, giveBack: () => undefined },
    mayDispatch: () => true,
    requests: new WorkerRequests(4).gate(() => undefined),
    partition: { elsewhere: () => null, forward: () => undefined },
  });
  assert.equal(policy.endsWhenIdle, false);
  assert.equal(policy.admitsSeeds, false);
  assert.equal(policy.locksCollection, false);
  assert.deepEqual(policy.frontier, { keepsRobots: true, keepsCrawlQueue: true });
});
