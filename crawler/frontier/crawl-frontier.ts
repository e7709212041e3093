/**
 * The crawl frontier: every queued URL on its host's queue at the ordering's priority, and
 * which host may be asked next. The crawl loop sees it through three narrow interfaces (in
 * the spirit of Crawlee's request manager beside its AutoscaledPool): what comes in
 * (FrontierIntake), a host's turn (FrontierTurns), and what the dashboard reads
 * (FrontierView). Like the rest of frontier/ it knows no database, strategy or robots.txt:
 * the URL table, the ordering and robots.txt's say come in as small ports.
 */
import type { HostActivity } from '../protocol/api.ts';
import { newFrontierHost, type FrontierHost } from './frontier-host.ts';
import { HostScheduler, type NextHost } from './host-scheduler.ts';
import { politeWaitMs, type PolitenessSettings } from './politeness.ts';
import { priorityBucket, topBuckets, type RankTally } from './priority-ranks.ts';
import { QueuedHosts } from './queued-hosts.ts';
import { TopEntries } from './top-entries.ts';

/** What the frontier needs of a queued URL as the store hands it out. */
export interface FrontierUrl {
  readonly id: number;
  readonly url: string;
  /** A stored page fetched again: it does not count against the host's page budget. */
  readonly revisit?: boolean;
}

/** How a queued URL can end without being fetched. */
export type PassedOver = 'robots-blocked' | 'skipped' | 'failed';

/** The settings the frontier reads: politeness, and the host budget. */
/** A host's activity as the frontier knows it: the contract's, less what the engine adds. */
export type FrontierHostActivity = Omit<HostActivity, 'render'>;

/** A render waiting for a host's turn. */
interface TurnRequest {
  grant(end: (responseMs: number) => void): void;
}

export interface FrontierSettings extends PolitenessSettings {
  /** Pages one host may give; 0 means no limit. */
  maxPagesPerHost: number;
}

/** The ordering as the frontier sees it (OrderingStrategy fits): a priority per URL, and the URLs whose priority moved. */
export interface FrontierOrdering {
  priority(urlId: number): number;
  /** The URLs whose priority changed since the last call; the frontier re-queues those still waiting. */
  takeChanged(): Iterable<number>;
}

/** The URL table as the frontier writes it: each URL's state is stored, so a crash loses no decision. */
export interface FrontierStore<T extends FrontierUrl> {
  /** The URL if the store still holds it as queued (and hands it out to this run), else undefined. */
  queued(urlId: number): T | undefined;
  /** Queued → in flight: the URL is handed to the fetcher. */
  markInflight(urlId: number): void;
  /** Queued → an end without a fetch, with its reason. */
  passOver(urlId: number, as: PassedOver, reason: string): void;
  /** Runs `fn` as one transaction. */
  transaction(fn: () => void): void;
}

/** What the crawler tells the frontier about a host: robots.txt's say. */
export interface FrontierPolicy<H, T> {
  /** Why robots.txt forbids the URL now, or null when it may be fetched. */
  robotsBlockReason(host: H, url: string): string | null;
  /** robots.txt's Crawl-delay for the host in seconds, if it names one. */
  crawlDelaySeconds(host: H): number | undefined;
  /** A URL taken from its queue was recorded as robots-blocked. */
  blocked(task: T, reason: string): void;
}

export interface FrontierDeps<H extends FrontierHost, T extends FrontierUrl> {
  settings: FrontierSettings;
  ordering: FrontierOrdering;
  store: FrontierStore<T>;
  policy: FrontierPolicy<H, T>;
  /** Makes the crawler's host from the frontier's new one (the engine adds the robots.txt verdict). */
  extendHost: (host: FrontierHost) => H;
  /** The clock politeness counts on; default Date.now. */
  now?: () => number;
  /** Counts the queued URLs' priorities too, beside other frontiers' (a cluster worker's shards), until leaveTally(). */
  tally?: RankTally | undefined;
}

/** URLs coming in: hosts and queued URLs restored at the start of a run, new URLs, moved priorities. */
export interface FrontierIntake<H extends FrontierHost> {
  /** The host of an origin, made on first sight. */
  host(hostId: number, origin: string): H;
  /** A host the collection knows, with the pages it fetched in earlier runs. */
  restoreHost(hostId: number, origin: string, pagesFetched: number): H;
  /** A URL the store holds as queued goes back on its host's queue (ignored when its host was not restored). */
  restoreQueued(urlId: number, hostId: number): void;
  /** A newly admitted, queued URL joins its host's queue. */
  add(urlId: number, hostId: number, origin: string): void;
  /** Re-queues the URLs whose priority the ordering changed; their older heap entries go stale. */
  reprioritise(): void;
}

/** A host's turn: handed out by next(), its URL taken, then released with its politeness wait. */
export interface FrontierTurns<H extends FrontierHost, T extends FrontierUrl> {
  /**
   * The host to ask now (it is in flight until released), or when to look again, or idle.
   * A ready host is asked only when fewer than `window` queued URLs, on any host, rank above
   * its best one; else the crawl waits for the hosts holding the better URLs. `admit` may
   * hold the chosen host back (`held`) for a better URL elsewhere (host-scheduler.ts).
   */
  next(now: number, window: number, admit?: (priority: number) => boolean): NextHost<H>;
  /** True while some host with queued URLs waits for its turn. */
  readonly hasScheduledHosts: boolean;
  /**
   * The host's best queued URL that the host budget and robots.txt allow, marked in flight.
   * Stale entries are skipped, an entry whose priority dropped goes back at its new place,
   * robots-blocked URLs are recorded and passed over; a spent budget closes the host.
   */
  take(host: H): T | undefined;
  /** A URL taken from this host goes back on its queue (a retry, or a cancelled request). */
  reclaim(host: H, urlId: number): void;
  /** Waits for a polite turn of the host for a render's request; resolves with the function that ends it. */
  requestTurn(host: H, signal: AbortSignal): Promise<(responseMs: number) => void>;
  /** In a host's turn: lends it to the first waiting requestTurn; undefined when none waits. */
  lendTurn(host: H): Promise<number> | undefined;
  /**
   * Like next(), among the hosts a requestTurn waits for only: once no page fetch may start
   * (the page budget is spent), renders and requisites still get their turns.
   */
  nextLentTurn(now: number, admit?: (priority: number) => boolean): NextHost<H>;
  /** Counts a page fetched from the host, for its budget. */
  pageFetched(host: H): void;
  /** Ends the host's turn: it may be asked again after max(politeness wait, backoffMs). */
  release(host: H, responseMs: number, backoffMs?: number): void;
  /** Ends the host's turn without offering it again: it waits until unpark(), or until a render asks for one of its turns. */
  park(host: H): void;
  /** Offers a parked host again. */
  unpark(host: H): void;
  /**
   * The host's request stepped aside (a slow server): the host stays in flight, but until it
   * is released its URLs hold no other host back, as a tarpit must not stall the crawl.
   */
  stalled(host: H): void;
  /** Ends every queued URL of the host at once, in one transaction (robots.txt unavailable, budget spent, address refused). */
  close(host: H, as: PassedOver, reason: string): void;
}

/** What the dashboard reads: scans for the UI, not for the crawl loop. */
export interface FrontierView {
  /** The `limit` queued URLs of highest priority, best first. */
  top(limit: number): { urlId: number; priority: number }[];
  /** Hosts with queued URLs or a request in flight, busiest first (what the frontier knows of them). */
  activity(limit: number): FrontierHostActivity[];
  /** When the last of its hosts may be asked again (epoch ms, the frontier's clock): whoever asks them next waits till then. */
  politeUntil(): number;
  readonly hostCount: number;
}

/** What waits to be fetched now, for whoever shares the crawl with this frontier (a cluster's other workers). */
export interface FrontierReadiness {
  /**
   * The priority buckets (priority-ranks.ts) of the best URLs of the hosts that may be asked
   * now, best first, with how many hosts' best URL is in each, until they hold `limit`.
   */
  readyTop(now: number, limit: number): [bucket: number, count: number][];
  /** Queued URLs, on every host, that rank strictly above this priority. */
  rankedAbove(priority: number): number;
  /** The deps' shared tally stops counting this frontier's URLs (its run ended). */
  leaveTally(): void;
}

export type Frontier<H extends FrontierHost, T extends FrontierUrl> = FrontierIntake<H> & FrontierTurns<H, T> & FrontierView & FrontierReadiness;

/**
 * The frontier in memory: a host per origin with its URL heap, which host's queue holds
 * each queued URL (so a re-prioritised URL is found, and an older heap entry told stale),
 * and the HostScheduler that picks the next host.
 */
export class CrawlFrontier<H extends FrontierHost, T extends FrontierUrl> implements Frontier<H, T> {
  readonly #settings: FrontierSettings;
  readonly #ordering: FrontierOrdering;
  readonly #store: FrontierStore<T>;
  readonly #policy: FrontierPolicy<H, T>;
  readonly #extendHost: (host: FrontierHost) => H;
  readonly #now: () => number;
  readonly #hosts = new Map<number, H>();
  readonly #queued: QueuedHosts;
  readonly #scheduler = new HostScheduler<H>();

  constructor(deps: FrontierDeps<H, T>) {
    this.#settings = deps.settings;
    this.#ordering = deps.ordering;
    this.#store = deps.store;
    this.#policy = deps.policy;
    this.#extendHost = deps.extendHost;
    this.#now = deps.now ?? Date.now;
    this.#queued = new QueuedHosts(deps.tally);
  }

  host(hostId: number, origin: string): H {
    let host = this.#hosts.get(hostId);
    if (host === undefined) {
      host = this.#extendHost(newFrontierHost(hostId, origin));
      this.#hosts.set(hostId, host);
    }
    return host;
  }

  restoreHost(hostId: number, origin: string, pagesFetched: number): H {
    const host = this.host(hostId, origin);
    host.pagesFetched = pagesFetched;
    return host;
  }

  restoreQueued(urlId: number, hostId: number): void {
    const host = this.#hosts.get(hostId);
    if (host === undefined) return;
    this.#enqueue(host, urlId);
    this.#scheduler.offer(host);
  }

  add(urlId: number, hostId: number, origin: string): void {
    const host = this.host(hostId, origin);
    this.#enqueue(host, urlId);
    this.#scheduler.offer(host);
  }

  reprioritise(): void {
    for (const urlId of this.#ordering.takeChanged()) {
      const hostId = this.#queued.get(urlId);
      const host = hostId === 0 ? undefined : this.#hosts.get(hostId);
      if (host === undefined) continue;
      this.#enqueue(host, urlId);
      this.#scheduler.offer(host);
    }
  }

  next(now: number, window: number, admit?: (priority: number) => boolean): NextHost<H> {
    // Holding is safe only while something will end the wait: a host in flight or one waiting for its time.
    const hold = (priority: number): boolean => {
      if (this.#inflightHosts === 0 && this.#scheduler.waitingCount === 0) return false;
      const above = this.#queued.rankedAbove(priority);
      return above >= window && above - this.#unavailableAbove(priority, above - window + 1) >= window;
    };
    const next = this.#scheduler.next(now, hold, admit);
    if (next.kind === 'host') this.#setInflight(next.host, true);
    return next;
  }

  readyTop(now: number, limit: number): [bucket: number, count: number][] {
    const counts = new Map<number, number>();
    this.#scheduler.readyHeads(now, (priority) => {
      const bucket = priorityBucket(priority);
      counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
    });
    return topBuckets(counts, limit);
  }

  /** Queued URLs, on every host, that rank strictly above this priority. */
  rankedAbove(priority: number): number {
    return this.#queued.rankedAbove(priority);
  }

  leaveTally(): void {
    this.#queued.leaveTally();
  }

  /**
   * Queued URLs of parked and stalled hosts that rank above this priority (counted up to
   * `enough`): a host parked for side work, or whose request is stuck on a slow server, cannot
   * be asked soon, so its URLs hold no one back.
   */
  #unavailableAbove(priority: number, enough: number): number {
    let count = 0;
    for (const host of this.#unavailable) {
      host.queue.forEachWhere(
        (p) => count < enough && this.#queued.ranksAbove(p, priority),
        (id, p) => {
          if (this.#queued.counts(id, host.id, p)) count++;
        },
      );
    }
    return count;
  }

  get hasScheduledHosts(): boolean {
    return this.#scheduler.waitingCount + this.#scheduler.readyCount > 0;
  }

  take(host: H): T | undefined {
    for (let entry = host.queue.popEntry(); entry !== undefined; entry = host.queue.popEntry()) {
      // An entry whose URL left the queue is stale; one whose priority has since dropped goes back at its new place.
      if (this.#queued.get(entry.id) !== host.id) continue;
      const current = this.#ordering.priority(entry.id);
      if (current < entry.priority) {
        this.#enqueue(host, entry.id, current);
        continue;
      }
      const task = this.#store.queued(entry.id);
      if (task === undefined) {
        // The store no longer hands it out (another state, or not for this run): it leaves the queue's counts too.
        this.#queued.delete(entry.id);
        continue;
      }
      this.#queued.delete(task.id);
      if (this.#settings.maxPagesPerHost > 0 && task.revisit !== true && host.pagesFetched >= this.#settings.maxPagesPerHost) {
        this.#store.passOver(task.id, 'skipped', 'host-budget');
        this.close(host, 'skipped', 'host-budget');
        return undefined;
      }
      const blocked = this.#policy.robotsBlockReason(host, task.url);
      if (blocked === null) {
        this.#store.markInflight(task.id);
        return task;
      }
      this.#store.passOver(task.id, 'robots-blocked', blocked);
      this.#policy.blocked(task, blocked);
    }
    return undefined;
  }

  /**
   * Waits for a turn of the host, as polite as a page's, for a request a render makes; the
   * turn goes before the host's queued URLs. Resolves with the function that ends the turn
   * (with the response time, for the politeness wait). Rejects when `signal` aborts first.
   */
  requestTurn(host: H, signal: AbortSignal): Promise<(responseMs: number) => void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const waiting = this.#turnRequests.get(host.id) ?? [];
      const request: TurnRequest = {
        grant: (end) => {
          signal.removeEventListener('abort', onAbort);
          resolve(end);
        },
      };
      const onAbort = (): void => {
        const index = waiting.indexOf(request);
        if (index === -1) return;
        waiting.splice(index, 1);
        host.turnsWanted--;
        reject(signal.reason);
      };
      waiting.push(request);
      this.#turnRequests.set(host.id, waiting);
      host.turnsWanted++;
      signal.addEventListener('abort', onAbort, { once: true });
      this.#scheduler.offer(host);
    });
  }

  /** In a host's turn: lends it to the first waiting requestTurn, resolving with its response time when it ends; undefined when none waits. */
  lendTurn(host: H): Promise<number> | undefined {
    const request = this.#turnRequests.get(host.id)?.shift();
    if (request === undefined) return undefined;
    host.turnsWanted--;
    return new Promise((done) => request.grant(done));
  }

  nextLentTurn(now: number, admit?: (priority: number) => boolean): NextHost<H> {
    let until = Number.POSITIVE_INFINITY;
    for (const [hostId, waiting] of this.#turnRequests) {
      if (waiting.length === 0) {
        this.#turnRequests.delete(hostId);
        continue;
      }
      const host = this.#hosts.get(hostId);
      if (host === undefined || host.inflight) continue;
      if (host.nextAllowedAt <= now) {
        // A render waits on this turn: it goes before any queued URL.
        if (admit !== undefined && !admit(Number.POSITIVE_INFINITY)) return { kind: 'held' };
        // It may sit in the scheduler's heaps as well: it leaves the ready ones, and the waiting one passes over a host in flight.
        this.#setInflight(host, true);
        this.#scheduler.withdraw(host);
        return { kind: 'host', host };
      }
      until = Math.min(until, host.nextAllowedAt);
    }
    return Number.isFinite(until) ? { kind: 'wait', until } : { kind: 'idle' };
  }

  reclaim(host: H, urlId: number): void {
    // The host is in flight: release() offers it to the scheduler again.
    this.#enqueue(host, urlId);
  }

  pageFetched(host: H): void {
    host.pagesFetched++;
  }

  release(host: H, responseMs: number, backoffMs = 0): void {
    this.#setInflight(host, false);
    this.#unavailable.delete(host);
    const wait = politeWaitMs(this.#settings, responseMs, this.#policy.crawlDelaySeconds(host));
    host.nextAllowedAt = this.#now() + Math.max(wait, backoffMs);
    this.#scheduler.offer(host);
  }

  park(host: H): void {
    this.#setInflight(host, false);
    this.#unavailable.add(host);
  }

  unpark(host: H): void {
    this.#unavailable.delete(host);
    this.#scheduler.offer(host);
  }

  stalled(host: H): void {
    if (host.inflight) this.#unavailable.add(host);
  }

  close(host: H, as: PassedOver, reason: string): void {
    this.#store.transaction(() => {
      for (const id of host.queue.ids()) {
        if (this.#queued.get(id) !== host.id) continue;
        this.#queued.delete(id);
        this.#store.passOver(id, as, reason);
      }
    });
    host.queue.clear();
  }

  top(limit: number): { urlId: number; priority: number }[] {
    const top = new TopEntries(limit);
    this.#queued.forEachQueued((urlId) => top.offer(urlId, this.#ordering.priority(urlId)));
    return top.best();
  }

  politeUntil(): number {
    let until = 0;
    for (const host of this.#hosts.values()) until = Math.max(until, host.nextAllowedAt);
    return until;
  }

  activity(limit: number): FrontierHostActivity[] {
    const queued = new Map<number, { count: number; best: number }>();
    this.#queued.forEachQueued((urlId, hostId) => {
      const priority = this.#ordering.priority(urlId);
      const seen = queued.get(hostId);
      if (seen === undefined) queued.set(hostId, { count: 1, best: priority });
      else {
        seen.count++;
        if (priority > seen.best) seen.best = priority;
      }
    });
    let fetchedAll = 0;
    for (const host of this.#hosts.values()) fetchedAll += host.pagesFetched;
    const now = this.#now();
    const hosts: FrontierHostActivity[] = [];
    for (const host of this.#hosts.values()) {
      const waiting = queued.get(host.id);
      if (waiting === undefined && !host.inflight) continue;
      hosts.push({
        origin: host.origin,
        queued: waiting?.count ?? 0,
        bestPriority: waiting?.best ?? null,
        pagesFetched: host.pagesFetched,
        fetchShare: fetchedAll === 0 ? 0 : host.pagesFetched / fetchedAll,
        nextAllowedAt: host.nextAllowedAt > now ? new Date(host.nextAllowedAt).toISOString() : null,
        inFlight: host.inflight,
      });
    }
    // The hosts holding the best URLs first: where the crawl's next turns go.
    hosts.sort((a, b) => (b.bestPriority ?? Number.NEGATIVE_INFINITY) - (a.bestPriority ?? Number.NEGATIVE_INFINITY) || b.queued - a.queued || a.origin.localeCompare(b.origin));
    return hosts.slice(0, limit);
  }

  get hostCount(): number {
    return this.#hosts.size;
  }

  readonly #turnRequests = new Map<number, TurnRequest[]>();
  #inflightHosts = 0;
  /** Parked hosts, and hosts whose request stepped aside: their URLs hold no one back. */
  readonly #unavailable = new Set<H>();

  #setInflight(host: H, inflight: boolean): void {
    if (host.inflight !== inflight) this.#inflightHosts += inflight ? 1 : -1;
    host.inflight = inflight;
  }

  #enqueue(host: H, urlId: number, priority = this.#ordering.priority(urlId)): void {
    this.#queued.set(urlId, host.id, priority);
    // Re-prioritised URLs leave stale entries behind: drop them before the heap grows, so its
    // size follows the host's queued URLs, not the number of priority changes.
    if (host.queue.full) host.queue.compact((id) => (this.#queued.get(id) === host.id ? this.#ordering.priority(id) : undefined));
    host.queue.push(urlId, priority);
  }
}
