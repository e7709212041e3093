import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { deflateMemory } from '../memory/deflate-memory.ts';
import { decodeHtml } from './charset.ts';
import { isParseableHtml, parseContentType, sniffLooksBinary } from './content-type.ts';
import { extractHtml, parseRobotsDirectives, type ExtractedPage } from './extract-html.ts';
import { lineHashes } from '../relevance/template-lines.ts';
import { simhash, type Simhash } from '../relevance/simhash.ts';
import { termCounts } from '../relevance/text.ts';
import type { ResourceKind } from './resource-entries.ts';
import { analyseSiteResource, type ResourceAnalysis } from './site-resources.ts';
import type { UrlKind } from './url-kind.ts';
import { browserNeedSign } from './render-signals.ts';

/** How many of a page's distinct terms a verdict carries: enough to learn from, bounded in memory. */
export const MAX_PAGE_TERMS = 200;

/** What the parser needs from one HTTP response. Plain data, so it can cross to a worker thread. */
export interface ResponseInput {
  url: string;
  status: number;
  contentType: string | undefined;
  xRobotsTag: string | undefined;
  body: Uint8Array | undefined;
  agentToken: string;
  maxLinks: number;
  /** What the URL is expected to hold: a site resource is read as one, whatever its Content-Type. */
  kind: UrlKind;
  /** Bounds what a site resource may inflate to or hold as JSON. */
  maxDecodedBytes: number;
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
  /** Content terms (stems) with their counts, for relevance; empty unless the page was parsed. */
  titleTerms: Map<string, number>;
  bodyTerms: Map<string, number>;
  /** The page's distinct terms kept for learning (see topTerms); empty unless parsed. */
  terms: string[];
  /** Hashes of the text's lines, for the judge's navigation detection; empty unless parsed. */
  lineHashes: Uint32Array;
  /** A site resource's entries; null for a page, and for a resource response without a 2xx body. */
  resource: ResourceAnalysis | null;
  /** The simhash of a parsed page's text, for near-duplicates; null when unparsed or too short. */
  simhash: Simhash | null;
  /** SHA-256 of a parsed page's body as received (decoded), hex: the same bytes are stored once. */
  bodyHash: string | null;
  /** Why the page may need a browser to show its content (render-signals.ts); null when its HTML shows it. */
  browserNeed: string | null;
}

/** The page's distinct terms for learning: title terms first, then body terms, each by frequency. */
function topTerms(analysis: Pick<ResponseAnalysis, 'titleTerms' | 'bodyTerms'>, limit = MAX_PAGE_TERMS): string[] {
  const byCount = (m: Map<string, number>): string[] => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([t]) => t);
  const terms = new Set(byCount(analysis.titleTerms));
  for (const term of byCount(analysis.bodyTerms)) {
    if (terms.size >= limit) break;
    terms.add(term);
  }
  return [...terms].slice(0, limit);
}

/** A site resource's entries; its note says it is one ('resource:sitemap'), then what went wrong, if anything. */
function readResource(input: ResponseInput, kind: ResourceKind): Pick<ResponseAnalysis, 'note' | 'resource'> {
  const label = `resource:${kind}`;
  if (input.status < 200 || input.status >= 300) return { note: label, resource: null };
  if (input.body === undefined || input.body.length === 0) return { note: `${label} no-body`, resource: null };
  const resource = analyseSiteResource(kind, input.body, input.url, { maxDecodedBytes: input.maxDecodedBytes });
  return { note: resource.note === null ? label : `${label} ${resource.note}`, resource };
}

/**
 * gzip's fastest level: the parse worker compresses every body it stores, and on
 * python3.11-doc's 530 pages level 6 took 630 ms (a tenth of the worker's time in a crawl)
 * where level 1 takes 235 ms, for bodies 22% larger (9.8 against 8.1 MB of 54 MB decoded).
 */
const STORED_BODY_GZIP_LEVEL = 1;

/**
 * Decides whether a response is HTML worth parsing, decodes and parses it, and
 * compresses the body for storage; a site resource is read as one instead. Pure CPU
 * work: it runs in a parse worker.
 */
export function analyseResponse(input: ResponseInput): ResponseAnalysis {
  const headerRobots = parseRobotsDirectives(input.xRobotsTag ?? '', input.agentToken);
  const storedBody = input.body !== undefined && input.body.length > 0 ? gzipSync(input.body, { level: STORED_BODY_GZIP_LEVEL, ...deflateMemory(input.body.length) }) : null;
  const base: ResponseAnalysis = {
    note: null,
    charset: null,
    page: null,
    noindex: headerRobots.noindex,
    nofollow: headerRobots.nofollow,
    storedBody,
    titleTerms: new Map(),
    bodyTerms: new Map(),
    terms: [],
    lineHashes: new Uint32Array(0),
    resource: null,
    simhash: null,
    bodyHash: null,
    browserNeed: null,
  };
  if (input.kind !== 'page') return { ...base, ...readResource(input, input.kind) };
  if (input.status < 200 || input.status >= 300) return base;
  const type = parseContentType(input.contentType);
  if (!isParseableHtml(type.mime)) return { ...base, note: `not-html:${type.mime || 'unknown'}` };
  if (input.body === undefined) return { ...base, note: 'no-body' };
  if (sniffLooksBinary(input.body)) return { ...base, note: `content-type-mismatch:${type.mime}` };
  const decoded = decodeHtml(input.body, type.charset);
  const page = extractHtml(decoded.text, input.url, { maxLinks: input.maxLinks, agentToken: input.agentToken });
  const terms = { titleTerms: termCounts(page.title), bodyTerms: termCounts(page.text) };
  return {
    ...base,
    note: page.linksDropped > 0 ? `links-dropped:${page.linksDropped}` : null,
    charset: decoded.charset,
    page,
    noindex: headerRobots.noindex || page.robots.noindex,
    nofollow: headerRobots.nofollow || page.robots.nofollow,
    ...terms,
    terms: topTerms(terms),
    lineHashes: lineHashes(page.text),
    simhash: simhash(terms.bodyTerms),
    bodyHash: createHash('sha256').update(input.body).digest('hex'),
    browserNeed: browserNeedSign(page, input.body.length),
  };
}
