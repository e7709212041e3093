import assert from 'node:assert/strict';
import { it } from 'node:test';
import { HostScheduler, type SchedulableHost } from '../../../../crawler/frontier/host-scheduler.ts';
import { UrlHeap } from '../../../../crawler/frontier/url-heap.ts';

/** A host whose queue counts how often its best URL is read. */
function host(id: number): SchedulableHost & { peeks: number } {
  const queue = new UrlHeap();
  const h = { id, queue, inflight: false, nextAllowedAt: 0, scheduled: false, turnsWanted: 0, peeks: 0 };
  const peek = queue.peek.bind(queue);
  queue.peek = () => {
    h.peeks++;
    return peek();
  };
  return h;
}

/** Holds every URL below `bar`. */
const holdBelow = (bar: number) => (priority: number) => priority < bar;

it('before holding, looks again only at the ready hosts that got URLs since, and hands out one whose head rose', () => {
  const scheduler = new HostScheduler<ReturnType<typeof host>>();
  const hosts = Array.from({ length: 50 }, (_, i) => host(i + 1));
  for (const h of hosts) {
    h.queue.push(h.id * 10, 0.1);
    scheduler.offer(h);
  }
  assert.deepEqual(scheduler.next(0, holdBelow(0.5)), { kind: 'wait', until: Number.POSITIVE_INFINITY }, 'every head is below the bar');
  const target = hosts[30] as ReturnType<typeof host>;
  target.queue.push(999, 0.9);
  scheduler.offer(target);
  for (const h of hosts) h.peeks = 0;
  const next = scheduler.next(0, holdBelow(0.5));
  assert.equal(next.kind === 'host' && next.host.id, target.id, 'the host with the new best URL goes');
  assert.equal(target.peeks, 1);
  assert.equal(hosts.reduce((n, h) => n + h.peeks, 0), 1, 'no other ready host was read again');
  assert.equal(scheduler.readyCount, 49);
});

it('stays in order through many refreshes of the same hosts, each ready host counted once', () => {
  const scheduler = new HostScheduler<ReturnType<typeof host>>();
  const hosts = Array.from({ length: 5 }, (_, i) => host(i + 1));
  for (const h of hosts) {
    h.queue.push(h.id, 0.01 * h.id);
    scheduler.offer(h);
  }
  scheduler.next(0, holdBelow(1));
  let url = 100;
  for (let round = 0; round < 2000; round++) {
    const h = hosts[round % hosts.length] as ReturnType<typeof host>;
    h.queue.push(url++, 0.001 * (round % 7));
    scheduler.offer(h);
    assert.equal(scheduler.next(0, holdBelow(1)).kind, 'wait');
  }
  assert.equal(scheduler.readyCount, 5);
  const heads: number[] = [];
  scheduler.readyHeads(0, (priority) => heads.push(priority));
  assert.deepEqual(heads.sort(), [0.01, 0.02, 0.03, 0.04, 0.05]);
  const order: number[] = [];
  for (let next = scheduler.next(0); next.kind === 'host'; next = scheduler.next(0)) order.push(next.host.id);
  assert.deepEqual(order, [5, 4, 3, 2, 1], 'best head first, each host once');
});

it('a ready host withdrawn for a lent turn is not handed out again before its release and wait', () => {
  const scheduler = new HostScheduler<ReturnType<typeof host>>();
  const a = host(1);
  const b = host(2);
  a.queue.push(1, 0.9);
  b.queue.push(2, 0.1);
  scheduler.offer(a);
  scheduler.offer(b);
  // Both become ready; a is held back by the bar, so both stay ready.
  assert.equal(scheduler.next(0, holdBelow(1)).kind, 'wait');
  // A render borrows a's turn; it ends at once, with a politeness wait until 1,000.
  a.inflight = true;
  scheduler.withdraw(a);
  a.inflight = false;
  a.nextAllowedAt = 1000;
  a.queue.push(3, 0.95);
  scheduler.offer(a);
  const next = scheduler.next(500);
  assert.equal(next.kind === 'host' && next.host.id, 2, 'a waits for its time');
  const later = scheduler.next(1000);
  assert.equal(later.kind === 'host' && later.host.id, 1);
});
