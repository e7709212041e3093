import { firstHeader } from './header-pairs.ts';

/**
 * Where a 3xx response points: its first Location resolved against the URL that answered;
 * undefined for any other status, or when the Location is missing or not a URL. The fetch
 * and the WARC import both read redirects through this, so a crawled and an imported
 * redirect lead to the same URL.
 */
export function redirectLocation(status: number, rawHeaders: readonly (readonly [string, string])[], base: string): string | undefined {
  if (status < 300 || status >= 400) return undefined;
  const value = firstHeader(rawHeaders, 'location');
  if (value === undefined) return undefined;
  // Header values arrive latin1-decoded (one char per byte); browsers read non-ASCII Location bytes as UTF-8.
  const text = /[^\x00-\x7f]/.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value;
  try {
    return new URL(text.trim(), base).href;
  } catch {
    return undefined;
  }
}
