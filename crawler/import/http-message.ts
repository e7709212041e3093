import { ImportError } from './import-error.ts';

/** An HTTP response as a WARC response record holds it: status line, headers as received, payload as received. */
export interface HttpResponseBlock {
  /** '1.1' for "HTTP/1.1", as the crawler stores it. */
  httpVersion: string;
  status: number;
  statusText: string;
  rawHeaders: [string, string][];
  payload: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const STATUS_LINE = /^HTTP\/(\d(?:\.\d)?) (\d{3})(?: (.*))?$/;

/** Splits an HTTP message at the empty line; the head without its final CRLF pair. */
function splitHead(block: Buffer): { head: string; body: Buffer } | undefined {
  const end = block.indexOf(HEAD_END);
  if (end < 0) return undefined;
  // latin1 keeps every byte, as the crawler's raw headers do.
  return { head: block.subarray(0, end).toString('latin1'), body: block.subarray(end + HEAD_END.length) };
}

/** Header lines as [name, value] pairs in order; a folded line (obs-fold) continues the previous value. */
function parseHeaderLines(lines: readonly string[]): [string, string][] {
  const headers: [string, string][] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line)) {
      const last = headers.at(-1);
      if (last !== undefined) last[1] = `${last[1]} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers.push([line.slice(0, colon), line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')]);
  }
  return headers;
}

/** Parses a response record's block; an ImportError naming the URL when it is not an HTTP response. */
export function parseHttpResponse(block: Buffer, url: string): HttpResponseBlock {
  const parts = splitHead(block);
  const lines = parts?.head.split('\r\n') ?? [];
  const status = STATUS_LINE.exec(lines[0] ?? '');
  if (parts === undefined || status === null) {
    throw new ImportError(`the response record for ${url} does not hold an HTTP response`, { url });
  }
  return {
    httpVersion: status[1] as string,
    status: Number(status[2]),
    statusText: status[3] ?? '',
    rawHeaders: parseHeaderLines(lines.slice(1)),
    payload: parts.body,
  };
}

/** The request line and header lines as the crawler stores them: each ending in CRLF, without the closing empty line. */
export function requestHead(block: Buffer): string {
  const parts = splitHead(block);
  return parts === undefined ? block.toString('latin1') : `${parts.head}\r\n`;
}
