/**
 * CDXJ index lines for a WACZ: `<SURT> <14-digit timestamp> <JSON>`, sorted so that a
 * replay tool can binary-search them.
 */

/**
 * The SURT key of a URL as webrecorder's tools compute it (warcio.js `getSurt`, which
 * ReplayWeb.page uses for its lookups): scheme and a leading `www`/`wwwN` label dropped,
 * everything lowercased, host labels reversed and joined with commas, a non-default port
 * kept, then `)`, the path, and the query's parameters sorted. Unlike Python's `surt`,
 * IP addresses are reversed too. Anything but http(s) is its own key.
 */
export function surt(url: string): string {
  if (!url.startsWith('http:') && !url.startsWith('https:')) return url;
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^(https?:\/\/)www\d*\./, '$1').toLowerCase());
  } catch {
    return url;
  }
  let key = parsed.hostname.split('.').reverse().join(',');
  if (parsed.port !== '') key += `:${parsed.port}`;
  key += `)${parsed.pathname}`;
  if (parsed.search !== '') key += `?${parsed.search.slice(1).split('&').sort().join('&')}`;
  return key;
}

/** `YYYYMMDDhhmmss` in UTC, the timestamp form of CDX indexes. */
export function cdxTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export interface CdxjEntry {
  url: string;
  /** Epoch ms of the capture (the response's WARC-Date). */
  date: number;
  /** The response's Content-Type without parameters; null when it had none. */
  mime: string | null;
  status: number;
  /** The WARC-Payload-Digest, `sha256:<hex>`; null when the record has none (a server-not-modified revisit). */
  payloadDigest: string | null;
  /** Where the response record's gzip member starts in the WARC, and its length. */
  offset: number;
  length: number;
  /** The WARC's name inside the WACZ's `archive/` folder. */
  filename: string;
}

/**
 * One line as warcio.js's `cdx-index` writes it (and ReplayWeb.page reads it): status,
 * length and offset as strings, the digest without its algorithm prefix, and no digest when
 * the record has none.
 */
export function cdxjLine(entry: CdxjEntry): string {
  const { payloadDigest } = entry;
  const json = {
    url: entry.url,
    mime: entry.mime,
    status: String(entry.status),
    ...(payloadDigest !== null && { digest: payloadDigest.slice(payloadDigest.indexOf(':') + 1) }),
    length: String(entry.length),
    offset: String(entry.offset),
    filename: entry.filename,
  };
  return `${surt(entry.url)} ${cdxTimestamp(entry.date)} ${JSON.stringify(json)}`;
}

/** The MIME type of a Content-Type value, as an index records it. */
export function indexMime(contentType: string | null): string | null {
  if (contentType === null) return null;
  return contentType.split(';', 1)[0]?.trim() ?? null;
}

/**
 * Sorts lines in place by key, then timestamp, as `sort` with LC_ALL=C would: keys are
 * ASCII (URLs are stored percent-encoded), so comparing code units is comparing bytes.
 */
export function sortCdxjLines(lines: string[]): string[] {
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
