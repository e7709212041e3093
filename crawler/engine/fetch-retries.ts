import { FetchError, ForagerError } from '../errors.ts';
import type { Frontier } from '../frontier/crawl-frontier.ts';
import { retryBackoffMs, type PolitenessSettings } from '../frontier/politeness.ts';
import type { FetchResult } from '../net/fetch-page.ts';
import { isProxyOutage } from '../net/proxy-failure.ts';
import { retryAfterMs } from '../net/retry-after.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { storeErrorOf } from '../store/store-error.ts';
import type { QueuedUrl, UrlStore } from '../store/url-store.ts';
import type { FailureEvent } from './engine-types.ts';
import type { HostState } from './host-state.ts';

/** How long a host waits after its request failed on the proxy (the host's own politeness does not apply: the proxy failed, not the host). */
export const PROXY_RETRY_MS = 1_000;

/** Ends a host's turn: how long its request took, and how much longer the host must wait. */
export type ReleaseHost = (responseMs: number, backoffMs?: number) => void;

/** What an answer means for its URL: retried later, or kept with its failure reason (null for an ordinary answer). */
export type AnswerFate = { retried: true } | { retried: false; failure: string | null };

/** What the retry rules act on. */
export interface RetryContext {
  settings: Pick<CrawlSettings, 'maxRetries' | 'maxRetryAfterMs'>;
  politeness: PolitenessSettings;
  urls: UrlStore;
  frontier: Frontier<HostState, QueuedUrl>;
  /** Aborted when the crawl's requests are cancelled. */
  signal: AbortSignal;
  /** An error that must stop the run (the store's, or an unexpected one). */
  onTaskError(err: unknown): void;
  /** Listeners hear of each failure. */
  failed(failure: FailureEvent): void;
}

/** When a fetch is tried again, and what a failed one leaves behind: one rule for page fetches and revisits. */
export class FetchRetries {
  readonly #c: RetryContext;

  constructor(context: RetryContext) {
    this.#c = context;
  }

  /**
   * What follows a response for the host and the URL. A 5xx or 429 with attempts left, whose
   * Retry-After (the server's word on how long to leave it alone) is within the cap, goes back
   * to the queue. Otherwise the host is released, waiting what the server asked within the
   * cap, and the answer's failure reason is given: null for an ordinary answer.
   */
  afterAnswer(host: HostState, task: QueuedUrl, result: FetchResult, release: ReleaseHost): AnswerFate {
    const { settings } = this.#c;
    const retryable = result.status >= 500 || result.status === 429;
    const askedWaitMs = retryable ? retryAfterMs(result.headers['retry-after'], Date.now()) : undefined;
    const waitTooLong = askedWaitMs !== undefined && askedWaitMs > settings.maxRetryAfterMs;
    if (retryable && !waitTooLong && task.attempts < settings.maxRetries) {
      this.#retry(host, task, `http:${result.status}`, result.timings.totalMs, release, askedWaitMs);
      return { retried: true };
    }
    release(result.timings.totalMs, Math.min(askedWaitMs ?? 0, settings.maxRetryAfterMs));
    return { retried: false, failure: retryable ? `http:${result.status}${waitTooLong ? ':retry-after-too-long' : ''}` : null };
  }

  /**
   * A fetch that threw. Cancelled by an abort, the URL goes back to the queue (if the store
   * cannot even record that, it stays in flight and the next run requeues it); a retryable
   * failure with attempts left is retried; otherwise `giveUp` records the URL's end with the
   * reason, and listeners hear of the failure.
   */
  afterError(host: HostState, task: QueuedUrl, err: unknown, responseMs: number, release: ReleaseHost, giveUp: (reason: string) => void): void {
    const c = this.#c;
    const storeError = storeErrorOf(err);
    if (storeError !== undefined) c.onTaskError(storeError);
    if (c.signal.aborted) {
      this.requeueQuietly(task.id);
      c.frontier.reclaim(host, task.id);
      release(responseMs);
      return;
    }
    const reason = failureReason(err);
    if (isProxyOutage(reason)) {
      // The proxy's failure, not the URL's: it waits for the proxy without using an attempt (a dead proxy pauses the crawl).
      c.urls.requeueKeepingAttempts(task.id, reason);
      c.frontier.reclaim(host, task.id);
      release(responseMs, PROXY_RETRY_MS);
      c.failed({ url: task.url, reason, willRetry: true });
      return;
    }
    if (err instanceof FetchError && err.retryable && task.attempts < c.settings.maxRetries) {
      this.#retry(host, task, reason, responseMs, release);
      return;
    }
    giveUp(reason);
    release(responseMs);
    c.failed({ url: task.url, reason, willRetry: false });
  }

  /** Puts a URL back in its queue untried; a store that refuses even that stops the run (the next run requeues it). */
  requeueQuietly(urlId: number): void {
    try {
      this.#c.urls.returnToQueue(urlId);
    } catch (err) {
      this.#c.onTaskError(err);
    }
  }

  /** Puts the URL back for another attempt; its host waits the back-off, or what the server asked if longer. */
  #retry(host: HostState, task: QueuedUrl, reason: string, responseMs: number, release: ReleaseHost, askedWaitMs = 0): void {
    const c = this.#c;
    c.urls.requeueAfterFailure(task.id, reason);
    c.frontier.reclaim(host, task.id);
    release(responseMs, Math.max(retryBackoffMs(c.politeness, task.attempts + 1), askedWaitMs));
    c.failed({ url: task.url, reason, willRetry: true });
  }
}

/** The reason recorded for a URL whose fetch or parse failed. */
function failureReason(err: unknown): string {
  if (err instanceof FetchError) return err.reason;
  if (err instanceof ForagerError && err.code === 'PARSE_TIMEOUT') return 'parse:timeout';
  if (err instanceof ForagerError && err.code === 'PARSE_FAILED') return 'parse:failed';
  return `error:${err instanceof Error ? err.message : String(err)}`;
}
