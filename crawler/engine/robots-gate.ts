import { isProxyOutage } from '../net/proxy-failure.ts';
import { crawlDelaySeconds, isAllowed, productToken, robotsPolicyFromStatus, ROBOTS_MAX_BYTES } from '../robots/index.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import type { HostRow, HostStore } from '../store/host-store.ts';
import { ROBOTS_MAX_AGE_MS, type HostState, type RobotsVerdict } from './host-state.ts';

/** Outcome of asking an origin for /robots.txt, after following up to 5 redirects. */
export type RobotsFetchOutcome =
  | { kind: 'response'; status: number; body: Buffer | undefined; responseMs: number }
  | { kind: 'failure'; reason: string; responseMs: number };

export type RobotsFetcher = (origin: string) => Promise<RobotsFetchOutcome>;

/**
 * Called each time a fetch of a host's robots.txt gives a usable verdict (rules, or none at
 * all), in the transaction that saves it: what it sets off (admitting the host's sitemaps)
 * is stored exactly when the verdict is, so a crash cannot lose it.
 */
export type RobotsUsableHook = (host: HostState) => void;

/** The settings RobotsGate reads: the product token's source, and how long and how often an unavailable robots.txt is retried. */
export type RobotsGateSettings = Pick<CrawlSettings, 'userAgent' | 'robotsRetryMs' | 'robotsMaxAttempts'>;

/** Stored in hosts.robots_status when robots.txt could not be fetched at all. */
const UNREACHABLE_STATUS = -1;

/**
 * Applies RFC 9309 per origin: fetch /robots.txt once, cache it (in memory and in the
 * collection, for at most 24 hours), and answer whether a URL may be fetched.
 * 2xx: the rules; 4xx: no restrictions; 5xx or unreachable: nothing allowed, retried later.
 */
export class RobotsGate {
  readonly #settings: RobotsGateSettings;
  readonly #hosts: HostStore;
  readonly #fetch: RobotsFetcher;
  readonly #onUsable: RobotsUsableHook;
  readonly #agent: string;

  constructor(settings: RobotsGateSettings, hosts: HostStore, fetch: RobotsFetcher, onUsable: RobotsUsableHook = () => undefined) {
    this.#settings = settings;
    this.#hosts = hosts;
    this.#fetch = fetch;
    this.#onUsable = onUsable;
    this.#agent = productToken(settings.userAgent);
  }

  /**
   * Rebuilds a host's verdict from what the collection stored in an earlier run. Stored rules
   * stay unread until the host needs them: a run starts without loading every host's file.
   */
  restore(row: HostRow): RobotsVerdict {
    if (row.robotsFetchedAt === null || row.robotsStatus === null) return { kind: 'unknown' };
    if (row.robotsStatus >= 200 && row.robotsStatus < 300) return { kind: 'stored', fetchedAt: row.robotsFetchedAt };
    return verdictFor(row.robotsStatus, undefined, row.robotsFetchedAt, row.robotsFailures, causeOfStatus(row.robotsStatus));
  }

  /** The host's verdict with stored rules read and parsed. */
  #loaded(host: HostState): RobotsVerdict {
    if (host.robots.kind === 'stored') {
      const body = this.#hosts.robotsBody(host.id) ?? Buffer.alloc(0);
      // Files stored before the cap was kept on storing are cut as a fresh fetch would be.
      host.robots = verdictFor(200, body.subarray(0, ROBOTS_MAX_BYTES), host.robots.fetchedAt, 0, '');
    }
    return host.robots;
  }

  needsFetch(host: HostState, now: number): boolean {
    const r = host.robots;
    if (r.kind === 'unknown') return true;
    if (r.kind === 'disallow-all') return now - r.fetchedAt >= this.#settings.robotsRetryMs;
    return now - r.fetchedAt >= ROBOTS_MAX_AGE_MS;
  }

  /** True while robots.txt is unavailable but will be asked for again: the host's URLs must wait. */
  awaitingRetry(host: HostState): boolean {
    return host.robots.kind === 'disallow-all' && !this.givenUp(host);
  }

  /** True when robots.txt stayed unavailable for as many attempts as the settings allow. */
  givenUp(host: HostState): boolean {
    return host.robots.kind === 'disallow-all' && host.robots.failures >= this.#settings.robotsMaxAttempts;
  }

  /** The reason recorded on a host's URLs once its robots.txt is given up: `robots:unavailable:<why>`, e.g. `robots:unavailable:tls`. */
  unavailableReason(host: HostState): string {
    return host.robots.kind === 'disallow-all' ? `robots:unavailable:${host.robots.cause}` : 'robots:unavailable:unreachable';
  }

  /** Fetches robots.txt for the host and records the verdict. Returns the fetch outcome (its time counts for politeness). */
  async refresh(host: HostState): Promise<RobotsFetchOutcome> {
    const outcome = await this.#fetch(host.origin);
    // The proxy failed, or the crawl cancelled the fetch, not the host: robots.txt stays as it was and is asked for again, no attempt counted.
    if (outcome.kind === 'failure' && (isProxyOutage(outcome.reason) || outcome.reason === 'aborted')) return outcome;
    const now = Date.now();
    const previousFailures = host.robots.kind === 'disallow-all' ? host.robots.failures : 0;
    const status = outcome.kind === 'response' ? outcome.status : UNREACHABLE_STATUS;
    // The fetch stops decoding at ROBOTS_MAX_BYTES; the cut here keeps what is stored within it whatever the fetcher did.
    const body = outcome.kind === 'response' && status >= 200 && status < 300 ? (outcome.body ?? Buffer.alloc(0)).subarray(0, ROBOTS_MAX_BYTES) : undefined;
    host.robots = verdictFor(status, body, now, previousFailures + 1, outcome.kind === 'failure' ? outcome.reason : causeOfStatus(status));
    const failures = host.robots.kind === 'disallow-all' ? host.robots.failures : 0;
    this.#hosts.transaction(() => {
      this.#hosts.saveRobots(host.id, status, body ?? null, now, failures);
      if (host.robots.kind === 'rules' || host.robots.kind === 'allow-all') this.#onUsable(host);
    });
    return outcome;
  }

  /** null when the URL may be fetched, or the reason it may not. */
  blockReason(host: HostState, url: string): string | null {
    const r = this.#loaded(host);
    switch (r.kind) {
      case 'unknown':
      case 'allow-all':
      case 'stored':
        return null;
      case 'disallow-all':
        // Until the retries are used up, URLs wait in the queue rather than being written off.
        return this.givenUp(host) ? this.unavailableReason(host) : null;
      case 'rules': {
        const parsed = new URL(url);
        return isAllowed(r.robots, this.#agent, parsed.pathname + parsed.search) ? null : 'robots:disallowed';
      }
    }
  }

  crawlDelaySeconds(host: HostState): number | undefined {
    const r = this.#loaded(host);
    return r.kind === 'rules' ? crawlDelaySeconds(r.robots, this.#agent) : undefined;
  }
}

/** What a stored status says about why robots.txt was unavailable (the failure's own reason is not stored). */
function causeOfStatus(status: number): string {
  return status === UNREACHABLE_STATUS ? 'unreachable' : `http:${status}`;
}

/** `failures` counts unavailable fetches in a row, this one included if it failed; `cause` is why this one gave nothing usable. */
function verdictFor(status: number, body: Buffer | undefined, fetchedAt: number, failures: number, cause: string): RobotsVerdict {
  // A network failure is stored as status -1, which the RFC 9309 mapping reads as unreachable.
  const policy = robotsPolicyFromStatus(status, body);
  switch (policy.kind) {
    case 'rules':
      return { kind: 'rules', robots: policy.robots, fetchedAt };
    case 'allow-all':
      return { kind: 'allow-all', fetchedAt };
    case 'disallow-all':
      return { kind: 'disallow-all', fetchedAt, failures, cause };
  }
}
