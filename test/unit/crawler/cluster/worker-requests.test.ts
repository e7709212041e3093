import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerRequests } from '../../../../crawler/cluster/worker-requests.ts';
import { priorityBucket } from '../../../../crawler/frontier/priority-ranks.ts';

test('a worker\'s shards share its slots: never more requests at once than its concurrency', () => {
  const worker = new WorkerRequests(2);
  const shards = [0, 1, 2].map(() => worker.gate(() => undefined));
  assert.equal(shards[0]?.admit(0.5), true);
  shards[0]?.started();
  assert.equal(shards[1]?.admit(0.5), true);
  shards[1]?.started();
  assert.equal(shards[2]?.admit(0.9), false, 'the worker is full, whatever the shard holds');
  assert.equal(worker.running, 2);
  shards[0]?.ended();
  assert.equal(shards[2]?.admit(0.9), true);
  shards[2]?.started();
  assert.equal(worker.peakRunning, 2);
});

test('a free slot goes to the shard with the best waiting URL, and that shard is woken to take it', () => {
  const worker = new WorkerRequests(1);
  const woken: string[] = [];
  const busy = worker.gate(() => woken.push('busy'));
  const low = worker.gate(() => woken.push('low'));
  const high = worker.gate(() => woken.push('high'));
  assert.equal(busy.admit(0.1), true);
  busy.started();
  assert.equal(low.admit(0.2), false);
  assert.equal(high.admit(0.8), false);
  busy.ended();
  assert.deepEqual(woken, ['high'], 'only the best offer is woken');
  assert.equal(low.admit(0.2), false, 'a worse URL asking first does not take the slot the better one waits for');
  assert.equal(high.admit(0.8), true);
  high.started();
  high.ended();
  assert.deepEqual(woken, ['high', 'low'], 'then the next best');
  assert.equal(low.admit(0.2), true);
});

test('a shard that stops asking holds no one back: withdrawn, or its offer left to expire', async () => {
  const worker = new WorkerRequests(1);
  const woken: string[] = [];
  const high = worker.gate(() => woken.push('high'));
  const low = worker.gate(() => woken.push('low'));
  const other = worker.gate(() => woken.push('other'));
  assert.equal(other.admit(0), true);
  other.started();
  assert.equal(high.admit(0.9), false);
  assert.equal(low.admit(0.1), false);
  other.ended();
  assert.deepEqual(woken, ['high']);
  high.withdraw();
  assert.deepEqual(woken, ['high', 'low'], 'withdrawing the best offer wakes the next');
  assert.equal(low.admit(0.1), true);
  low.started();
  assert.equal(high.admit(0.9), false);
  low.ended();
  // The high shard was paused: it never comes back for its slot, and after the offer's time the low one gets it.
  assert.equal(other.admit(0.05), false);
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal(other.admit(0.05), true);
});

test('a new cut-off wakes the best offer it held back', () => {
  const worker = new WorkerRequests(4);
  const woken: string[] = [];
  const busy = worker.gate(() => woken.push('busy'));
  const held = worker.gate(() => woken.push('held'));
  busy.started();
  worker.setCutoff([[priorityBucket(0.9), 8]], 8);
  assert.equal(held.admit(0.2), false, 'the other workers\' 8 better ready hosts fill the window');
  woken.length = 0;
  worker.setCutoff([[priorityBucket(0.9), 2]], 8);
  assert.deepEqual(woken, ['held']);
  assert.equal(held.admit(0.2), true);
});

test('the crawl-wide cut-off holds a URL while the other workers have the crawl\'s window of hosts ready with better ones', () => {
  const worker = new WorkerRequests(4);
  const shard = worker.gate(() => undefined);
  // The crawl's window: 2 workers of 4 slots. The other worker has 5 hosts ready at 0.9 and 3 at 0.4.
  worker.setCutoff([[priorityBucket(0.9), 5], [priorityBucket(0.4), 3]], 8);
  assert.equal(shard.admit(0.1), true, 'nothing of this worker in flight: nothing here would end a wait');
  shard.started();
  assert.equal(shard.admit(0.1), false, '8 ready hosts elsewhere have better URLs: they take the budget first');
  assert.equal(worker.heldByCutoff, 1);
  assert.equal(shard.admit(0.5), true, 'only 5 rank above 0.5');
  shard.started();
  assert.equal(shard.admit(Number.POSITIVE_INFINITY), true, 'a turn a render waits for is never held');
  shard.started();
  // The other worker fetched its best: 3 + 3 ready hosts are left, fewer than the window.
  worker.setCutoff([[priorityBucket(0.9), 3], [priorityBucket(0.4), 3]], 8);
  assert.equal(shard.admit(0.1), true);
  // No summary from others (alone, or they cannot spend): nothing is held.
  worker.setCutoff([], 8);
  assert.equal(shard.admit(-5), true);
  assert.equal(worker.heldByCutoff, 1);
});

test('alone, a worker holds a URL while its own shards queue the window of better ones, as a plain crawl\'s frontier does', () => {
  const worker = new WorkerRequests(4);
  const shard = worker.gate(() => undefined);
  // Its shards' frontiers count into one tally: 4 URLs queued at 0.6 and 2 more at 0.3. The window is its 4 slots.
  const queue = (priority: number, n: number): void => {
    for (let i = 0; i < n; i++) shard.queuedTally.add(priorityBucket(priority), 1);
  };
  queue(0.6, 4);
  queue(0.3, 2);
  worker.setCutoff([], 4);
  assert.equal(shard.admit(0.1), true, 'nothing in flight: nothing here would end a wait');
  shard.started();
  assert.equal(shard.admit(0.1), false, '6 queued URLs rank above it');
  assert.equal(shard.admit(0.5), false, '4 rank above it: the window is full');
  assert.equal(shard.admit(0.7), true);
  // A URL at 0.6 was taken: 3 rank above 0.5 now.
  shard.queuedTally.add(priorityBucket(0.6), -1);
  assert.equal(shard.admit(0.5), true);
  // With the other workers' 2 better ready hosts as well: 2 + 3 of its own above 0.5 fill 4 slots, not 8 of two workers.
  worker.setCutoff([[priorityBucket(0.9), 2]], 4);
  assert.equal(shard.admit(0.5), false);
  worker.setCutoff([[priorityBucket(0.9), 2]], 8);
  assert.equal(shard.admit(0.5), true);
});
