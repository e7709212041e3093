import zlib from 'node:zlib';
import { type ContentCoding, looksLikeZlibHeader, parseContentCodings } from '../net/content-coding.ts';
import { ImportError } from './import-error.ts';

/** Codings in the order they were applied, identity dropped; the ones the crawler accepts and no others. */
function parseCodings(header: string, url: string): ContentCoding[] {
  const parsed = parseContentCodings(header);
  if ('unsupported' in parsed) throw new ImportError(`the response for ${url} has an unsupported content-encoding "${parsed.unsupported}"`, { url, contentEncoding: header });
  return parsed.codings;
}

function decodeOne(input: Buffer, coding: ContentCoding, maxOutputLength: number): Buffer {
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
    const coding = codings[i] as ContentCoding;
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
