import type { Dispatcher } from 'undici';
import { FetchError } from '../errors.ts';
import { createDispatcher } from '../net/dispatcher.ts';
import { proxyRoutes } from '../net/proxy-config.ts';
import { fetchPage, type BodySizeLimits, type FetchOptions, type FetchResult } from '../net/fetch-page.ts';
import { documentTypeOfMime, documentTypesOf } from '../parse/documents/document-facts.ts';
import type { SsrfPolicy } from '../net/ssrf-guard.ts';
import type { UrlKind } from '../parse/url-kind.ts';
import { isParseableHtml, parseContentType } from '../parse/content-type.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { ROBOTS_MAX_BYTES } from '../robots/index.ts';
import type { RobotsFetchOutcome } from './robots-gate.ts';

/** RFC 9309 §2.3.1.2: follow at least five redirects for robots.txt. */
const ROBOTS_MAX_REDIRECTS = 5;

/** The settings HttpClient reads: the User-Agent, the proxy, time-outs and size limits. */
export type HttpClientSettings = Pick<
  CrawlSettings,
  'userAgent' | 'proxy' | 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyIdleTimeoutMs' | 'totalTimeoutMs' | 'maxBodyBytes' | 'maxDecodedBytes' | 'documents' | 'maxDocumentBytes'
>;

/** What a request asks of the collection's cookie jar (net/cookie-jar.ts's SessionJar). */
export interface RequestCookies {
  cookieHeader(url: string): string | undefined;
  storeSetCookies(url: string, rawHeaders: readonly (readonly [string, string])[]): void;
}

/**
 * The crawler's HTTP side: one keep-alive dispatcher with the SSRF guard, and the kinds of fetch
 * (pages, site resources, robots.txt). Every request, each redirect hop its own, sends the jar's
 * cookies for its URL, and every answer's Set-Cookie goes to the jar.
 */
export class HttpClient {
  readonly #dispatcher: Dispatcher;
  readonly #cookies: RequestCookies | undefined;
  readonly #pageOptions: FetchOptions;
  readonly #resourceOptions: FetchOptions;
  readonly #robotsOptions: FetchOptions;

  /** `onProxyDown` hears of a proxy that fails every request (the proxy setting, or the environment's when it is ''). */
  constructor(settings: HttpClientSettings, policy: SsrfPolicy, cookies?: RequestCookies, onProxyDown?: (error: FetchError) => void) {
    this.#cookies = cookies;
    this.#dispatcher = createDispatcher({
      policy,
      connectTimeoutMs: settings.connectTimeoutMs,
      proxy: proxyRoutes(settings.proxy),
      ...(onProxyDown !== undefined && { onProxyDown }),
    });
    const common = {
      dispatcher: this.#dispatcher,
      userAgent: settings.userAgent,
      headersTimeoutMs: settings.headersTimeoutMs,
      bodyIdleTimeoutMs: settings.bodyIdleTimeoutMs,
      totalTimeoutMs: settings.totalTimeoutMs,
      maxDecodedBytes: settings.maxDecodedBytes,
    };
    // The payload as received, for WARC export (stored only when a Content-Encoding applied).
    this.#resourceOptions = { ...common, maxBodyBytes: settings.maxBodyBytes, keepRawBody: true };
    const pageSizes: BodySizeLimits = { maxBodyBytes: settings.maxBodyBytes, maxDecodedBytes: settings.maxDecodedBytes };
    // A document's bytes are its content: a decoded document may be as large as a downloaded one.
    const documentSizes: BodySizeLimits = { maxBodyBytes: settings.maxDocumentBytes, maxDecodedBytes: Math.max(settings.maxDecodedBytes, settings.maxDocumentBytes) };
    const documents = documentTypesOf(settings.documents);
    this.#pageOptions = {
      ...this.#resourceOptions,
      // HTML and the document types read are downloaded; other types are recorded from their headers alone.
      bodyLimits: (status, contentType) => {
        if (status < 200 || status >= 300) return pageSizes;
        const mime = parseContentType(contentType).mime;
        if (isParseableHtml(mime)) return pageSizes;
        const type = documentTypeOfMime(mime) ?? (mime === 'application/octet-stream' ? 'pdf' : undefined);
        return type !== undefined && documents.includes(type) ? documentSizes : null;
      },
    };
    // RFC 9309 asks for 500 KiB parsed at least: past the parser's ROBOTS_MAX_BYTES, received or decoded, the file is
    // cut rather than refused, so a small gzip robots.txt cannot inflate to megabytes in memory and in the hosts table.
    this.#robotsOptions = { ...common, maxBodyBytes: ROBOTS_MAX_BYTES, maxDecodedBytes: ROBOTS_MAX_BYTES, truncateOversizedBody: true, accept: 'text/plain,*/*;q=0.5' };
  }

  /**
   * Fetches a queued URL. A site resource's body is downloaded whatever its Content-Type
   * (sitemaps come as text/xml or application/gzip, search indexes as JavaScript or JSON),
   * within the same limits as a page's. `conditional` holds a revisit's validators
   * (If-None-Match, If-Modified-Since).
   */
  fetchPage(url: string, signal: AbortSignal, kind: UrlKind = 'page', conditional?: Readonly<Record<string, string>>): Promise<FetchResult> {
    const options = kind === 'page' ? this.#pageOptions : this.#resourceOptions;
    return this.#fetch(url, conditional === undefined ? options : { ...options, extraHeaders: conditional }, signal);
  }

  /** Fetches origin/robots.txt, following redirects (each hop passes the SSRF guard at connect time). Never throws. */
  /** A script, stylesheet or API answer for a render: any content type, within the site-resource limits. */
  fetchSubresource(url: string, signal: AbortSignal): Promise<FetchResult> {
    return this.#fetch(url, this.#resourceOptions, signal);
  }

  async fetchRobots(origin: string, signal: AbortSignal): Promise<RobotsFetchOutcome> {
    const started = Date.now();
    let url = `${origin}/robots.txt`;
    try {
      for (let hop = 0; ; hop++) {
        const result = await this.#fetch(url, this.#robotsOptions, signal);
        const isRedirect = result.status >= 300 && result.status < 400 && result.location !== undefined;
        if (!isRedirect || hop === ROBOTS_MAX_REDIRECTS) {
          return { kind: 'response', status: result.status, body: result.body, responseMs: Date.now() - started };
        }
        url = result.location as string;
      }
    } catch (err) {
      return { kind: 'failure', reason: err instanceof FetchError ? err.reason : 'error', responseMs: Date.now() - started };
    }
  }

  /** One request with the session's cookies for `url`; the cookies its answer sets are kept. */
  async #fetch(url: string, options: FetchOptions, signal: AbortSignal): Promise<FetchResult> {
    const cookie = this.#cookies?.cookieHeader(url);
    const result = await fetchPage(url, cookie === undefined ? options : { ...options, extraHeaders: { ...options.extraHeaders, cookie } }, signal);
    this.#cookies?.storeSetCookies(url, result.rawHeaders);
    return result;
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}
