import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { deflateMemory } from '../memory/deflate-memory.ts';
import { decodeHtml } from './charset.ts';
import { isParseableHtml, isUnlabelledBinary, parseContentType, sniffLooksBinary } from './content-type.ts';
import { documentTypeOfMime, looksLikePdf, type DocumentFacts, type DocumentType } from './documents/document-facts.ts';
import { readPlainText } from './documents/read-text.ts';
import { extractHtml, type ExtractedPage } from './extract-html.ts';
import { parseRobotsDirectives } from './meta-directives.ts';
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
  /** Bounds what a site resource may inflate to or hold as JSON, and a document's text (in characters). */
  maxDecodedBytes: number;
  /** The document types read (the `documents` setting); a type not named is noted as not HTML, [] reads none. */
  documents: readonly DocumentType[];
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
  /** What was read from a document (PDF, plain text) besides its page; null for a web page and anything not read as a document. */
  document: DocumentFacts | null;
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

/** The analysis every response starts from: the header's robots directives, and the body gzipped for storage. */
export function baseAnalysis(input: ResponseInput): ResponseAnalysis {
  const headerRobots = parseRobotsDirectives(input.xRobotsTag ?? '', input.agentToken);
  const storedBody = input.body !== undefined && input.body.length > 0 ? gzipSync(input.body, { level: STORED_BODY_GZIP_LEVEL, ...deflateMemory(input.body.length) }) : null;
  return {
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
    document: null,
  };
}

/** SHA-256 of a body as received (decoded), hex: the same bytes are stored once. */
export function bodyHashOf(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

/** What a page (a web page or a document) adds to its base analysis: its text's terms, line hashes and simhash. */
export function pageAnalysis(base: ResponseAnalysis, page: ExtractedPage, fields: Pick<ResponseAnalysis, 'note' | 'charset' | 'bodyHash' | 'browserNeed' | 'document'>): ResponseAnalysis {
  const terms = { titleTerms: termCounts(page.title), bodyTerms: termCounts(page.text) };
  return {
    ...base,
    ...fields,
    page,
    noindex: base.noindex || page.robots.noindex,
    nofollow: base.nofollow || page.robots.nofollow,
    ...terms,
    terms: topTerms(terms),
    lineHashes: lineHashes(page.text),
    simhash: simhash(terms.bodyTerms),
  };
}

/** The note of a page whose links past maxLinks were dropped; null otherwise. */
export function linksDroppedNote(page: ExtractedPage): string | null {
  return page.linksDropped > 0 ? `links-dropped:${page.linksDropped}` : null;
}

/**
 * The document type a response is read as, if any: a 2xx page response with a body whose type
 * the `documents` setting names. A PDF sent as application/octet-stream (or with no type) counts
 * as one when its bytes begin as a PDF does.
 */
export function documentToRead(input: ResponseInput): DocumentType | undefined {
  if (input.kind !== 'page' || input.status < 200 || input.status >= 300 || input.body === undefined || input.body.length === 0) return undefined;
  const mime = parseContentType(input.contentType).mime;
  const type = documentTypeOfMime(mime) ?? (isUnlabelledBinary(mime) && looksLikePdf(input.body) ? 'pdf' : undefined);
  return type !== undefined && input.documents.includes(type) ? type : undefined;
}

/** A plain-text document as a page; a body that is evidently binary is noted as a mismatch, as an HTML one is. */
function analyseText(base: ResponseAnalysis, input: ResponseInput, body: Uint8Array, charset: string | undefined): ResponseAnalysis {
  if (sniffLooksBinary(body)) return { ...base, note: 'content-type-mismatch:text/plain' };
  const reading = readPlainText(body, charset, { url: input.url, maxLinks: input.maxLinks, maxTextChars: input.maxDecodedBytes });
  return pageAnalysis(base, reading.page, { note: linksDroppedNote(reading.page), charset: reading.charset, bodyHash: bodyHashOf(body), browserNeed: null, document: reading.facts });
}

/**
 * Decides whether a response is HTML worth parsing (or plain text the `documents` setting
 * reads), decodes and parses it, and compresses the body for storage; a site resource is read
 * as one instead. Pure CPU work: it runs in a parse worker. PDFs are read by the document
 * worker (documents/analyse-document.ts): here a PDF is noted as not HTML.
 */
export function analyseResponse(input: ResponseInput): ResponseAnalysis {
  const base = baseAnalysis(input);
  if (input.kind !== 'page') return { ...base, ...readResource(input, input.kind) };
  if (input.status < 200 || input.status >= 300) return base;
  const type = parseContentType(input.contentType);
  if (input.body !== undefined && documentToRead(input) === 'text') return analyseText(base, input, input.body, type.charset);
  if (!isParseableHtml(type.mime)) return { ...base, note: `not-html:${type.mime || 'unknown'}` };
  if (input.body === undefined) return { ...base, note: 'no-body' };
  if (sniffLooksBinary(input.body)) return { ...base, note: `content-type-mismatch:${type.mime}` };
  const decoded = decodeHtml(input.body, type.charset);
  const page = extractHtml(decoded.text, input.url, { maxLinks: input.maxLinks, agentToken: input.agentToken });
  return pageAnalysis(base, page, {
    note: linksDroppedNote(page),
    charset: decoded.charset,
    bodyHash: bodyHashOf(input.body),
    browserNeed: browserNeedSign(page, input.body.length),
    document: null,
  });
}
