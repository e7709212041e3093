import type { Judgement, PageJudge } from '../relevance/judge.ts';
import { PageRecorder } from '../engine/page-recorder.ts';
import { UrlAdmission } from '../engine/url-admission.ts';
import { ORIGINAL_TRANSFER_ENCODING } from '../export/warc/http.ts';
import type { FetchResult } from '../net/fetch-page.ts';
import { headerMap } from '../net/header-pairs.ts';
import { redirectLocation } from '../net/redirect-location.ts';
import { defaultParseWorkers } from '../parse/parse-pool.ts';
import { ResponseReader } from '../parse/response-reader.ts';
import { productToken } from '../robots/index.ts';
import type { CrawlSettings } from '../protocol/settings.ts';
import { writeTransaction, type Db } from '../store/database.ts';
import { DocumentStore } from '../store/document-store.ts';
import { HostStore } from '../store/host-store.ts';
import { LabelStore } from '../store/label-store.ts';
import { VersionStore } from '../store/version-store.ts';
import { PageStore } from '../store/page-store.ts';
import { saveSettings } from '../store/settings-store.ts';
import { UrlState } from '../store/url-state.ts';
import { UrlStore, type QueuedUrl } from '../store/url-store.ts';
import { VerdictStore } from '../store/verdict-store.ts';
import { tryCanonicalize } from '../url/canonical.ts';
import { fingerprint } from '../url/fingerprint.ts';
import { createScope } from '../url/scope.ts';
import { decodeContent } from './content-decoding.ts';
import { foragerInfo, importedSettings, type ForagerInfo } from './forager-info.ts';
import { parseHttpResponse, requestHead } from './http-message.ts';
import { ImportError } from './import-error.ts';
import { parsePageMetadata, type PageMetadata } from './page-metadata.ts';
import type { WarcRecordData } from './read-wacz.ts';
import { documentTypesOf } from '../parse/documents/document-facts.ts';

export interface ImportSummary {
  pages: number;
  links: number;
  labels: number;
  query: string;
  /** Settings the archive asked for that were made safer (allowPrivate off, politeness and caps at this machine's defaults). */
  tightened: string[];
  /**
   * What the archive holds that the collection does not: responses for a URL besides the one
   * imported as its page (earlier versions, an answer that found it gone), and revisit records.
   */
  skipped: { responses: number; revisits: number };
}

/** A response waiting for its request and metadata records, which may come on either side of it. */
interface PendingPage {
  response: WarcRecordData;
  requestHead: string | null;
  metadata: PageMetadata | undefined;
}

/** Request records seen before their response; a stray one must not grow memory without bound. */
const MAX_WAITING_REQUESTS = 64;
const SEEN_CACHE_SIZE = 65_536;

/** What storing pages needs once the settings are known. */
interface Recording {
  settings: CrawlSettings;
  urls: UrlStore;
  hosts: HostStore;
  recorder: PageRecorder;
  parser: ResponseReader;
}

/**
 * Rebuilds a collection from a Forager WARC's records, fed in file order. Each response is
 * stored by the crawler's own PageRecorder, parsed by the crawler's own analyseResponse, and
 * its links pass the crawler's own URL admission (canonical form, fingerprint, host, depth,
 * scope, traps), so pages, links and URL rows come out as the crawl stored them. Relevance
 * and hot are the crawl's verdicts from the metadata records, not judged again; so are a
 * document's facts (its pages, its metadata) when the record carries them.
 */
export class CollectionBuilder {
  readonly #db: Db;
  readonly #waczPath: string;
  #info: ForagerInfo | undefined;
  #recording: Recording | undefined;
  #pending: PendingPage | undefined;
  readonly #waitingRequests = new Map<string, string>();
  readonly #storedUrlIds = new Set<number>();
  /** The verdict the judge hands the recorder for the page being stored. */
  #verdict: Judgement = { relevance: null, hot: false, judgedHot: false, grade: 0 };
  #pages = 0;
  #links = 0;
  #labelCount = 0;
  #skippedResponses = 0;
  #skippedRevisits = 0;
  #tightened: string[] = [];
  readonly #labels: LabelStore;
  readonly #verdicts: VerdictStore;
  readonly #documents: DocumentStore;

  constructor(db: Db, waczPath: string) {
    this.#db = db;
    this.#waczPath = waczPath;
    this.#labels = new LabelStore(db);
    this.#verdicts = new VerdictStore(db);
    this.#documents = new DocumentStore(db);
  }

  async add(record: WarcRecordData): Promise<void> {
    switch (record.type) {
      case 'warcinfo':
        // The first warcinfo describes the crawl; later ones (a concatenated file) add nothing import uses.
        this.#info ??= foragerInfo(record.block);
        return;
      case 'request':
        this.#addRequest(record);
        return;
      case 'response':
        await this.#addResponse(record);
        return;
      case 'revisit':
        this.#skippedRevisits++;
        return;
      case 'metadata':
        if (this.#pending !== undefined && record.refersTo === this.#pending.response.id) {
          this.#pending.metadata = parsePageMetadata(record.block, this.#pending.response.targetUri ?? '');
        }
        return;
    }
  }

  /** Stores the last page; a WARC with settings but no pages still makes a (resumable) collection. */
  async finish(): Promise<ImportSummary> {
    await this.#flush();
    const recording = this.#recording ?? this.#startRecording(undefined);
    await recording.parser.close();
    return {
      pages: this.#pages,
      links: this.#links,
      labels: this.#labelCount,
      query: recording.settings.query,
      tightened: this.#tightened,
      skipped: { responses: this.#skippedResponses, revisits: this.#skippedRevisits },
    };
  }

  /** Stops the parse workers of an import that failed part-way (finish() stops them otherwise): they would keep the process alive. */
  async abandon(): Promise<void> {
    await this.#recording?.parser.close();
  }

  /**
   * A collection keeps one page per URL, and an export writes a page's captures together: of
   * the responses for one URL in a row, the one Forager's metadata record refers to (the
   * page's latest version) is kept, else the latest by WARC-Date; the others are counted.
   */
  async #addResponse(record: WarcRecordData): Promise<void> {
    const candidate: PendingPage = { response: record, requestHead: this.#takeRequest(record.id), metadata: undefined };
    const pending = this.#pending;
    if (pending === undefined || pending.response.targetUri !== record.targetUri) {
      await this.#flush();
      this.#pending = candidate;
      return;
    }
    this.#skippedResponses++;
    if (pending.metadata === undefined && captureTime(record) >= captureTime(pending.response)) this.#pending = candidate;
  }

  #addRequest(record: WarcRecordData): void {
    const head = requestHead(record.block);
    for (const responseId of record.concurrentTo) {
      if (this.#pending !== undefined && this.#pending.response.id === responseId) {
        this.#pending.requestHead ??= head;
        continue;
      }
      if (this.#waitingRequests.size >= MAX_WAITING_REQUESTS) {
        const oldest = this.#waitingRequests.keys().next().value;
        if (oldest !== undefined) this.#waitingRequests.delete(oldest);
      }
      this.#waitingRequests.set(responseId, head);
    }
  }

  #takeRequest(responseId: string): string | null {
    const head = this.#waitingRequests.get(responseId);
    if (head === undefined) return null;
    this.#waitingRequests.delete(responseId);
    return head;
  }

  /**
   * Settings, seeds and the crawler's machinery, made when the first page (or the end)
   * arrives: without x-forager-settings the first page's URL is the seed.
   */
  #startRecording(firstPageUrl: string | undefined): Recording {
    if (this.#info === undefined) {
      throw new ImportError(`${this.#waczPath} was not written by Forager: its WARC does not start with a warcinfo record`, { path: this.#waczPath });
    }
    const { settings, tightened } = importedSettings(this.#info, firstPageUrl, this.#waczPath);
    this.#tightened = tightened;
    saveSettings(this.#db, settings);
    const urls = new UrlStore(this.#db);
    const hosts = new HostStore(this.#db);
    // robots.txt is not in the archive: its verdicts come back with the first resume, which fetches it before any page.
    const admission = new UrlAdmission(settings, { urls, hosts }, createScope(settings.scope, settings.seeds), {
      robotsBlockReason: () => null,
      linked: () => undefined,
    }, SEEN_CACHE_SIZE);
    const judge: PageJudge = { judge: () => this.#verdict };
    // A worker even on one core, so that a page that stalls the parser times out instead of stalling the import.
    const parser = new ResponseReader({ parseWorkers: Math.max(1, defaultParseWorkers()) });
    const recorder = new PageRecorder(this.#db, { pages: new PageStore(this.#db), urls, versions: new VersionStore(this.#db) }, admission, parser, judge, {
      agentToken: productToken(settings.userAgent),
      maxLinks: settings.maxLinksPerPage,
      maxDecodedBytes: settings.maxDecodedBytes,
      // An archive's pages come with what it holds of their requisites.
      fetchesRequisites: false,
      // The documents the archived crawl read come back as documents.
      documents: documentTypesOf(settings.documents),
    });
    // As a crawl's first run does: the seeds first, so they are the lowest URL ids and resume finds them.
    writeTransaction(this.#db, () => {
      for (const seed of settings.seeds) admission.admit(seed, seed, { depth: 0, parentId: null, redirects: 0, anchor: '', context: '', isSeed: true });
    });
    this.#recording = { settings, urls, hosts, recorder, parser };
    return this.#recording;
  }

  async #flush(): Promise<void> {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    await this.#storePage(pending);
  }

  async #storePage({ response, requestHead: sentHead, metadata }: PendingPage): Promise<void> {
    const target = response.targetUri;
    if (target === null || target === '') throw new ImportError(`a response record in ${this.#waczPath} has no WARC-Target-URI`, { path: this.#waczPath, record: response.id });
    const canon = tryCanonicalize(target);
    if (!canon.ok) throw new ImportError(`a response record in ${this.#waczPath} is for "${target}", which is not a crawlable URL`, { path: this.#waczPath, url: target });
    const http = parseHttpResponse(response.block, target);
    http.rawHeaders = restoreHeaderNames(http.rawHeaders);
    const recording = this.#recording ?? this.#startRecording(canon.url);
    const startedAt = Date.parse(response.date ?? '');
    if (Number.isNaN(startedAt)) throw new ImportError(`the response record for ${target} has no valid WARC-Date`, { url: target });
    const task = this.#pageUrl(recording, canon.url, metadata?.depth ?? null);
    if (task === undefined) {
      this.#skippedResponses++;
      return;
    }

    const headers = headerMap(http.rawHeaders);
    const contentEncoding = headers['content-encoding'];
    const fetchedAt = metadata?.fetchedAt ?? startedAt;
    // A body the crawler did not download is written truncated and empty.
    const downloaded = response.truncated === null;
    const result: FetchResult = {
      url: task.url,
      status: http.status,
      statusText: http.statusText,
      httpVersion: http.httpVersion,
      headers,
      rawHeaders: http.rawHeaders,
      bodySkipped: !downloaded,
      timings: { startedAt, headersMs: 0, totalMs: fetchedAt - startedAt },
      bytesReceived: downloaded ? http.payload.length : 0,
    };
    if (headers['content-type'] !== undefined) result.contentType = headers['content-type'];
    if (contentEncoding !== undefined) result.contentEncoding = contentEncoding;
    if (downloaded) {
      result.rawBody = http.payload;
      result.body = decodeContent(http.payload, contentEncoding, recording.settings.maxDecodedBytes, target);
    }
    const location = redirectLocation(http.status, http.rawHeaders, task.url);
    if (location !== undefined) result.location = location;
    if (response.ipAddress !== null) result.remoteAddress = response.ipAddress;
    if (sentHead !== null) result.requestHeaders = sentHead;

    const hot = metadata?.hot ?? false;
    this.#verdict = { relevance: metadata?.relevance ?? null, hot, judgedHot: hot, grade: hot ? 1 : 0 };
    // A 5xx or 429 is stored only once the crawler's retries ran out, and the URL is then failed.
    const failedReason = http.status >= 500 || http.status === 429 ? `http:${http.status}` : null;
    const recorded = await recording.recorder.record(task, result, () => recording.hosts.countPageFetched(task.hostId), failedReason);
    writeTransaction(this.#db, () => {
      // The judge is asked only about parsed pages; a label can make any page hot.
      if (recorded.relevance !== this.#verdict.relevance || recorded.hot !== this.#verdict.hot) {
        this.#verdicts.setVerdict(recorded.seq, this.#verdict.relevance, this.#verdict.hot);
      }
      // The crawl's own reading of a document (its page count, page starts, metadata) stands; without it, the recorder's reading of the payload does.
      if (metadata !== undefined && metadata.document !== null) this.#documents.save(recorded.seq, metadata.document);
      if (metadata !== undefined && metadata.label !== null) {
        this.#labels.put(task.id, metadata.label, metadata.labelledAt ?? Date.now());
        this.#labelCount++;
      }
    });
    this.#pages++;
    this.#links += recorded.links;
  }

  /**
   * The page's URL row: the one its links or a redirect already made, or a new one; at the
   * crawl's depth. undefined when a page for the URL is stored already (a response for it that
   * was not next to the first, such as a subresource the export wrote after the pages): the
   * first stays.
   */
  #pageUrl(recording: Recording, url: string, depth: number | null): QueuedUrl | undefined {
    const { urls, hosts } = recording;
    const hostId = hosts.idFor(originOf(url));
    const fp = fingerprint(url);
    const id =
      urls.findIdByFingerprint(hostId, fp) ??
      urls.insert({ fp, url, hostId, depth: depth ?? 0, state: UrlState.queued, parentId: null, redirects: 0, reason: null });
    if (this.#storedUrlIds.has(id)) return undefined;
    this.#storedUrlIds.add(id);
    const row = urls.get(id) as NonNullable<ReturnType<UrlStore['get']>>;
    if (depth !== null && depth !== row.depth) urls.setDepth(id, depth);
    return { id, url: row.url, hostId: row.hostId, depth: depth ?? row.depth, redirects: row.redirects, attempts: row.attempts, kind: row.kind };
  }
}

/** Epoch ms of a record's WARC-Date; an unreadable date sorts first. */
function captureTime(record: WarcRecordData): number {
  const time = Date.parse(record.date ?? '');
  return Number.isNaN(time) ? -Infinity : time;
}

/** The exporter renames Transfer-Encoding (its payload is de-chunked); the collection keeps the header as received. */
function restoreHeaderNames(rawHeaders: [string, string][]): [string, string][] {
  const renamed = ORIGINAL_TRANSFER_ENCODING.toLowerCase();
  return rawHeaders.map(([name, value]) => [name.toLowerCase() === renamed ? 'Transfer-Encoding' : name, value]);
}

/** The origin of a canonical URL (scheme://authority), as URL admission keys hosts. */
function originOf(canonicalUrl: string): string {
  return canonicalUrl.slice(0, canonicalUrl.indexOf('/', canonicalUrl.indexOf('//') + 2));
}
