import { gzipSync } from 'node:zlib';
import { decodeHtml } from './charset.ts';
import { isParseableHtml, parseContentType, sniffLooksBinary } from './content-type.ts';
import { extractHtml, parseRobotsDirectives, type ExtractedPage } from './extract-html.ts';

/** What the parser needs from one HTTP response. Plain data, so it can cross to a worker thread. */
export interface ResponseInput {
  url: string;
  status: number;
  contentType: string | undefined;
  xRobotsTag: string | undefined;
  body: Uint8Array | undefined;
  agentToken: string;
  maxLinks: number;
}

/** What the recorder stores for a response. */
export interface ResponseAnalysis {
  /** Why the body was not parsed, or that links were dropped; null for an ordinary page. */
  note: string | null;
  charset: string | null;
  page: ExtractedPage | null;
  noindex: boolean;
  nofollow: boolean;
  /** The decoded body, gzipped for storage; null when there was none. */
  storedBody: Uint8Array | null;
}

/**
 * Decides whether a response is HTML worth parsing, decodes and parses it, and
 * compresses the body for storage. Pure CPU work: it runs in a parse worker.
 */
export function analyseResponse(input: ResponseInput): ResponseAnalysis {
  const headerRobots = parseRobotsDirectives(input.xRobotsTag ?? '', input.agentToken);
  const storedBody = input.body !== undefined && input.body.length > 0 ? gzipSync(input.body, { level: 6 }) : null;
  const base: ResponseAnalysis = { note: null, charset: null, page: null, noindex: headerRobots.noindex, nofollow: headerRobots.nofollow, storedBody };
  if (input.status < 200 || input.status >= 300) return base;
  const type = parseContentType(input.contentType);
  if (!isParseableHtml(type.mime)) return { ...base, note: `not-html:${type.mime || 'unknown'}` };
  if (input.body === undefined) return { ...base, note: 'no-body' };
  if (sniffLooksBinary(input.body)) return { ...base, note: `content-type-mismatch:${type.mime}` };
  const decoded = decodeHtml(input.body, type.charset);
  const page = extractHtml(decoded.text, input.url, { maxLinks: input.maxLinks, agentToken: input.agentToken });
  return {
    ...base,
    note: page.linksDropped > 0 ? `links-dropped:${page.linksDropped}` : null,
    charset: decoded.charset,
    page,
    noindex: headerRobots.noindex || page.robots.noindex,
    nofollow: headerRobots.nofollow || page.robots.nofollow,
  };
}
