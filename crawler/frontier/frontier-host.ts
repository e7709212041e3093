import type { SchedulableHost } from './host-scheduler.ts';
import { UrlHeap } from './url-heap.ts';

/**
 * What the frontier keeps of one origin during a run: its queue and its politeness clock
 * (from SchedulableHost), and the pages it has fetched, for the host budget. A crawler
 * extends it with what it needs besides (the engine adds the robots.txt verdict).
 */
export interface FrontierHost extends SchedulableHost {
  readonly origin: string;
  /** Pages fetched from this host, earlier runs included. */
  pagesFetched: number;
}

/** A host as the frontier first sees it: nothing queued, nothing fetched, may be asked at once. */
export function newFrontierHost(id: number, origin: string): FrontierHost {
  return { id, origin, queue: new UrlHeap(), inflight: false, nextAllowedAt: 0, scheduled: false, pagesFetched: 0, turnsWanted: 0 };
}
