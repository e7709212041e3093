/* The engine's public types: its events, how a run ends, and the links it admits from outside its loop. */

import type { RecordedPage } from './page-recorder.ts';
import type { RevisitOutcome } from '../store/version-store.ts';

/**
 * How a run ended; 'store-error' pauses the crawl because the collection could not be written (see storeError),
 * 'proxy-unreachable' because the proxy failed every request for a while (see proxyError).
 */
export type RunOutcome = 'budget' | 'exhausted' | 'stopped' | 'store-error' | 'proxy-unreachable';

/** A link that arrives from another shard (or a seed sent to its partition), to admit here. */
export interface IncomingLink {
  url: string;
  depth: number;
  anchor: string;
  context: string;
  isSeed: boolean;
  /** The relevance the sending shard's judge gave the page the link is on. */
  parentRelevance?: number;
}

export interface PageEvent extends RecordedPage {
  url: string;
  depth: number;
}

export interface FailureEvent {
  url: string;
  reason: string;
  willRetry: boolean;
}

/** A queued URL that robots.txt forbids, recorded as robots-blocked when its host's turn came. */
export interface BlockedEvent {
  url: string;
  reason: string;
}

export type EngineState = 'running' | 'paused';

/** The engine's events and their arguments: listeners are checked against these. */
export interface CrawlEngineEvents {
  /** A response was stored (a page or a site resource). */
  page: [page: PageEvent];
  /** A request failed; `willRetry` tells whether the URL went back in the queue. */
  failure: [failure: FailureEvent];
  blocked: [blocked: BlockedEvent];
  /** run() made the frontier ready and dispatches from now on; with the CPU milliseconds the preparation took. */
  ready: [cpuMs: number];
  /** pause() and resume(). */
  state: [state: EngineState];
  /** A stored page was revisited. */
  revisit: [revisit: RevisitEvent];
}

/** A revisit's outcome, for listeners. */
export interface RevisitEvent {
  url: string;
  seq: number;
  outcome: RevisitOutcome;
}
