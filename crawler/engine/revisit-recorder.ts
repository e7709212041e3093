import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { FetchResult } from '../net/fetch-page.ts';
import { firstHeader } from '../net/header-pairs.ts';
import type { ResponseAnalysis } from '../parse/analyse-response.ts';
import { hammingDistance, NEAR_DUPLICATE_BITS, type Simhash } from '../relevance/simhash.ts';
import type { Db } from '../store/database.ts';
import { storedBodySql } from '../store/stored-body.ts';
import { UrlState } from '../store/url-state.ts';
import type { QueuedUrl, UrlStore } from '../store/url-store.ts';
import type { NewRevisit, RevisitOutcome, StoredVersion, VersionStore } from '../store/version-store.ts';
import type { PageRecorder, RecordedPage, RenderedAnalysis } from './page-recorder.ts';
import { responseRow } from './response-row.ts';

/** What a revisit came to: its outcome, and the stored page when it changed. */
export interface RevisitRecord {
  outcome: RevisitOutcome;
  seq: number;
  /** The new version as stored (outcome 'changed'): its links joined the frontier. */
  changed?: RecordedPage;
  /** Whether the new version was rendered in a browser. */
  rendered?: boolean;
}

/**
 * The conditional request of a revisit: If-None-Match with the stored ETag and
 * If-Modified-Since with the stored Last-Modified (RFC 9110 §13.1), when the stored version
 * was a 2xx that gave them. Undefined when it gave neither: the revisit is a plain GET and
 * the payload digest decides.
 */
export function conditionalHeaders(stored: StoredVersion): Record<string, string> | undefined {
  if (stored.status < 200 || stored.status >= 300) return undefined;
  const headers: Record<string, string> = {};
  const etag = firstHeader(stored.headers, 'etag');
  const lastModified = firstHeader(stored.headers, 'last-modified');
  if (etag !== undefined) headers['if-none-match'] = etag;
  if (lastModified !== undefined) headers['if-modified-since'] = lastModified;
  return Object.keys(headers).length === 0 ? undefined : headers;
}

/** Whether a response whose body was not downloaded (not HTML) says the same as the stored version's head. */
function sameHead(stored: StoredVersion, result: FetchResult): boolean {
  if (result.status !== stored.status) return false;
  for (const name of ['etag', 'last-modified', 'content-length', 'content-type']) {
    if ((firstHeader(stored.headers, name) ?? '') !== (result.headers[name] ?? '')) return false;
  }
  return true;
}

/**
 * Stores what a revisit found. A 304, or an answer whose payload digest is the stored
 * version's, is a revisit without a body; a 404 or 410, or a 200 that is its folder's soft
 * 404, marks the page gone and keeps it; anything else is a new version, stored through the
 * page recorder (its links go through admission, so new URLs join the frontier).
 */
export class RevisitRecorder {
  readonly #db: Db;
  readonly #versions: VersionStore;
  readonly #urls: UrlStore;
  readonly #recorder: PageRecorder;
  readonly #storedBody;

  constructor(db: Db, stores: { versions: VersionStore; urls: UrlStore }, recorder: PageRecorder) {
    this.#db = db;
    this.#versions = stores.versions;
    this.#urls = stores.urls;
    this.#recorder = recorder;
    this.#storedBody = db.prepare(`SELECT ${storedBodySql(db, 'pages')} FROM pages WHERE seq = ?`).pluck();
  }

  /** The stored version the revisit of this URL compares against. */
  stored(task: QueuedUrl): StoredVersion | undefined {
    return this.#versions.latest(task.id);
  }

  /**
   * Decides and stores the revisit's outcome. `soft404` is the signature of the folder's (or
   * host's) answer for a name that cannot exist; `analyse` parses the response when the
   * outcome needs its text; `render` renders a changed version as the crawl would have
   * (undefined when the crawl renders nothing, or not this page).
   */
  async record(
    task: QueuedUrl,
    stored: StoredVersion,
    result: FetchResult,
    soft404: Simhash | null,
    analyse: () => Promise<ResponseAnalysis>,
    afterWrite: () => void,
    render?: (raw: ResponseAnalysis) => Promise<RenderedAnalysis | undefined>,
  ): Promise<RevisitRecord> {
    const revisit = this.#revisitOf(stored, result);
    const plain = (outcome: RevisitOutcome): RevisitRecord => {
      this.#db.transaction(() => {
        this.#versions.recordRevisit({ ...revisit, outcome });
        this.#urls.finish(task.id, UrlState.fetched, null);
        afterWrite();
      }).immediate();
      return { outcome, seq: stored.seq };
    };
    if (result.status === 304) return plain('not-modified');
    // A page that was stored as a 404 and still is one has not gone anywhere.
    if ((result.status === 404 || result.status === 410) && result.status !== stored.status) return plain('gone');
    if (this.#isUnchanged(stored, result)) return plain('identical');
    const analysis = await analyse();
    const isSoft404 = result.status === 200 && soft404 !== null && analysis.simhash !== null && hammingDistance(soft404, analysis.simhash) <= NEAR_DUPLICATE_BITS;
    if (isSoft404) return plain('gone');
    const rendered = await render?.(analysis);
    const changed = await this.#recorder.record(task, result, afterWrite, null, soft404, rendered === undefined ? { raw: analysis } : { raw: analysis, rendered }, revisit);
    return { outcome: 'changed', seq: stored.seq, changed, rendered: rendered !== undefined };
  }

  #revisitOf(stored: StoredVersion, result: FetchResult): Omit<NewRevisit, 'outcome'> {
    return { seq: stored.seq, version: stored.version, ...responseRow(result) };
  }

  /** The same status and the same payload (by SHA-256 of the decoded body, as pages.body_hash), or the same head when no body was downloaded. */
  #isUnchanged(stored: StoredVersion, result: FetchResult): boolean {
    if (result.status !== stored.status) return false;
    if (result.status >= 300 && result.status < 400) return firstHeader(stored.headers, 'location') === result.headers.location;
    if (result.body === undefined) return sameHead(stored, result);
    const digest = createHash('sha256').update(result.body).digest('hex');
    return digest === (stored.bodyHash ?? this.#storedDigest(stored.seq));
  }

  /** The digest of a stored body that has no body_hash (a site resource), from the body itself. */
  #storedDigest(seq: number): string | null {
    const gzipped = this.#storedBody.get(seq) as Buffer | null | undefined;
    if (gzipped === null || gzipped === undefined) return null;
    return createHash('sha256').update(gunzipSync(gzipped)).digest('hex');
  }
}
