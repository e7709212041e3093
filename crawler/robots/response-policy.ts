/**
 * What a host's robots.txt fetch means for crawling it (RFC 9309 §2.3.1).
 *
 * The caller's fetcher follows redirects itself (RFC 9309 asks for at least five hops,
 * across hosts too) and reports the final status, or 'too-many-redirects' when it gave up.
 */
import { parseRobots } from './parse.ts';
import type { RobotsFile } from './parse.ts';

export type RobotsFetchOutcome =
  | { readonly status: number; readonly body?: Uint8Array | string }
  | { readonly error: 'unreachable' | 'timeout' | 'too-many-redirects' };

export type RobotsPolicy =
  | { readonly kind: 'rules'; readonly robots: RobotsFile }
  /** No restrictions: robots.txt is "unavailable" (4xx, or redirects that never end). */
  | { readonly kind: 'allow-all'; readonly reason: 'unavailable' | 'too-many-redirects' }
  /** Complete disallow until a later fetch succeeds: robots.txt is "unreachable". */
  | { readonly kind: 'disallow-all'; readonly retry: true; readonly reason: 'server-error' | 'rate-limited' | 'unreachable' | 'timeout' };

export function robotsPolicy(outcome: RobotsFetchOutcome): RobotsPolicy {
  if ('error' in outcome) {
    switch (outcome.error) {
      case 'too-many-redirects':
        // RFC 9309 §2.3.1.2: past five redirects the file MAY be taken as unavailable.
        return { kind: 'allow-all', reason: 'too-many-redirects' };
      case 'timeout':
        return { kind: 'disallow-all', retry: true, reason: 'timeout' };
      case 'unreachable':
        return { kind: 'disallow-all', retry: true, reason: 'unreachable' };
    }
  }
  return robotsPolicyFromStatus(outcome.status, outcome.body);
}

/** The policy for the final HTTP status of the robots.txt fetch, after redirects. */
export function robotsPolicyFromStatus(status: number, body?: Uint8Array | string): RobotsPolicy {
  if (status >= 200 && status <= 299) return { kind: 'rules', robots: parseRobots(body ?? '') };
  // A redirect the fetcher could not follow (no usable Location) never reaches a file.
  if (status >= 300 && status <= 399) return { kind: 'allow-all', reason: 'unavailable' };
  // 429 asks us to slow down; reading it as "no restrictions" would do the opposite.
  if (status === 429) return { kind: 'disallow-all', retry: true, reason: 'rate-limited' };
  if (status >= 400 && status <= 499) return { kind: 'allow-all', reason: 'unavailable' };
  if (status >= 500 && status <= 599) return { kind: 'disallow-all', retry: true, reason: 'server-error' };
  // Not a final HTTP status: treat as a failed fetch, the cautious reading.
  return { kind: 'disallow-all', retry: true, reason: 'unreachable' };
}
