import zlib from 'node:zlib';
import { ImportError } from './import-error.ts';

type Coding = 'gzip' | 'deflate' | 'br';

/** Codings in the order they were applied, identity dropped; the ones the crawler accepts and no others. */
function parseCodings(header: string, url: string): Coding[] {
  const codings: Coding[] = [];
  for (const part of header.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') codings.push('gzip');
    else if (coding === 'deflate' || coding === 'br') codings.push(coding);
    else throw new ImportError(`the response for ${url} has an unsupported content-encoding "${coding}"`, { url, contentEncoding: header });
  }
  return codings;
}

/** RFC 1950 header check: 'deflate' is meant zlib-wrapped, but some servers send raw deflate, which browsers accept. */
function looksLikeZlibHeader(bytes: Buffer): boolean {
  const cmf = bytes[0] ?? 0;
  const flg = bytes[1] ?? 0;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

function decodeOne(input: Buffer, coding: Coding, maxOutputLength: number): Buffer {
  // The crawler's decoder starts on the first byte, so an empty body with a Content-Encoding is empty.
  if (input.length === 0) return input;
  if (coding === 'gzip') return zlib.gunzipSync(input, { maxOutputLength });
  if (coding === 'br') return zlib.brotliDecompressSync(input, { maxOutputLength });
  return looksLikeZlibHeader(input) ? zlib.inflateSync(input, { maxOutputLength }) : zlib.inflateRawSync(input, { maxOutputLength });
}

/**
 * Removes the Content-Encoding from a payload as received, giving the decoded body the
 * crawler parsed. Decompression stops at maxDecodedBytes, so a bomb cannot exhaust memory.
 */
export function decodeContent(payload: Buffer, contentEncoding: string | undefined, maxDecodedBytes: number, url: string): Buffer {
  if (contentEncoding === undefined) return payload;
  const codings = parseCodings(contentEncoding, url);
  let body = payload;
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i] as Coding;
    try {
      body = decodeOne(body, coding, maxDecodedBytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new ImportError(`the response for ${url} decodes to more than ${maxDecodedBytes} bytes`, { url, limit: maxDecodedBytes }, { cause: err });
      }
      throw new ImportError(`the ${coding} body of ${url} is corrupt: ${err instanceof Error ? err.message : String(err)}`, { url, coding }, { cause: err });
    }
  }
  return body;
}
