import type { FetchResult } from '../net/fetch-page.ts';
import type { ResponseAnalysis } from '../parse/analyse-response.ts';
import { hammingDistance, NEAR_DUPLICATE_BITS, simhashToInt, type Simhash } from '../relevance/simhash.ts';
import { DuplicateFinder } from './duplicates.ts';
import { effectiveBase, type ExtractedPage } from '../parse/extract-html.ts';
import { linkContext } from '../ordering/strategy.ts';
import type { UrlHint } from '../parse/url-kind.ts';
import type { ResponseReader } from '../parse/response-reader.ts';
import type { DocumentType } from '../parse/documents/document-facts.ts';
import { DocumentStore } from '../store/document-store.ts';
import type { ResourceAnalysis } from '../parse/site-resources.ts';
import type { Db } from '../store/database.ts';
import type { PageStore } from '../store/page-store.ts';
import { UrlState } from '../store/url-state.ts';
import type { QueuedUrl, UrlStore } from '../store/url-store.ts';
import type { JudgedPage, PageJudge } from '../relevance/judge.ts';
import type { Acronym } from '../relevance/acronyms.ts';
import { entryHints } from '../parse/resource-hints.ts';
import type { UrlAdmission } from './url-admission.ts';
import { RenderStore, type PageRequisites, type RenderRecord } from '../store/render-store.ts';
import type { NewRevisit, VersionStore } from '../store/version-store.ts';
import { responseRow } from './response-row.ts';

export interface RecordedPage {
  seq: number;
  status: number;
  title: string | null;
  newUrls: number;
  links: number;
  relevance: number | null;
  hot: boolean;
  /** The judge's graded verdict (Judgement.grade). */
  grade: number;
  /** Acronyms of the query's phrases the page defined first (Judgement.acronyms). */
  acronyms?: readonly Acronym[];
  /** The page's distinct content terms, as stored. */
  terms: string[];
  /** Ids of the URLs it links to, in page order, without repeats. */
  outlinks: number[];
  /** What a site resource said about the URLs it lists (ids as in outlinks), in its order; empty for a page. */
  hints: UrlHint[];
  /** Time the judge took on this page. */
  judgeMs: number;
  /** The stylesheets, icons and images it shows, as written, and what they resolve against; null unless a 2xx HTML page. */
  requisites: PageRequisites | null;
  /** Whether it was stored as a document (a PDF, plain text) read as such. */
  document: boolean;
}

/** What PageRecorder reads of the crawl's settings, as the engine builds it. */
export interface PageRecorderOptions {
  /** robots.txt product token, matched against robots meta tags and X-Robots-Tag. */
  agentToken: string;
  /** Links kept per page (settings.maxLinksPerPage). */
  maxLinks: number;
  maxDecodedBytes: number;
  /** Whether the crawl fetches page requisites: a page that has some then notes them as pending in its own transaction. */
  fetchesRequisites: boolean;
  /** The document types read (settings.documents): other types are recorded from their headers. */
  documents: readonly DocumentType[];
}

interface StoredLinks {
  links: number;
  newUrls: number;
  hints: UrlHint[];
}

const NO_LINKS: StoredLinks = { links: 0, newUrls: 0, hints: [] };

/** A page's render: its DOM parsed, and what to store of it (the page's seq and links added are filled in on storing). */
export interface RenderedAnalysis {
  analysis: ResponseAnalysis;
  record: Omit<RenderRecord, 'pageSeq' | 'linksAdded'>;
}

/**
 * The raw response's analysis with the render's text, terms and signature, and the links of
 * both (the raw page's first, then those only the render has). The body stored stays the raw one.
 */
function withRender(raw: ResponseAnalysis, rendered: ResponseAnalysis): ResponseAnalysis {
  if (raw.page === null || rendered.page === null) return raw;
  const seen = new Set(raw.page.links.map((link) => link.href));
  const added = rendered.page.links.filter((link) => !seen.has(link.href));
  return {
    ...raw,
    page: { ...rendered.page, title: rendered.page.title || raw.page.title, links: [...raw.page.links, ...added], baseHref: raw.page.baseHref, resolvedBase: raw.page.resolvedBase },
    titleTerms: rendered.titleTerms,
    bodyTerms: rendered.bodyTerms,
    terms: rendered.terms,
    lineHashes: rendered.lineHashes,
    simhash: rendered.simhash,
    noindex: raw.noindex || rendered.noindex,
    nofollow: raw.nofollow || rendered.nofollow,
  };
}

/** A page as the judge sees it. */
function judgedPage(task: QueuedUrl, analysis: ResponseAnalysis, page: ExtractedPage): JudgedPage {
  return {
    urlId: task.id,
    site: new URL(task.url).origin,
    title: page.title,
    text: page.text,
    titleTerms: analysis.titleTerms,
    bodyTerms: analysis.bodyTerms,
    lineHashes: analysis.lineHashes,
  };
}

/**
 * Turns one HTTP response into stored rows: the page, its text in the full-text index,
 * its links (each through the seen test), and the URL's final state, all in one
 * transaction so that a crash never leaves a page without its links or state. A site
 * resource is stored the same way, without text; the URLs it lists are its links.
 */
export class PageRecorder {
  readonly #db: Db;
  readonly #pages: PageStore;
  readonly #versions: VersionStore;
  readonly #urls: UrlStore;
  readonly #admission: UrlAdmission;
  readonly #parser: ResponseReader;
  readonly #judge: PageJudge;
  readonly #agentToken: string;
  readonly #maxLinks: number;
  readonly #maxDecodedBytes: number;
  readonly #fetchesRequisites: boolean;
  readonly #documentTypes: readonly DocumentType[];
  readonly #documents: DocumentStore;
  readonly #duplicates: DuplicateFinder;
  readonly #renders: RenderStore;

  constructor(
    db: Db,
    stores: { pages: PageStore; urls: UrlStore; versions: VersionStore },
    admission: UrlAdmission,
    parser: ResponseReader,
    judge: PageJudge,
    options: PageRecorderOptions,
  ) {
    this.#db = db;
    this.#pages = stores.pages;
    this.#versions = stores.versions;
    this.#duplicates = new DuplicateFinder(stores.pages);
    this.#renders = new RenderStore(db);
    this.#urls = stores.urls;
    this.#admission = admission;
    this.#parser = parser;
    this.#judge = judge;
    this.#agentToken = options.agentToken;
    this.#maxLinks = options.maxLinks;
    this.#maxDecodedBytes = options.maxDecodedBytes;
    this.#fetchesRequisites = options.fetchesRequisites;
    this.#documentTypes = options.documents;
    this.#documents = new DocumentStore(db);
  }

  /** Rebuilds the near-duplicate index from the stored pages, as steps: a run's start runs them between turns of the event loop. */
  duplicateIndexSteps(): Generator<void, void, undefined> {
    return this.#duplicates.loadSteps();
  }

  /** Parses a response in a parse worker: what record() stores, and what decides a render. */
  analyse(task: QueuedUrl, result: FetchResult): Promise<ResponseAnalysis> {
    return this.#parser.analyse({
      url: task.url,
      status: result.status,
      contentType: result.headers['content-type'],
      xRobotsTag: result.headers['x-robots-tag'],
      body: result.body,
      agentToken: this.#agentToken,
      maxLinks: this.#maxLinks,
      kind: task.kind,
      maxDecodedBytes: this.#maxDecodedBytes,
      documents: this.#documentTypes,
    });
  }

  /** Parses a rendered DOM as a page of the same URL. */
  analyseRendered(task: QueuedUrl, dom: string): Promise<ResponseAnalysis> {
    return this.#parser.analyse({
      url: task.url, status: 200, contentType: 'text/html; charset=utf-8', xRobotsTag: undefined, body: Buffer.from(dom, 'utf8'),
      agentToken: this.#agentToken, maxLinks: this.#maxLinks, kind: 'page', maxDecodedBytes: this.#maxDecodedBytes, documents: [],
    });
  }

  /** The judge's own verdict on a version of the page as things stand (it learns nothing): undefined without text or without a judge that can say. */
  wouldBeHot(task: QueuedUrl, analysis: ResponseAnalysis): boolean | undefined {
    if (analysis.page === null || this.#judge.wouldBeHot === undefined) return undefined;
    return this.#judge.wouldBeHot(judgedPage(task, analysis, analysis.page));
  }

  /**
   * Stores a response. `failedReason` lets the caller record a 5xx that ran out of retries as
   * failed; `soft404` is the simhash of the host's answer to a path that does not exist (null
   * when it answers those with a real 404), against which a 200 is checked. `parsed` is the
   * response's analysis when the caller has it already, with its render when there was one:
   * a rendered page is judged by its rendered text and keeps the links of both. `replaces` is
   * the revisit whose response this is: the page's stored version moves to its versions and
   * this one takes its place under the same seq.
   */
  async record(
    task: QueuedUrl,
    result: FetchResult,
    afterWrite: () => void,
    failedReason: string | null = null,
    soft404: Simhash | null = null,
    parsed?: { raw: ResponseAnalysis; rendered?: RenderedAnalysis },
    replaces?: Omit<NewRevisit, 'outcome'>,
  ): Promise<RecordedPage> {
    const raw = parsed?.raw ?? (await this.analyse(task, result));
    const rendered = parsed?.rendered;
    const analysis = rendered === undefined ? raw : withRender(raw, rendered.analysis);
    const page = analysis.page;
    const judgeStarted = performance.now();
    const judgement =
      page === null
        ? { relevance: null, hot: false, judgedHot: false, grade: 0 }
        : this.#judge.judge(judgedPage(task, analysis, page));
    const judgeMs = performance.now() - judgeStarted;
    const terms = analysis.terms;
    const isSoft404 = result.status === 200 && soft404 !== null && analysis.simhash !== null && hammingDistance(soft404, analysis.simhash) <= NEAR_DUPLICATE_BITS;
    // A page that says "not found" is never on topic, whatever words its template holds.
    const verdict = isSoft404 ? { ...judgement, hot: false, judgedHot: false } : judgement;
    const found = page === null ? null : this.#duplicates.find(analysis.bodyHash, analysis.simhash);
    // A new version is no duplicate of the version it replaces.
    const duplicate = found !== null && found.seq === replaces?.seq ? null : found;
    const storesBody = duplicate?.kind !== 'exact';
    const recorded = this.#db.transaction((): RecordedPage => {
      const outlinks = new Set<number>();
      const redirect = this.#redirectTarget(task, result, outlinks);
      const stored = {
        urlId: task.id,
        ...responseRow(result),
        contentType: result.headers['content-type'] ?? null,
        charset: analysis.charset,
        body: analysis.storedBody === null || !storesBody ? null : Buffer.from(analysis.storedBody.buffer, analysis.storedBody.byteOffset, analysis.storedBody.byteLength),
        bodyBytes: result.body?.length ?? 0,
        title: analysis.page?.title || null,
        text: analysis.page?.text || null,
        terms: terms.length > 0 ? terms.join(' ') : null,
        relevance: verdict.relevance,
        hot: verdict.hot,
        judgedHot: verdict.relevance === null ? null : verdict.judgedHot,
        noindex: analysis.noindex,
        nofollow: analysis.nofollow,
        canonical: analysis.page?.canonical ?? null,
        redirectTo: redirect.id,
        note: redirect.note ?? analysis.note,
        payload: storesBody && result.contentEncoding !== undefined && result.rawBody !== undefined ? result.rawBody : null,
        simhash: analysis.simhash === null ? null : simhashToInt(analysis.simhash),
        bodyHash: analysis.bodyHash,
        duplicateOf: duplicate,
        soft404: isSoft404,
      };
      let seq: number;
      if (replaces === undefined) seq = this.#pages.insert(stored);
      else {
        this.#versions.replaceVersion({ ...replaces, outcome: 'changed' }, stored);
        seq = replaces.seq;
      }
      // A new version of a page may be a document, or no longer one.
      if (replaces !== undefined || analysis.document !== null) this.#documents.save(seq, analysis.document);
      const links = analysis.nofollow
        ? NO_LINKS
        : page !== null
          ? this.#storeLinks(task, seq, result.url, page, outlinks)
          : analysis.resource !== null
            ? this.#storeEntries(task, seq, result.url, analysis.resource, outlinks)
            : NO_LINKS;
      if (rendered !== undefined) {
        const rawLinks = raw.page?.links.length ?? 0;
        this.#renders.saveRender({ ...rendered.record, pageSeq: seq, linksAdded: Math.max(0, (page?.links.length ?? 0) - rawLinks) });
      }
      const requisites: PageRequisites | null =
        page === null || result.status < 200 || result.status >= 300 || page.requisites.length === 0 ? null : { hrefs: page.requisites, pageUrl: result.url, baseHref: page.baseHref };
      if (requisites !== null && this.#fetchesRequisites) this.#renders.savePendingRequisites(seq, task.url, requisites);
      if (failedReason !== null) this.#urls.finish(task.id, UrlState.failed, failedReason);
      else this.#urls.finish(task.id, UrlState.fetched, analysis.note);
      afterWrite();
      return {
        seq,
        status: result.status,
        title: page?.title || null,
        newUrls: links.newUrls + redirect.newUrls,
        links: links.links,
        ...verdict,
        terms,
        outlinks: [...outlinks],
        hints: links.hints,
        judgeMs,
        requisites,
        document: analysis.document !== null,
      };
    }).immediate();
    // Indexed once committed: a page whose transaction rolled back must not be anyone's original.
    this.#duplicates.stored(recorded.seq, analysis.simhash, duplicate);
    return recorded;
  }

  #redirectTarget(task: QueuedUrl, result: FetchResult, outlinks: Set<number>): { id: number | null; note: string | null; newUrls: number } {
    if (result.status < 300 || result.status >= 400 || result.location === undefined) return { id: null, note: null, newUrls: 0 };
    // A resource that moved is still that resource.
    const target = this.#admission.admit(result.location, task.url, {
      depth: task.depth, parentId: task.id, redirects: task.redirects + 1, anchor: '', context: '', isSeed: false, kind: task.kind,
    });
    if (target === undefined) return { id: null, note: 'redirect:invalid-target', newUrls: 0 };
    outlinks.add(target.id);
    return { id: target.id, note: null, newUrls: target.isNew ? 1 : 0 };
  }

  #storeLinks(task: QueuedUrl, seq: number, pageUrl: string, page: ExtractedPage, outlinks: Set<number>): StoredLinks {
    const base = effectiveBase(pageUrl, page.baseHref);
    const child = { depth: task.depth + 1, parentId: task.id, redirects: 0, isSeed: false };
    let links = 0;
    let newUrls = 0;
    const extra = [page.metaRefresh?.url, page.canonical].filter((u): u is string => u !== undefined && u !== '');
    for (const href of extra) {
      const admitted = this.#admission.admit(href, base, { ...child, anchor: '', context: '' });
      if (admitted === undefined || admitted.id === task.id) continue;
      if (admitted.isNew) newUrls++;
      outlinks.add(admitted.id);
    }
    const storeLink = this.#linkWriter(seq);
    for (const link of page.links) {
      if (link.nofollow) continue;
      const admitted = this.#admission.admit(link.href, base, { ...child, anchor: link.anchor, context: linkContext(link.contextBefore, link.contextAfter) });
      if (admitted === undefined || admitted.id === task.id) continue;
      if (admitted.isNew) newUrls++;
      outlinks.add(admitted.id);
      storeLink(admitted.id, link.anchor, link.contextBefore, link.contextAfter);
      links++;
    }
    // The search index the page's scripts name: a link without words, so that replays see it too.
    for (const resource of page.siteResources) {
      const admitted = this.#admission.admit(resource.href, base, { ...child, anchor: '', context: '', kind: resource.kind });
      if (admitted === undefined || admitted.id === task.id) continue;
      if (admitted.isNew) newUrls++;
      outlinks.add(admitted.id);
      storeLink(admitted.id, '', '', '');
      links++;
    }
    return { links, newUrls, hints: [] };
  }

  /**
   * Stores a page's links, the first of each to one URL: the store keeps only that one, and a
   * page links one URL many times (an index's links to the sections of one page), so the rest
   * are not sent to it (on python3.11-doc, 72,000 of 94,000 inserts).
   */
  #linkWriter(seq: number): (dstId: number, anchor: string, contextBefore: string, contextAfter: string) => void {
    const stored = new Set<number>();
    return (dstId, anchor, contextBefore, contextAfter) => {
      if (stored.has(dstId)) return;
      stored.add(dstId);
      this.#pages.insertLink(seq, { dstId, anchor, contextBefore, contextAfter });
    };
  }

  /** A site resource's entries become its links (a search index's titles as anchors), and its hints name them by id. */
  #storeEntries(task: QueuedUrl, seq: number, resourceUrl: string, resource: ResourceAnalysis, outlinks: Set<number>): StoredLinks {
    const child = { depth: task.depth + 1, parentId: task.id, redirects: 0, isSeed: false, context: '' };
    const ids: (number | undefined)[] = [];
    let links = 0;
    let newUrls = 0;
    const storeLink = this.#linkWriter(seq);
    for (const entry of resource.entries) {
      const admitted = this.#admission.admit(entry.href, resourceUrl, { ...child, anchor: entry.anchor, kind: entry.kind });
      if (admitted === undefined || admitted.id === task.id) {
        ids.push(undefined);
        continue;
      }
      ids.push(admitted.id);
      if (admitted.isNew) newUrls++;
      outlinks.add(admitted.id);
      storeLink(admitted.id, entry.anchor, '', '');
      links++;
    }
    return { links, newUrls, hints: entryHints(resource.entries, (_, index) => ids[index]) };
  }
}
