/**
 * A Retry-After header (RFC 9110 §10.2.3) as milliseconds to wait from `now`: either
 * delay-seconds or an HTTP-date. Undefined when absent or unreadable; a date in the past
 * means no wait.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Date.parse reads IMF-fixdate and the obsolete forms servers still send; nothing else looks like a date here.
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
