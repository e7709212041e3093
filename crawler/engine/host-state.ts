import type { FrontierHost } from '../frontier/frontier-host.ts';
import type { Simhash } from '../relevance/simhash.ts';
import type { RobotsFile } from '../robots/index.ts';

/** What robots.txt currently says for a host. */
export type RobotsVerdict =
  | { kind: 'unknown' }
  | { kind: 'rules'; robots: RobotsFile; fetchedAt: number }
  /** Rules stored by an earlier run and not read yet: a host's robots.txt is parsed when the host first needs it. */
  | { kind: 'stored'; fetchedAt: number }
  | { kind: 'allow-all'; fetchedAt: number }
  /** `cause` is why the last fetch gave nothing usable: a fetch failure reason (`tls`, `timeout:headers`, …) or `http:<status>`. */
  | { kind: 'disallow-all'; fetchedAt: number; failures: number; cause: string };

/**
 * In-memory state of one origin during a run: the frontier's part (queue, politeness clock,
 * pages fetched) and robots.txt's verdict. The hosts table holds what must survive a restart.
 */
export interface HostState extends FrontierHost {
  robots: RobotsVerdict;
  /**
   * The simhash of the host's 200 answer for a page that does not exist, to recognise its soft
   * 404s; null when it answers such paths properly (or the probe said nothing); undefined
   * until it is asked.
   */
  soft404?: Simhash | null;
  /** True while the host's last page went to the browser: when the render queue is full, the host waits rather than piling up pages. */
  rendersPages?: boolean;
  /** True while the host's last page had requisites to fetch: when their queue is full, the host waits (a host whose pages need none goes on). */
  feedsRequisites?: boolean;
}

/** RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours. */
export const ROBOTS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
