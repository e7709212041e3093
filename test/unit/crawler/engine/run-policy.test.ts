import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlPolicy, RefreshPolicy, type RunProgress } from '../../../../crawler/engine/run-policy.ts';
import { testSettings } from '../../../support/crawl-harness.ts';

const SEEDS = ['http://127.0.0.1:9/'];

function progress(overrides: Partial<RunProgress> = {}): RunProgress {
  return { pagesAtStart: 0, pagesThisRun: 0, pageTasks: 0, revisitTasks: 0, revisitedThisRun: 0, queuedRevisits: 0, ...overrides };
}

test('a crawl counts new pages against maxPages: those stored before, this run, and in flight', () => {
  const policy = new CrawlPolicy(testSettings(SEEDS, { maxPages: 10 }));
  assert.equal(policy.budgetLeft(progress()), 10);
  assert.equal(policy.budgetLeft(progress({ pagesAtStart: 4, pagesThisRun: 3, pageTasks: 2 })), 1);
  // A revisit in flight is not a new page.
  assert.equal(policy.budgetLeft(progress({ pagesAtStart: 4, pagesThisRun: 3, pageTasks: 3, revisitTasks: 1 })), 1);
  assert.equal(policy.mayTakeNew(progress({ pagesThisRun: 10 })), false);
});

test('a crawl whose page budget is spent still starts the revisits waiting', () => {
  const policy = new CrawlPolicy(testSettings(SEEDS, { maxPages: 10, revisitAfter: '7d' }));
  const spent = progress({ pagesThisRun: 10, queuedRevisits: 5, pageTasks: 2, revisitTasks: 2 });
  assert.equal(policy.budgetLeft(spent), 3);
  assert.equal(policy.mayTakeNew(spent), false);
});

test('a crawl ends when idle unless it revisits as it goes, and locks the collection unless told not to', () => {
  const plain = new CrawlPolicy(testSettings(SEEDS));
  assert.equal(plain.endsWhenIdle, true);
  assert.equal(plain.revisitAfterMs, undefined);
  assert.equal(plain.reportsRevisits, false);
  assert.equal(plain.locksCollection, true);
  assert.deepEqual(plain.frontier, { keepsRobots: true, keepsCrawlQueue: true });
  const revisiting = new CrawlPolicy(testSettings(SEEDS, { revisitAfter: '1h' }), { locksCollection: false });
  assert.equal(revisiting.endsWhenIdle, false);
  assert.equal(revisiting.revisitAfterMs, 3_600_000);
  assert.equal(revisiting.reportsRevisits, true);
  assert.equal(revisiting.locksCollection, false);
});

test('a refresh counts revisits and new pages alike against maxFetches, and prepares a frontier of due pages only', () => {
  const policy = new RefreshPolicy({ since: 1_000, maxFetches: 20, origins: ['http://a.example'] });
  assert.equal(policy.budgetLeft(progress({ pagesAtStart: 500, revisitedThisRun: 6, pagesThisRun: 4, pageTasks: 3 })), 7);
  assert.equal(policy.mayTakeNew(), true);
  assert.equal(policy.endsWhenIdle, true);
  assert.equal(policy.unqueuesRevisitsAtEnd, true);
  assert.equal(policy.revisitAfterMs, undefined);
  assert.deepEqual(policy.frontier, { keepsRobots: false, keepsCrawlQueue: false, dueRevisits: { since: 1_000, origins: ['http://a.example'] } });
});
