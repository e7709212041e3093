import { Heap } from './heap.ts';
import type { UrlHeap } from './url-heap.ts';

/** The part of a host's state the scheduler reads and writes. */
export interface SchedulableHost {
  readonly id: number;
  /** The host's queued URLs, best first. */
  readonly queue: UrlHeap;
  /** True while a request to this host is in flight: at most one at a time. */
  inflight: boolean;
  /** Epoch ms before which this host must not be asked again. */
  nextAllowedAt: number;
  /** True while the host sits in one of the scheduler's heaps. */
  scheduled: boolean;
  /** Turns asked for by renders (a subresource each): they go before the host's queued URLs. */
  turnsWanted: number;
}

export interface HostHead {
  id: number;
  priority: number;
}

interface ReadyEntry<H> {
  host: H;
  head: HostHead;
}

/** `held`: a host is ready, but whoever shares the request slots has a better URL to fetch (see next()'s `admit`). */
export type NextHost<H> = { kind: 'host'; host: H } | { kind: 'wait'; until: number } | { kind: 'idle' } | { kind: 'held' };

/** Replaced entries the ready heap may carry beyond as many as its live ones before it is made again. */
const COMPACT_SLACK = 64;

function readyHeap<H>(): Heap<ReadyEntry<H>> {
  return new Heap<ReadyEntry<H>>((a, b) => a.head.priority > b.head.priority || (a.head.priority === b.head.priority && a.head.id < b.head.id));
}

/**
 * Mercator-style host scheduling: a heap of hosts by the time they may next be asked,
 * and a heap of hosts that may be asked now, ordered by their best queued URL. So the
 * best URL of a host that may be fetched now goes first, and no host is asked early.
 * The caller may hold a ready host whose best URL is not worth a turn yet: then every
 * ready host waits (the others' best URLs are no better) until another host is ready.
 */
export class HostScheduler<H extends SchedulableHost> {
  readonly #waiting = new Heap<H>((a, b) => a.nextAllowedAt < b.nextAllowedAt);
  /** Ready hosts by their head when it was recorded; an entry replaced since (see #readyEntries) is passed over. */
  #ready = readyHeap<H>();
  /** Each ready host's live entry in #ready. */
  readonly #readyEntries = new Map<H, ReadyEntry<H>>();
  /**
   * Ready hosts that got new or re-prioritised URLs since their entry was made. Only these
   * are looked at again before a hold: a focused crawl adds URLs to some host between almost
   * every two turns, and looking at every ready host each time cost more than the ordering.
   */
  readonly #staleReady = new Set<H>();

  /** Call whenever a host may have become schedulable: new queued URLs, or its request ended. */
  offer(host: H): void {
    if (host.scheduled) {
      if (this.#readyEntries.has(host)) this.#staleReady.add(host);
      return;
    }
    if (host.inflight || (host.queue.size === 0 && host.turnsWanted === 0)) return;
    host.scheduled = true;
    this.#waiting.push(host);
  }

  /** A ready host taken outside next() (a render's lent turn) leaves the ready hosts: its release offers it again, after its wait. */
  withdraw(host: H): void {
    if (!this.#readyEntries.has(host)) return;
    this.#leaveReady(host);
  }

  /**
   * The host to ask now, or when to look again, or idle when no host has work. `hold` says
   * whether a ready host's best URL, at this priority, should wait rather than take a turn;
   * `admit`, asked last with the priority of the host that would be handed out, may keep it
   * for later (`held`, the host stays ready), as when other frontiers share the request slots.
   */
  next(now: number, hold: (priority: number) => boolean = () => false, admit?: (priority: number) => boolean): NextHost<H> {
    for (let top = this.#waiting.peek(); top !== undefined && top.nextAllowedAt <= now; top = this.#waiting.peek()) {
      this.#waiting.pop();
      // Taken meanwhile for a lent turn (CrawlFrontier.nextLentTurn): its release offers it again.
      if (top.inflight) {
        top.scheduled = false;
        continue;
      }
      const head = headOf(top);
      if (head === undefined) {
        top.scheduled = false;
        continue;
      }
      this.#enterReady(top, head);
    }
    for (let best = this.#bestReady(); best !== undefined; best = this.#bestReady()) {
      if (hold(best.head.priority)) {
        // Heads recorded before the hosts got better URLs would hold them wrongly: look again at theirs once.
        if (this.#staleReady.size === 0) return this.#waitForNextHost();
        this.#refreshStale();
        continue;
      }
      if (best.host.inflight) {
        this.#leaveReady(best.host);
        continue;
      }
      if (admit !== undefined && !admit(best.head.priority)) return { kind: 'held' };
      this.#leaveReady(best.host);
      return { kind: 'host', host: best.host };
    }
    const wake = this.#waiting.peek();
    return wake === undefined ? { kind: 'idle' } : { kind: 'wait', until: wake.nextAllowedAt };
  }

  #waitForNextHost(): NextHost<H> {
    return { kind: 'wait', until: this.#waiting.peek()?.nextAllowedAt ?? Number.POSITIVE_INFINITY };
  }

  #enterReady(host: H, head: HostHead): void {
    const entry = { host, head };
    this.#readyEntries.set(host, entry);
    this.#ready.push(entry);
    // Replaced entries leave the heap only from its top: past twice the live ones, it is made again from those.
    if (this.#ready.size > 2 * this.#readyEntries.size + COMPACT_SLACK) {
      this.#ready = readyHeap<H>();
      for (const live of this.#readyEntries.values()) this.#ready.push(live);
    }
  }

  #leaveReady(host: H): void {
    this.#readyEntries.delete(host);
    this.#staleReady.delete(host);
    host.scheduled = false;
  }

  /** The best live ready entry; replaced entries on top are dropped on the way. */
  #bestReady(): ReadyEntry<H> | undefined {
    for (let entry = this.#ready.peek(); entry !== undefined; entry = this.#ready.peek()) {
      if (this.#readyEntries.get(entry.host) === entry) return entry;
      this.#ready.pop();
    }
    return undefined;
  }

  #refreshStale(): void {
    for (const host of this.#staleReady) {
      const head = host.inflight ? undefined : headOf(host);
      if (head === undefined) this.#leaveReady(host);
      else this.#enterReady(host, head);
    }
    this.#staleReady.clear();
  }

  /** The best URL's priority of each host that may be asked now (a render's turn first, as next() sees them). */
  readyHeads(now: number, visit: (priority: number) => void): void {
    const visitHost = (host: H): void => {
      const head = host.inflight ? undefined : headOf(host);
      if (head !== undefined) visit(head.priority);
    };
    this.#readyEntries.forEach((_, host) => visitHost(host));
    this.#waiting.forEach((host) => {
      if (host.nextAllowedAt <= now) visitHost(host);
    });
  }

  get waitingCount(): number {
    return this.#waiting.size;
  }

  get readyCount(): number {
    return this.#readyEntries.size;
  }
}

/** What a host would be asked for first: a render's turn before its best queued URL. */
function headOf(host: SchedulableHost): HostHead | undefined {
  return host.turnsWanted > 0 ? { id: 0, priority: Number.POSITIVE_INFINITY } : host.queue.peek();
}
