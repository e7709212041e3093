/** The Content-Encodings the crawler accepts, shared by the fetcher and by WACZ import. */
export type ContentCoding = 'gzip' | 'deflate' | 'br';

/**
 * A Content-Encoding header as the codings in the order they were applied, identity
 * dropped, or the first coding we do not accept.
 */
export function parseContentCodings(header: string): { codings: ContentCoding[] } | { unsupported: string } {
  const codings: ContentCoding[] = [];
  for (const part of header.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') codings.push('gzip');
    else if (coding === 'deflate' || coding === 'br') codings.push(coding);
    else return { unsupported: coding };
  }
  return { codings };
}

/** RFC 1950 header check: 'deflate' is meant zlib-wrapped, but some servers send raw deflate, which browsers accept. */
export function looksLikeZlibHeader(bytes: Buffer): boolean {
  const cmf = bytes[0] ?? 0;
  const flg = bytes[1] ?? 0;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}
