/**
 * The HTTP messages inside WARC request and response records, as bytes. Stored header
 * text is latin1-decoded (one character per byte as it crossed the wire), so encoding it
 * back as latin1 reproduces the exact bytes, non-ASCII values included.
 */
import { FETCH_DEFAULTS } from '../../net/fetch-page.ts';
import type { ArchiveRow } from './archive-rows.ts';
import { withoutPrivateHeaderLines, withoutPrivateHeaders } from '../private-headers.ts';

/** The crawler sends this Accept-Encoding (crawler/net/fetch-page.ts); used to rebuild requests stored before schema 2. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * The payload is stored de-chunked, so a `Transfer-Encoding` header would describe framing
 * that is not there: readers would try to de-chunk the payload. It is kept under this name
 * instead, so nothing is lost and the message stays true.
 */
export const ORIGINAL_TRANSFER_ENCODING = 'X-Forager-Transfer-Encoding';

/** Status line, headers as received (Transfer-Encoding renamed, a session's and credentials' left out), and the empty line. */
export function responseHead(row: Pick<ArchiveRow, 'httpVersion' | 'statusText' | 'headers'>, status: number): Buffer {
  let head = `HTTP/${row.httpVersion ?? '1.1'} ${status} ${row.statusText ?? ''}\r\n`;
  for (const [name, value] of withoutPrivateHeaders(row.headers)) {
    head += `${name.toLowerCase() === 'transfer-encoding' ? ORIGINAL_TRANSFER_ENCODING : name}: ${value}\r\n`;
  }
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/** The request as sent (its cookies and credentials left out), or for older pages the request the crawler would have sent. */
export function requestHead(row: Pick<ArchiveRow, 'requestHead'>, url: string, userAgent: string): Buffer {
  return Buffer.from(`${row.requestHead === null ? rebuiltRequest(url, userAgent) : withoutPrivateHeaderLines(row.requestHead)}\r\n`, 'latin1');
}

function rebuiltRequest(url: string, userAgent: string): string {
  const target = new URL(url);
  return (
    `GET ${target.pathname}${target.search} HTTP/1.1\r\n` +
    `host: ${target.host}\r\n` +
    `user-agent: ${userAgent}\r\n` +
    `accept: ${FETCH_DEFAULTS.accept}\r\n` +
    `accept-encoding: ${ACCEPT_ENCODING}\r\n`
  );
}
