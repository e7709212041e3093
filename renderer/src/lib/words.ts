/* What the service's short codes mean, in words. */
import { PROXY_UNREACHABLE_OUTCOME, STORE_ERROR_OUTCOME, type CrawlProblem, type CrawlState, type RevisitOutcome } from '../../../crawler/protocol/api.ts';
import { formatCount } from './format.ts';

/** A run's state; a running refresh says so. */
export function describeState(state: CrawlState, refreshing = false): string {
  switch (state) {
    case 'idle':
      return 'Not crawling';
    case 'running':
      return refreshing ? 'Refreshing' : 'Crawling';
    case 'paused':
      return 'Paused';
    case 'stopping':
      return 'Stopping';
  }
}

/** Why the last refresh ended; null when none did. */
function describeRefreshOutcome(outcome: string | null, maxFetches: number): string | null {
  switch (outcome) {
    case 'budget':
      return `The last refresh made the ${formatCount(maxFetches)} fetches it was allowed; refresh again to revisit the pages still due.`;
    case 'exhausted':
      return 'The last refresh revisited every page that was due.';
    case 'stopped':
      return 'The last refresh was stopped; refreshing again goes on where it stopped.';
    default:
      return null;
  }
}

/** Why the last run ended (a refresh when `refreshFetches` is its budget); null when there was none. */
export function describeOutcome(outcome: string | null, maxPages: number, refreshFetches?: number): string | null {
  if (refreshFetches !== undefined) {
    const words = describeRefreshOutcome(outcome, refreshFetches);
    if (words !== null) return words;
  }
  switch (outcome) {
    case null:
      return null;
    case 'budget':
      return `The last run stopped at the page budget (${formatCount(maxPages)} pages). Raise the budget to go on.`;
    case 'exhausted':
      return 'The last run ended because nothing in scope was left to crawl.';
    case 'stopped':
      return 'The last run was stopped by you.';
    default:
      if (outcome.startsWith(STORE_ERROR_OUTCOME)) {
        return `The crawl paused because the collection could not be written: ${outcome.slice(STORE_ERROR_OUTCOME.length)}. Nothing was lost: start it again once there is room.`;
      }
      if (outcome.startsWith(PROXY_UNREACHABLE_OUTCOME)) {
        return `The crawl paused because its proxy failed every request: ${outcome.slice(PROXY_UNREACHABLE_OUTCOME.length)}. Its pages stay queued: start it again once the proxy answers.`;
      }
      return `The last run ended: ${outcome}.`;
  }
}

const REASONS: Readonly<Record<string, string>> = {
  'timeout:connect': 'the server did not accept the connection in time',
  'timeout:headers': 'the server did not answer in time',
  'timeout:body': 'the page stopped arriving',
  'timeout:total': 'the page took too long to download',
  'too-large:body': 'the page is too large',
  'too-large:decoded': 'the page is too large once decompressed',
  'too-large:headers': 'the response headers are too large',
  'connection-reset': 'the connection was reset',
  'connection-refused': 'the server refused the connection',
  network: 'a network error',
  dns: 'the host name could not be found',
  'ssrf:blocked': 'the address is private (allow private addresses to crawl it)',
  tls: 'a secure-connection (TLS) error',
  protocol: 'the server broke the HTTP protocol',
  'bad-encoding': 'the content encoding could not be decoded',
  'invalid-request': 'the request could not be made',
  aborted: 'the request was cancelled',
  scope: 'outside the crawl scope',
  depth: 'deeper than the maximum depth',
  'redirect:too-many': 'too many redirects',
  'robots:disallowed': 'robots.txt forbids it',
  'proxy:refused': 'the proxy could not be reached',
  'proxy:timeout': 'no connection through the proxy in time',
  'proxy:auth': 'the proxy refused its credentials (407)',
  'proxy:bad-gateway': 'the proxy could not reach the server',
  'proxy:denied': "the proxy's rules forbid this address",
};

/** A failure or skip reason as a phrase: "http:404" → "the server answered 404". */
export function describeReason(reason: string): string {
  const known = REASONS[reason];
  if (known !== undefined) return known;
  const http = /^http:(\d{3})$/.exec(reason);
  if (http !== null) return `the server answered ${http[1]}`;
  if (reason.startsWith('trap:')) return `looks like a crawler trap (${reason.slice(5)})`;
  if (reason.startsWith('robots')) return `robots.txt: ${reason.slice(7) || 'blocked'}`;
  return reason;
}

export function describeProblemKind(kind: CrawlProblem['kind']): string {
  switch (kind) {
    case 'failure':
      return 'Error';
    case 'robots':
      return 'Robots';
    case 'skipped':
      return 'Skipped';
  }
}

/** What a revisit found, in words. */
export function describeRevisit(outcome: RevisitOutcome, status: number): string {
  switch (outcome) {
    case 'not-modified':
      return 'unchanged (the server said not modified)';
    case 'identical':
      return 'unchanged (the same page again)';
    case 'changed':
      return 'changed: a new version was stored';
    case 'gone':
      return `gone (the server answered ${status})`;
  }
}
