/** The Content-Encodings the crawler accepts, shared by the fetcher and by WACZ import. */
export type ContentCoding = 'gzip' | 'deflate' | 'br';

/**
 * The most codings a body may stack. Real servers apply one; two is the most any standard
 * use makes of the chain. Each layer can inflate a thousandfold, and `gzip` two hundred times
 * over costs CPU for nothing.
 */
export const MAX_CONTENT_CODINGS = 2;

/**
 * A Content-Encoding header as the codings in the order they were applied, identity
 * dropped, or what we do not accept: the first unknown coding, or `unsupported` naming a
 * chain longer than MAX_CONTENT_CODINGS.
 */
export function parseContentCodings(header: string): { codings: ContentCoding[] } | { unsupported: string } {
  const codings: ContentCoding[] = [];
  for (const part of header.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') codings.push('gzip');
    else if (coding === 'deflate' || coding === 'br') codings.push(coding);
    else return { unsupported: coding };
    if (codings.length > MAX_CONTENT_CODINGS) return { unsupported: `a chain of more than ${MAX_CONTENT_CODINGS} codings` };
  }
  return { codings };
}

/** RFC 1950 header check: 'deflate' is meant zlib-wrapped, but some servers send raw deflate, which browsers accept. */
export function looksLikeZlibHeader(bytes: Buffer): boolean {
  const cmf = bytes[0] ?? 0;
  const flg = bytes[1] ?? 0;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}
