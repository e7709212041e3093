/** Frontier state of a URL row. Stored as small integers to keep the urls table compact. */
export const UrlState = {
  queued: 0,
  inflight: 1,
  fetched: 2,
  failed: 3,
  skipped: 4,
  robotsBlocked: 5,
} as const;

export type UrlStateValue = (typeof UrlState)[keyof typeof UrlState];

export const URL_STATE_NAMES: Record<UrlStateValue, string> = {
  0: 'queued',
  1: 'inflight',
  2: 'fetched',
  3: 'failed',
  4: 'skipped',
  5: 'robots-blocked',
};
