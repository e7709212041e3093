import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrawlFrontier, type FrontierSettings, type PassedOver } from '../../../../crawler/frontier/crawl-frontier.ts';
import type { FrontierHost } from '../../../../crawler/frontier/frontier-host.ts';
import { priorityBucket, PriorityRanks, type RankTally } from '../../../../crawler/frontier/priority-ranks.ts';

/** The crawler's host as a test sees it: the frontier's, plus a label the policy reads. */
interface TestHost extends FrontierHost {
  label: string;
}

interface TestUrl {
  id: number;
  url: string;
}

const SETTINGS: FrontierSettings = { delayMs: 1000, delayFactor: 2, maxCrawlDelayMs: 30_000, maxPagesPerHost: 0 };

/** A frontier over fakes: priorities in a map, the store's states in a map, a clock the test moves. */
function setUp(options: { settings?: Partial<FrontierSettings>; blocked?: Record<string, string>; crawlDelay?: Record<string, number>; tally?: RankTally } = {}) {
  const priorities = new Map<number, number>();
  const changed: number[] = [];
  const states = new Map<number, 'queued' | 'inflight' | PassedOver>();
  const reasons = new Map<number, string>();
  const urls = new Map<number, string>();
  const blockedEvents: [string, string][] = [];
  let transactions = 0;
  let lookups = 0;
  let clock = 10_000;
  const frontier = new CrawlFrontier<TestHost, TestUrl>({
    settings: { ...SETTINGS, ...options.settings },
    ordering: {
      priority: (id) => priorities.get(id) ?? 0,
      takeChanged: () => changed.splice(0),
    },
    store: {
      queued: (id) => {
        lookups++;
        return states.get(id) === 'queued' ? { id, url: urls.get(id) as string } : undefined;
      },
      markInflight: (id) => {
        assert.equal(states.get(id), 'queued', `only a queued URL goes in flight (${id})`);
        states.set(id, 'inflight');
      },
      passOver: (id, as, reason) => {
        assert.equal(states.get(id), 'queued', `only a queued URL is passed over (${id})`);
        states.set(id, as);
        reasons.set(id, reason);
      },
      transaction: (fn) => {
        transactions++;
        fn();
      },
    },
    policy: {
      robotsBlockReason: (_host, url) => options.blocked?.[url] ?? null,
      crawlDelaySeconds: (host) => options.crawlDelay?.[host.label],
      blocked: (task, reason) => blockedEvents.push([task.url, reason]),
    },
    extendHost: (host) => ({ ...host, label: host.origin.replace('https://', '') }),
    now: () => clock,
    tally: options.tally,
  });
  /** Stores a queued URL with a priority, and admits it into the frontier. */
  const add = (id: number, hostId: number, priority: number): void => {
    const origin = `https://h${hostId}.example`;
    urls.set(id, `${origin}/${id}`);
    states.set(id, 'queued');
    priorities.set(id, priority);
    frontier.add(id, hostId, origin);
  };
  /** Asks for the next host at the test's clock, takes its URL, and ends the turn with a quick response. */
  const turn = (): number | undefined => {
    const next = frontier.next(clock, Number.POSITIVE_INFINITY);
    if (next.kind !== 'host') return undefined;
    const task = frontier.take(next.host);
    frontier.release(next.host, 0);
    return task?.id;
  };
  return {
    frontier, priorities, changed, states, reasons, blockedEvents, add, turn,
    get transactions() { return transactions; },
    get lookups() { return lookups; },
    advance: (ms: number) => { clock += ms; },
    get now() { return clock; },
  };
}

describe('CrawlFrontier: enqueue and take', () => {
  it('takes each host\'s best URL first, and hands out the host whose best URL ranks highest', () => {
    const t = setUp();
    t.add(1, 1, 0.2);
    t.add(2, 1, 0.9);
    t.add(3, 2, 0.5);
    const first = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.equal(first.kind === 'host' && first.host.id, 1, 'host 1 holds the best URL');
    assert.equal(first.kind === 'host' && first.host.inflight, true, 'a host handed out is in flight');
    assert.equal(first.kind === 'host' && first.host.label, 'h1.example', 'the crawler\'s own host comes back');
    const task = first.kind === 'host' ? t.frontier.take(first.host) : undefined;
    assert.deepEqual(task, { id: 2, url: 'https://h1.example/2' });
    assert.equal(t.states.get(2), 'inflight');
    assert.equal(t.states.get(1), 'queued');
    const second = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.equal(second.kind === 'host' && second.host.id, 2, 'host 1 is in flight, so host 2 goes');
  });

  it('restores queued URLs only on hosts it restored, and counts their earlier pages', () => {
    const t = setUp({ settings: { maxPagesPerHost: 3 } });
    const host = t.frontier.restoreHost(1, 'https://h1.example', 2);
    assert.equal(host.pagesFetched, 2);
    t.states.set(5, 'queued');
    t.states.set(6, 'queued');
    t.priorities.set(5, 1);
    t.frontier.restoreQueued(5, 1);
    t.frontier.restoreQueued(6, 99);
    assert.equal(t.frontier.hostCount, 1);
    assert.deepEqual(t.frontier.top(10).map((e) => e.urlId), [5]);
    assert.equal(t.turn(), 5);
  });

  it('says idle when nothing is queued, and keeps a scheduled host known', () => {
    const t = setUp();
    assert.deepEqual(t.frontier.next(t.now, Number.POSITIVE_INFINITY), { kind: 'idle' });
    assert.equal(t.frontier.hasScheduledHosts, false);
    t.add(1, 1, 1);
    assert.equal(t.frontier.hasScheduledHosts, true);
    assert.equal(t.turn(), 1);
    assert.equal(t.frontier.hasScheduledHosts, false, 'an emptied host leaves the scheduler');
  });

  it('counts hosts that may be asked now but were not yet handed out as scheduled', () => {
    const t = setUp();
    t.add(1, 1, 0.9);
    t.add(2, 2, 0.5);
    const first = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(first.kind === 'host' && first.host.id === 1);
    assert.equal(t.frontier.hasScheduledHosts, true, 'host 2 is ready and waits for a free slot');
  });
});

describe('CrawlFrontier: re-prioritising', () => {
  it('re-queues the URLs the ordering reports, so a raised URL goes first and is taken once', () => {
    const t = setUp({ settings: { delayMs: 0, delayFactor: 0 } });
    t.add(1, 1, 0.9);
    t.add(2, 1, 0.1);
    t.add(3, 1, 0.5);
    t.priorities.set(2, 1.5);
    t.changed.push(2, 42);
    t.frontier.reprioritise();
    assert.deepEqual(t.changed, [], 'the changes were taken');
    const order: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++) order.push(t.turn());
    assert.deepEqual(order, [2, 1, 3, undefined, undefined], 'the stale entry of URL 2 is skipped');
    assert.equal(t.lookups, 3, 'a stale entry is told from the queue map, without asking the store');
  });

  it('keeps a host\'s heap near its queued URLs however often their priorities change', () => {
    const t = setUp({ settings: { delayMs: 0, delayFactor: 0 } });
    for (let id = 1; id <= 20; id++) t.add(id, 1, id / 100);
    let seed = 11;
    for (let change = 0; change < 20_000; change++) {
      seed = (seed * 48271) % 2147483647;
      const id = 1 + (seed % 20);
      t.priorities.set(id, (seed % 1000) / 1000);
      t.changed.push(id);
      t.frontier.reprioritise();
    }
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.equal(next.kind, 'host');
    if (next.kind !== 'host') return;
    assert.ok(next.host.queue.size <= 64, `${next.host.queue.size} heap entries for 20 queued URLs after 20,000 changes`);
    const expected = [...t.priorities].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id]) => id);
    t.frontier.release(next.host, 0);
    const order: (number | undefined)[] = [];
    for (let i = 0; i < 21; i++) order.push(t.turn());
    assert.deepEqual(order, [...expected, undefined], 'each URL taken once, by its latest priority');
  });

  it('moves a host ahead of others when one of its URLs is raised', () => {
    const t = setUp();
    t.add(1, 1, 0.5);
    t.add(2, 2, 0.3);
    t.priorities.set(2, 0.8);
    t.changed.push(2);
    t.frontier.reprioritise();
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.equal(next.kind === 'host' && next.host.id, 2);
  });

  it('puts back an entry whose priority dropped unreported, at its new place', () => {
    const t = setUp({ settings: { delayMs: 0, delayFactor: 0 } });
    t.add(1, 1, 0.9);
    t.add(2, 1, 0.5);
    t.priorities.set(1, 0.1);
    assert.equal(t.turn(), 2);
    assert.equal(t.turn(), 1);
  });

  it('ignores a reported URL that is no longer queued', () => {
    const t = setUp({ settings: { delayMs: 0, delayFactor: 0 } });
    t.add(1, 1, 0.9);
    assert.equal(t.turn(), 1);
    t.changed.push(1);
    t.frontier.reprioritise();
    assert.equal(t.frontier.hasScheduledHosts, false);
    assert.deepEqual(t.frontier.top(5), []);
  });

  it('skips a URL the store no longer holds as queued', () => {
    const t = setUp({ settings: { delayMs: 0, delayFactor: 0 } });
    t.add(1, 1, 0.9);
    t.add(2, 1, 0.5);
    t.states.set(1, 'failed');
    assert.equal(t.turn(), 2);
  });
});

describe('CrawlFrontier: robots.txt and the host budget', () => {
  it('records robots-blocked URLs as it passes them, and takes the next allowed one', () => {
    const t = setUp({ blocked: { 'https://h1.example/1': 'robots:disallowed' } });
    t.add(1, 1, 0.9);
    t.add(2, 1, 0.5);
    assert.equal(t.turn(), 2);
    assert.equal(t.states.get(1), 'robots-blocked');
    assert.equal(t.reasons.get(1), 'robots:disallowed');
    assert.deepEqual(t.blockedEvents, [['https://h1.example/1', 'robots:disallowed']]);
  });

  it('closes a host whose budget is spent: every queued URL skipped, nothing taken', () => {
    const t = setUp({ settings: { maxPagesPerHost: 1 } });
    t.add(1, 1, 0.9);
    t.add(2, 1, 0.5);
    t.add(3, 1, 0.1);
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(next.kind === 'host');
    t.frontier.pageFetched(next.host);
    assert.equal(t.frontier.take(next.host), undefined);
    assert.deepEqual([1, 2, 3].map((id) => [t.states.get(id), t.reasons.get(id)]), [
      ['skipped', 'host-budget'], ['skipped', 'host-budget'], ['skipped', 'host-budget'],
    ]);
    assert.equal(next.host.queue.size, 0);
  });

  it('has no host budget when the setting is 0', () => {
    const t = setUp({ settings: { maxPagesPerHost: 0, delayMs: 0, delayFactor: 0 } });
    t.add(1, 1, 0.9);
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(next.kind === 'host');
    for (let i = 0; i < 1000; i++) t.frontier.pageFetched(next.host);
    assert.equal(t.frontier.take(next.host)?.id, 1);
  });
});

describe('CrawlFrontier: closing a host', () => {
  it('passes over each of its queued URLs once, in one transaction, and leaves other hosts alone', () => {
    const t = setUp();
    t.add(1, 1, 0.9);
    t.add(2, 1, 0.5);
    t.add(3, 2, 0.7);
    t.changed.push(2);
    t.frontier.reprioritise();
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(next.kind === 'host' && next.host.id === 1);
    const before = t.transactions;
    t.frontier.close(next.host, 'failed', 'ssrf:blocked');
    assert.equal(t.transactions - before, 1);
    assert.deepEqual([t.states.get(1), t.states.get(2), t.states.get(3)], ['failed', 'failed', 'queued']);
    assert.equal(t.reasons.get(1), 'ssrf:blocked');
    assert.equal(next.host.queue.size, 0);
    assert.deepEqual(t.frontier.top(10).map((e) => e.urlId), [3]);
    t.frontier.release(next.host, 0);
    t.advance(60_000);
    assert.equal(t.turn(), 3);
    assert.deepEqual(t.frontier.next(t.now, Number.POSITIVE_INFINITY), { kind: 'idle' }, 'a closed host is not scheduled again');
  });
});

describe('CrawlFrontier: politeness', () => {
  it('waits the largest of the delay, Crawl-delay, k × response time and the back-off before a host\'s next turn', () => {
    const t = setUp({ crawlDelay: { 'h2.example': 5 } });
    for (const [id, host] of [[1, 1], [2, 1], [3, 2], [4, 2]] as const) t.add(id, host, 1 / id);
    const cases: [hostId: number, responseMs: number, backoffMs: number, waitMs: number][] = [
      [1, 100, 0, 1000],
      [2, 100, 0, 5000],
    ];
    for (const [hostId, responseMs, backoffMs, waitMs] of cases) {
      const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
      assert.ok(next.kind === 'host' && next.host.id === hostId);
      t.frontier.take(next.host);
      t.frontier.release(next.host, responseMs, backoffMs);
      assert.equal(next.host.inflight, false);
      assert.equal(next.host.nextAllowedAt, t.now + waitMs);
    }
    assert.deepEqual(t.frontier.next(t.now, Number.POSITIVE_INFINITY), { kind: 'wait', until: t.now + 1000 });
    t.advance(1000);
    const slow = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(slow.kind === 'host' && slow.host.id === 1);
    t.frontier.take(slow.host);
    t.frontier.release(slow.host, 800, 0);
    assert.equal(slow.host.nextAllowedAt, t.now + 1600, 'k × a slow response');
    const backedOff = t.frontier.next(t.now + 4000, Number.POSITIVE_INFINITY);
    assert.ok(backedOff.kind === 'host' && backedOff.host.id === 2);
    t.frontier.take(backedOff.host);
    t.frontier.release(backedOff.host, 0, 20_000);
    assert.equal(backedOff.host.nextAllowedAt, t.now + 20_000, 'the back-off outweighs the Crawl-delay');
  });

  it('gives a reclaimed URL back on the host\'s queue, scheduled again once the host is released', () => {
    const t = setUp();
    t.add(1, 1, 0.9);
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(next.kind === 'host');
    const task = t.frontier.take(next.host);
    assert.equal(task?.id, 1);
    t.states.set(1, 'queued');
    t.frontier.reclaim(next.host, 1);
    assert.equal(t.frontier.hasScheduledHosts, false, 'a host in flight is not scheduled');
    assert.deepEqual(t.frontier.top(5).map((e) => e.urlId), [1]);
    t.frontier.release(next.host, 0, 2000);
    assert.deepEqual(t.frontier.next(t.now, Number.POSITIVE_INFINITY), { kind: 'wait', until: t.now + 2000 });
    t.advance(2000);
    assert.equal(t.turn(), 1);
  });
});

describe('CrawlFrontier: what the dashboard reads', () => {
  it('lists the best queued URLs over every host by current priority, then by id', () => {
    const t = setUp();
    t.add(4, 1, 0.5);
    t.add(2, 2, 0.5);
    t.add(3, 2, 0.9);
    t.add(1, 3, 0.1);
    t.priorities.set(1, 0.95);
    assert.deepEqual(t.frontier.top(3), [
      { urlId: 1, priority: 0.95 },
      { urlId: 3, priority: 0.9 },
      { urlId: 2, priority: 0.5 },
    ]);
    assert.equal(t.turn(), 3, 'host 2 holds the best URL by its queued priority');
    assert.deepEqual(t.frontier.top(10).map((e) => e.urlId), [1, 2, 4], 'a taken URL leaves the top');
  });

  it('lists hosts with queued URLs or a request in flight, the best waiting URL first, with their share and next allowed time', () => {
    const t = setUp();
    t.add(1, 4, 0.1);
    t.add(2, 2, 0.2);
    t.add(3, 2, 0.3);
    t.add(5, 1, 0.05);
    t.add(4, 3, 0.9);
    t.frontier.restoreHost(9, 'https://idle.example', 7);
    const busy = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(busy.kind === 'host' && busy.host.id === 3);
    t.frontier.take(busy.host);
    t.frontier.pageFetched(busy.host);
    assert.deepEqual(t.frontier.activity(10), [
      { origin: 'https://h2.example', queued: 2, bestPriority: 0.3, pagesFetched: 0, fetchShare: 0, nextAllowedAt: null, inFlight: false },
      { origin: 'https://h4.example', queued: 1, bestPriority: 0.1, pagesFetched: 0, fetchShare: 0, nextAllowedAt: null, inFlight: false },
      { origin: 'https://h1.example', queued: 1, bestPriority: 0.05, pagesFetched: 0, fetchShare: 0, nextAllowedAt: null, inFlight: false },
      { origin: 'https://h3.example', queued: 0, bestPriority: null, pagesFetched: 1, fetchShare: 1 / 8, nextAllowedAt: null, inFlight: true },
    ], 'an idle host is left out, but its pages count in the shares');
    assert.deepEqual(t.frontier.activity(2).map((h) => h.origin), ['https://h2.example', 'https://h4.example'], 'at most `limit` hosts');
    t.frontier.release(busy.host, 0);
    assert.deepEqual(t.frontier.activity(10).map((h) => h.origin), ['https://h2.example', 'https://h4.example', 'https://h1.example'], 'a released empty host drops out');
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(next.kind === 'host' && next.host.id === 2);
    t.frontier.take(next.host);
    t.frontier.release(next.host, 0);
    assert.deepEqual(t.frontier.activity(10)[0], { origin: 'https://h2.example', queued: 1, bestPriority: 0.2, pagesFetched: 0, fetchShare: 0, nextAllowedAt: new Date(t.now + 1000).toISOString(), inFlight: false });
    assert.equal(t.frontier.hostCount, 5);
  });
});

describe('CrawlFrontier: lent turns once no page may be fetched', () => {
  it('hands out only hosts a turn is asked of, politely, and next() passes over a host so taken', async () => {
    const t = setUp();
    t.add(1, 1, 0.9);
    t.add(2, 2, 0.5);
    assert.deepEqual(t.frontier.nextLentTurn(t.now), { kind: 'idle' }, 'no turn asked: nothing to hand out');
    const first = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(first.kind === 'host' && first.host.id === 1);
    t.frontier.release(first.host, 0);
    const granted = t.frontier.requestTurn(first.host, new AbortController().signal);
    assert.deepEqual(t.frontier.nextLentTurn(t.now), { kind: 'wait', until: t.now + 1000 }, 'the host waits out its politeness delay');
    t.advance(1000);
    const lent = t.frontier.nextLentTurn(t.now);
    assert.ok(lent.kind === 'host' && lent.host.id === 1 && lent.host.inflight, 'host 1, in flight');
    assert.deepEqual(t.frontier.nextLentTurn(t.now), { kind: 'idle' }, 'a host in flight is not handed out twice');
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.ok(next.kind === 'host' && next.host.id === 2, 'next() passes over host 1, which is in flight');
    const ended = lent.kind === 'host' ? t.frontier.lendTurn(lent.host) : undefined;
    const end = await granted;
    end(5);
    assert.equal(await ended, 5);
  });
});

describe('CrawlFrontier: host turns follow the priorities across hosts', () => {
  it('holds a ready host whose best URL is outside the window while a better host waits for its delay', () => {
    const t = setUp();
    for (let i = 1; i <= 5; i++) t.add(i, 1, 0.9);
    t.add(10, 2, 0.1);
    const first = t.frontier.next(t.now, 3);
    assert.equal(first.kind === 'host' && first.host.id, 1, 'the host with the best URLs goes first');
    if (first.kind !== 'host') return;
    t.frontier.take(first.host);
    t.frontier.release(first.host, 0);
    assert.deepEqual(t.frontier.next(t.now, 3), { kind: 'wait', until: t.now + 1000 }, 'host 2\'s URL ranks below four better ones: it waits for host 1');
    assert.equal(t.frontier.rankedAbove(0.1), 4);
    const wide = t.frontier.next(t.now, 5);
    assert.equal(wide.kind === 'host' && wide.host.id, 2, 'within a window of five, host 2 may be asked');
  });

  it('gives an idle host its turn once the better URLs are fetched', () => {
    const t = setUp();
    t.add(1, 1, 0.9);
    t.add(2, 1, 0.8);
    t.add(10, 2, 0.1);
    const order: number[] = [];
    for (let step = 0; step < 10 && order.length < 3; step++) {
      const next = t.frontier.next(t.now, 1);
      if (next.kind === 'wait') {
        t.advance(next.until - t.now);
        continue;
      }
      if (next.kind !== 'host') break;
      order.push(t.frontier.take(next.host)?.id as number);
      t.frontier.release(next.host, 0);
    }
    assert.deepEqual(order, [1, 2, 10], 'a window of one is the best-first order over all hosts');
  });

  it('never holds when nothing would end the wait: no host in flight, none waiting', () => {
    const t = setUp();
    for (let i = 1; i <= 5; i++) t.add(i, 1, 0.9);
    t.add(10, 2, 0.1);
    const first = t.frontier.next(t.now, 1);
    assert.equal(first.kind === 'host' && first.host.id, 1);
    if (first.kind !== 'host') return;
    t.frontier.park(first.host);
    const next = t.frontier.next(t.now, 1);
    assert.equal(next.kind === 'host' && next.host.id, 2, 'host 1 is parked, so host 2 is asked rather than the crawl waiting for ever');
  });

  it('a parked host\'s URLs hold no one back: it cannot be asked until its side work is done', () => {
    const t = setUp();
    for (let i = 1; i <= 5; i++) t.add(i, 1, 0.9);
    t.add(20, 2, 0.1);
    t.add(21, 2, 0.1);
    t.add(30, 3, 0.05);
    const first = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.equal(first.kind === 'host' && first.host.id, 1);
    if (first.kind !== 'host') return;
    t.frontier.park(first.host);
    const second = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.equal(second.kind === 'host' && second.host.id, 2);
    if (second.kind !== 'host') return;
    t.frontier.take(second.host);
    t.frontier.release(second.host, 0);
    assert.equal(t.frontier.rankedAbove(0.05), 6, 'five URLs of the parked host and one of the waiting host rank above host 3\'s');
    const next = t.frontier.next(t.now, 2);
    assert.equal(next.kind === 'host' && next.host.id, 3, 'only the waiting host\'s URL counts against a window of two');
  });

  it('a host whose request stepped aside holds no one back until it is released', () => {
    const t = setUp();
    for (let i = 1; i <= 5; i++) t.add(i, 1, 0.9);
    t.add(10, 2, 0.1);
    const first = t.frontier.next(t.now, Number.POSITIVE_INFINITY);
    assert.equal(first.kind === 'host' && first.host.id, 1);
    if (first.kind !== 'host') return;
    t.frontier.take(first.host);
    assert.equal(t.frontier.next(t.now, 1).kind, 'wait', 'while host 1\'s request is answered, host 2 waits for it');
    t.frontier.stalled(first.host);
    const next = t.frontier.next(t.now, 1);
    assert.equal(next.kind === 'host' && next.host.id, 2, 'host 1 is stuck on a slow server: host 2 is asked');
    if (next.kind === 'host') t.frontier.release(next.host, 0);
    t.frontier.release(first.host, 0);
    t.add(11, 2, 0.1);
    t.advance(1000);
    const after = t.frontier.next(t.now, 1);
    assert.equal(after.kind === 'host' && after.host.id, 1, 'released, host 1\'s URLs count again and go first');
    assert.equal(t.frontier.next(t.now, 1).kind, 'wait', 'and host 2 waits for them again');
  });

  it('holds while the host with the best URLs is in flight, and lets a render\'s turn through', async () => {
    const t = setUp();
    for (let i = 1; i <= 3; i++) t.add(i, 1, 0.9);
    t.add(10, 2, 0.1);
    const first = t.frontier.next(t.now, 1);
    assert.equal(first.kind === 'host' && first.host.id, 1);
    assert.deepEqual(t.frontier.next(t.now, 1), { kind: 'wait', until: Number.POSITIVE_INFINITY }, 'the in-flight host\'s release wakes the crawl');
    const host2 = t.frontier.host(2, 'https://h2.example');
    const turn = t.frontier.requestTurn(host2, new AbortController().signal);
    const lent = t.frontier.next(t.now, 1);
    assert.equal(lent.kind === 'host' && lent.host.id, 2, 'a turn a render waits for is not held');
    if (lent.kind === 'host') t.frontier.lendTurn(lent.host);
    assert.equal(typeof (await turn), 'function');
  });

  it('sees a held host\'s better URLs that arrived while it sat ready', () => {
    const t = setUp();
    for (let i = 1; i <= 3; i++) t.add(i, 1, 0.9);
    t.add(10, 2, 0.1);
    const first = t.frontier.next(t.now, 1);
    assert.equal(first.kind === 'host' && first.host.id, 1);
    assert.equal(t.frontier.next(t.now, 1).kind, 'wait', 'host 2 is held');
    t.add(11, 2, 0.95);
    const next = t.frontier.next(t.now, 1);
    assert.equal(next.kind === 'host' && next.host.id, 2, 'host 2 now holds the best URL');
    if (next.kind === 'host') assert.equal(t.frontier.take(next.host)?.id, 11);
  });

  it('counts a re-prioritised URL once, at its new priority', () => {
    const t = setUp();
    t.add(1, 1, 0.9);
    t.add(2, 2, 0.5);
    assert.equal(t.frontier.rankedAbove(0.5), 1);
    t.priorities.set(1, 0.2);
    t.changed.push(1);
    t.frontier.reprioritise();
    assert.equal(t.frontier.rankedAbove(0.5), 0, 'the old priority is no longer counted');
    assert.equal(t.frontier.rankedAbove(0.1), 2);
  });

  it('counts its queued URLs into a tally shared with other frontiers, as it counts them itself, until it leaves it', () => {
    const shared = new PriorityRanks();
    const a = setUp({ tally: shared });
    const b = setUp({ tally: shared });
    a.add(1, 1, 0.9);
    a.add(2, 1, 0.5);
    b.add(1, 1, 0.7);
    assert.equal(shared.above(priorityBucket(0.6)), 2, 'one URL of each frontier ranks above 0.6');
    a.priorities.set(2, 0.8);
    a.changed.push(2);
    a.frontier.reprioritise();
    assert.equal(shared.above(priorityBucket(0.6)), 3, 'a re-prioritised URL is counted at its new priority');
    assert.equal(a.turn(), 1);
    assert.equal(shared.size, 2, 'a URL taken is no longer counted');
    a.frontier.leaveTally();
    assert.equal(shared.size, 1, 'only the other frontier\'s URL is left');
    assert.equal(shared.above(priorityBucket(0.6)), 1);
    a.add(3, 1, 0.95);
    assert.equal(shared.size, 1, 'a frontier that left counts nothing more');
    assert.equal(a.frontier.rankedAbove(0.6), 2, 'it still counts its own');
  });
});

describe('CrawlFrontier: slots shared with other frontiers (admit)', () => {
  it('asks admit with the best ready URL\'s priority, and a refusal leaves the host ready and its URL queued', () => {
    const t = setUp();
    t.add(1, 1, 0.4);
    t.add(2, 2, 0.7);
    const asked: number[] = [];
    const held = t.frontier.next(t.now, Number.POSITIVE_INFINITY, (priority) => (asked.push(priority), false));
    assert.equal(held.kind, 'held');
    assert.deepEqual(asked, [0.7], 'admit hears the priority of the URL that would go next');
    assert.equal(t.states.get(2), 'queued');
    const next = t.frontier.next(t.now, Number.POSITIVE_INFINITY, () => true);
    assert.equal(next.kind === 'host' && next.host.id, 2, 'the held host is handed out once admitted, ahead of the others');
    assert.equal(next.kind === 'host' && next.host.inflight, true);
  });

  it('asks admit for a render\'s turn at the top priority', async () => {
    const t = setUp();
    t.add(1, 1, 0.4);
    const host = t.frontier.host(1, 'https://h1.example');
    const aborted = new AbortController();
    const turn = t.frontier.requestTurn(host, aborted.signal);
    const asked: number[] = [];
    assert.equal(t.frontier.nextLentTurn(t.now, (priority) => (asked.push(priority), false)).kind, 'held');
    assert.deepEqual(asked, [Number.POSITIVE_INFINITY]);
    const lent = t.frontier.nextLentTurn(t.now, () => true);
    assert.equal(lent.kind === 'host' && lent.host.id, 1);
    aborted.abort();
    await turn.catch(() => undefined);
  });
});
