/**
 * The headers that never leave a collection: a session's cookies (sent and set) and
 * credentials. Every export (WARC request and response records, and so WACZ) drops them; the
 * collection keeps the exchange as it was, for the crawl that goes on with the same session.
 */
const PRIVATE_HEADERS: ReadonlySet<string> = new Set(['cookie', 'cookie2', 'set-cookie', 'set-cookie2', 'authorization', 'proxy-authorization']);

/** Whether a header (any case) carries a session or a credential. */
export function isPrivateHeader(name: string): boolean {
  return PRIVATE_HEADERS.has(name.trim().toLowerCase());
}

/** Header pairs without the private ones. */
export function withoutPrivateHeaders<T extends readonly [string, string]>(headers: readonly T[]): T[] {
  return headers.filter(([name]) => !isPrivateHeader(name));
}

/** A header object without the private ones. */
export function withoutPrivateHeaderFields(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !isPrivateHeader(name)));
}

/**
 * An HTTP head as text (a start line, then header lines each ending in CRLF) without the
 * private header lines; a folded continuation line of a dropped header goes with it.
 */
export function withoutPrivateHeaderLines(head: string): string {
  const lines = head.split('\r\n');
  const kept: string[] = [lines[0] as string];
  let dropping = false;
  for (const line of lines.slice(1)) {
    const continuation = line.startsWith(' ') || line.startsWith('\t');
    if (!continuation) {
      const colon = line.indexOf(':');
      dropping = colon > 0 && isPrivateHeader(line.slice(0, colon));
    }
    if (!dropping) kept.push(line);
  }
  return kept.join('\r\n');
}
